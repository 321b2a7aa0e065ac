import OrientClient
import OrientProtocol
import Testing

/// Two items in a 320×480 container, the table's fixture.
private let items = [Size(width: 100, height: 40), Size(width: 60, height: 60)]
private let container = Size(width: 320, height: 480)

@Suite("Adaptive stack layout")
struct AdaptiveStackTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var axis: Axis
        var alignment: StackAlignment
        var spacing: Double
        var expected: [Rect]
        var testDescription: String { "\(axis) \(alignment) spacing \(spacing)" }
    }

    static let table: [Case] = [
        // Vertical (portrait): down the y axis, alignment across x (320 wide).
        Case(axis: .vertical, alignment: .start, spacing: 0,
             expected: [Rect(x: 0, y: 0, width: 100, height: 40), Rect(x: 0, y: 40, width: 60, height: 60)]),
        Case(axis: .vertical, alignment: .center, spacing: 0,
             expected: [Rect(x: 110, y: 0, width: 100, height: 40), Rect(x: 130, y: 40, width: 60, height: 60)]),
        Case(axis: .vertical, alignment: .end, spacing: 0,
             expected: [Rect(x: 220, y: 0, width: 100, height: 40), Rect(x: 260, y: 40, width: 60, height: 60)]),
        Case(axis: .vertical, alignment: .start, spacing: 8,
             expected: [Rect(x: 0, y: 0, width: 100, height: 40), Rect(x: 0, y: 48, width: 60, height: 60)]),
        Case(axis: .vertical, alignment: .center, spacing: 8,
             expected: [Rect(x: 110, y: 0, width: 100, height: 40), Rect(x: 130, y: 48, width: 60, height: 60)]),
        Case(axis: .vertical, alignment: .end, spacing: 8,
             expected: [Rect(x: 220, y: 0, width: 100, height: 40), Rect(x: 260, y: 48, width: 60, height: 60)]),
        // Horizontal (landscape): along the x axis, alignment across y (480 tall).
        Case(axis: .horizontal, alignment: .start, spacing: 0,
             expected: [Rect(x: 0, y: 0, width: 100, height: 40), Rect(x: 100, y: 0, width: 60, height: 60)]),
        Case(axis: .horizontal, alignment: .center, spacing: 0,
             expected: [Rect(x: 0, y: 220, width: 100, height: 40), Rect(x: 100, y: 210, width: 60, height: 60)]),
        Case(axis: .horizontal, alignment: .end, spacing: 0,
             expected: [Rect(x: 0, y: 440, width: 100, height: 40), Rect(x: 100, y: 420, width: 60, height: 60)]),
        Case(axis: .horizontal, alignment: .start, spacing: 8,
             expected: [Rect(x: 0, y: 0, width: 100, height: 40), Rect(x: 108, y: 0, width: 60, height: 60)]),
        Case(axis: .horizontal, alignment: .center, spacing: 8,
             expected: [Rect(x: 0, y: 220, width: 100, height: 40), Rect(x: 108, y: 210, width: 60, height: 60)]),
        Case(axis: .horizontal, alignment: .end, spacing: 8,
             expected: [Rect(x: 0, y: 440, width: 100, height: 40), Rect(x: 108, y: 420, width: 60, height: 60)]),
    ]

    @Test("items stack along the axis and align across it", arguments: table)
    func layoutTable(_ c: Case) {
        let frames = AdaptiveStack.layout(sizes: items, in: container, axis: c.axis, alignment: c.alignment, spacing: c.spacing)
        #expect(frames == c.expected)
    }

    @Test("every frame keeps its item's size, and gaps equal the spacing", arguments: Axis.allCases, StackAlignment.allCases)
    func framesKeepSizesAndGaps(axis: Axis, alignment: StackAlignment) {
        let sizes = [Size(width: 10, height: 20), Size(width: 30, height: 5), Size(width: 7, height: 7)]
        for spacing in [0.0, 4, -2] {
            let frames = AdaptiveStack.layout(sizes: sizes, in: container, axis: axis, alignment: alignment, spacing: spacing)
            #expect(frames.map(\.size) == sizes)
            for (a, b) in zip(frames, frames.dropFirst()) {
                let gap = axis == .vertical ? b.y - a.maxY : b.x - a.maxX
                #expect(gap == spacing)
            }
            let end = axis == .vertical ? frames.last?.maxY : frames.last?.maxX
            #expect(end == AdaptiveStack.length(of: sizes, axis: axis, spacing: spacing))
        }
    }

    @Test("a portrait state lays out vertically, a landscape state horizontally")
    func followsTheState() {
        let portrait = testLayoutState(.normal)
        let landscape = testLayoutState(.leftUp)
        #expect(portrait.axis == .vertical)
        #expect(landscape.axis == .horizontal)
        #expect(AdaptiveStack.layout(sizes: items, in: container, for: portrait, alignment: .end, spacing: 8)
            == AdaptiveStack.layout(sizes: items, in: container, axis: .vertical, alignment: .end, spacing: 8))
        #expect(AdaptiveStack.layout(sizes: items, in: container, for: landscape, alignment: .end, spacing: 8)
            == AdaptiveStack.layout(sizes: items, in: container, axis: .horizontal, alignment: .end, spacing: 8))
    }

    @Test("no items give no frames")
    func empty() {
        #expect(AdaptiveStack.layout(sizes: [], in: container, axis: .vertical).isEmpty)
        #expect(AdaptiveStack.length(of: [], axis: .horizontal, spacing: 8) == 0)
    }

    @Test("negative and non-finite sizes count as zero, non-finite spacing as zero")
    func badNumbers() {
        let frames = AdaptiveStack.layout(
            sizes: [Size(width: -5, height: .nan), Size(width: .infinity, height: 10)], in: Size(width: 100, height: 100),
            axis: .vertical, alignment: .start, spacing: .nan)
        #expect(frames == [Rect(x: 0, y: 0, width: 0, height: 0), Rect(x: 0, y: 0, width: 0, height: 10)])
    }

    @Test("an item wider than the container overflows by alignment", arguments: [
        (StackAlignment.start, 0.0), (.center, -50.0), (.end, -100.0),
    ])
    func overflow(alignment: StackAlignment, x: Double) {
        let frames = AdaptiveStack.layout(
            sizes: [Size(width: 200, height: 10)], in: Size(width: 100, height: 100), axis: .vertical, alignment: alignment)
        #expect(frames.first?.x == x)
    }

    @Test("alignment offsets work the same on either axis", arguments: [
        (StackAlignment.start, 0.0), (.center, 30.0), (.end, 60.0),
    ])
    func alignmentOffsets(alignment: StackAlignment, expected: Double) {
        #expect(alignment.offset(of: 40, in: 100) == expected)
    }

    @Test("the cross axis is the other axis; sizes map onto either")
    func crossAxis() {
        #expect(Axis.vertical.cross == .horizontal)
        #expect(Axis.horizontal.cross == .vertical)
        let size = Size(main: 10, cross: 20, along: .vertical)
        #expect(size == Size(width: 20, height: 10))
        #expect(size.extent(along: .vertical) == 10)
        #expect(Size(main: 10, cross: 20, along: .horizontal) == Size(width: 10, height: 20))
    }
}

/// A state on a portrait-native phone in `orientation`.
private func testLayoutState(_ orientation: Orientation) -> StateMessage {
    let layout = Layout(orientation: orientation, natural: .portrait)
    return StateMessage(
        orientation: orientation, physical: orientation, tilt: .vertical, rotation: orientation.rotation,
        layout: layout, axis: layout.axis, allowed: .all, locked: nil, sensor: .active, tMs: 0)
}
