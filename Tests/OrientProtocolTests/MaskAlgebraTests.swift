import Testing

@testable import OrientProtocol

/// The mask names against the seed's definitions: SwiftUI's and UIKit's
/// `UIInterfaceOrientationMask`, whose members are interface orientations
/// (portrait, portrait upside down, landscape left, landscape right), not panel
/// orientations. On each panel the interface orientations land on panel
/// orientations; each mask name must resolve to exactly the image of the seed's
/// mask of the same name.
@Suite("Mask algebra")
struct MaskAlgebraTests {
    /// The seed's interface orientations.
    enum Interface: CaseIterable {
        case portrait, portraitUpsideDown, landscapeLeft, landscapeRight
    }

    /// The seed's masks, as written in UIKit.
    static let seed: [MaskName: Set<Interface>] = [
        .portrait: [.portrait],
        .landscape: [.landscapeLeft, .landscapeRight],
        .all: [.portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight],
        .allButUpsideDown: [.portrait, .landscapeLeft, .landscapeRight],
    ]

    /// A panel: its natural geometry and, when landscape-native, which sideways
    /// orientation is upright portrait.
    struct Panel: CustomTestStringConvertible, Sendable {
        var natural: NaturalGeometry
        var side: PortraitOnLandscape
        var testDescription: String { natural == .portrait ? "portrait-native" : "landscape-native, portrait \(side.rawValue)" }

        /// Where each interface orientation lands on this panel. Upright portrait
        /// is `normal` on a phone and the configured side on a tablet; upside-down
        /// portrait is its opposite; the two landscapes are the remaining pair.
        func panelOrientations(_ interface: Interface) -> Set<Orientation> {
            let upright: Orientation = natural == .portrait ? .normal : side.orientation
            let upsideDown = Orientation(quarterTurns: (upright.quarterTurns ?? 0) + 2)
            switch interface {
            case .portrait: return [upright]
            case .portraitUpsideDown: return [upsideDown]
            case .landscapeLeft, .landscapeRight:
                // The pair a quarter turn away from the portrait pair.
                return [Orientation(quarterTurns: (upright.quarterTurns ?? 0) + 1), Orientation(quarterTurns: (upright.quarterTurns ?? 0) + 3)]
            }
        }

        func image(_ interfaces: Set<Interface>) -> OrientationMask {
            var mask: OrientationMask = []
            for interface in interfaces {
                for orientation in panelOrientations(interface) { mask.formUnion(OrientationMask(orientation)) }
            }
            return mask
        }
    }

    static let panels = [
        Panel(natural: .portrait, side: .rightUp),
        Panel(natural: .landscape, side: .rightUp),
        Panel(natural: .landscape, side: .leftUp),
    ]

    static let seedNames: [MaskName] = [.portrait, .landscape, .all, .allButUpsideDown]

    @Test("each seed mask name resolves to the seed's mask on the panel", arguments: panels, seedNames)
    func seedNameResolves(panel: Panel, name: MaskName) throws {
        let expected = panel.image(try #require(Self.seed[name]))
        #expect(OrientationMask(name, natural: panel.natural, portraitOnLandscape: panel.side) == expected)
        #expect(try OrientationMask(name: name.rawValue, natural: panel.natural, portraitOnLandscape: panel.side) == expected)
    }

    @Test("the algebra holds on every panel", arguments: panels)
    func algebra(panel: Panel) {
        func mask(_ name: MaskName) -> OrientationMask { OrientationMask(name, natural: panel.natural, portraitOnLandscape: panel.side) }
        let portrait = mask(.portrait), landscape = mask(.landscape)
        #expect(portrait.orientations.count == 1, "portrait is one orientation")
        #expect(landscape.orientations.count == 2, "landscape is both landscape orientations")
        #expect(portrait.intersection(landscape).isEmpty)
        #expect(mask(.allButUpsideDown) == portrait.union(landscape), "all-but-upside-down = portrait ∪ landscape")
        #expect(mask(.all) == .all)
        let upsideDown = OrientationMask.all.subtracting(mask(.allButUpsideDown))
        #expect(upsideDown.orientations.count == 1, "all adds exactly the upside-down portrait orientation")
        for orientation in portrait.orientations + upsideDown.orientations {
            #expect(Layout(orientation: orientation, natural: panel.natural) == .portrait, "\(orientation) is shown portrait-shaped")
        }
        for orientation in landscape.orientations {
            #expect(Layout(orientation: orientation, natural: panel.natural) == .landscape, "\(orientation) is shown landscape-shaped")
        }
    }

    @Test("the four orientation names are the same orientation on every panel", arguments: panels)
    func orientationNamesAreFixed(panel: Panel) {
        let names: [(MaskName, OrientationMask)] = [(.normal, .normal), (.leftUp, .leftUp), (.bottomUp, .bottomUp), (.rightUp, .rightUp)]
        for (name, expected) in names {
            #expect(OrientationMask(name, natural: panel.natural, portraitOnLandscape: panel.side) == expected)
        }
    }

    @Test("portrait on a portrait-native panel is normal whatever portrait-on-landscape says", arguments: PortraitOnLandscape.allCases)
    func portraitNativeIgnoresSide(side: PortraitOnLandscape) {
        #expect(OrientationMask(.portrait, natural: .portrait, portraitOnLandscape: side) == .normal)
        #expect(OrientationMask(.allButUpsideDown, natural: .portrait, portraitOnLandscape: side) == [.normal, .leftUp, .rightUp])
    }

    @Test("the protocol accepts exactly the mask names")
    func protocolNames() {
        #expect(RequestDecoder.maskNames == MaskName.allCases.map(\.rawValue))
        #expect(Set(RequestDecoder.maskNames).count == 8)
    }
}
