import OrientProtocol
import Testing

@testable import OrientFollow

/// The orientation ↔ wl_output transform ↔ Hyprland ↔ xrandr ↔ matrix table,
/// and a check of the matrices against where each corner of the panel really
/// ends up when the device is held that way.
@Suite("Mapping table")
struct MappingTableTests {
    @Test(
        "each orientation has the transform every tool agrees on",
        arguments: [
            (Orientation.normal, 0, "normal", 0, "normal", "1 0 0 0 1 0 0 0 1"),
            (.leftUp, 90, "90", 1, "left", "0 -1 1 1 0 0 0 0 1"),
            (.bottomUp, 180, "180", 2, "inverted", "-1 0 1 0 -1 1 0 0 1"),
            (.rightUp, 270, "270", 3, "right", "0 1 0 -1 0 1 0 0 1"),
        ])
    func table(orientation: Orientation, degrees: Int, wl: String, hyprland: Int, xrandr: String, matrix: String) {
        let transform = PanelTransform(orientation)
        #expect(transform.degrees == degrees)
        #expect(transform.degrees == orientation.rotation, "the same rotation the daemon publishes")
        #expect(transform.wlOutputName == wl)
        #expect(transform.hyprland == hyprland)
        #expect(transform.xrandr == xrandr)
        #expect(transform.matrix.arguments.joined(separator: " ") == matrix)
    }

    @Test("undefined is shown the natural way up")
    func undefinedIsNormal() {
        #expect(PanelTransform(.undefined) == PanelTransform(.normal))
    }

    typealias Point = (x: Double, y: Double)
    static let topLeft: Point = (0, 0)
    static let topRight: Point = (1, 0)
    static let bottomRight: Point = (1, 1)
    static let bottomLeft: Point = (0, 1)

    /// Where each corner of the panel (named as on the unrotated panel) is as
    /// the user sees it, holding the device with that edge up. left-up: the
    /// panel's left edge is the top, its top edge is on the right.
    static let cornersSeen: [(Orientation, [(panel: Point, seen: Point)])] = [
        (.normal, [(topLeft, topLeft), (topRight, topRight), (bottomRight, bottomRight), (bottomLeft, bottomLeft)]),
        (.leftUp, [(topLeft, topRight), (topRight, bottomRight), (bottomRight, bottomLeft), (bottomLeft, topLeft)]),
        (.bottomUp, [(topLeft, bottomRight), (topRight, bottomLeft), (bottomRight, topLeft), (bottomLeft, topRight)]),
        (.rightUp, [(topLeft, bottomLeft), (topRight, topLeft), (bottomRight, topRight), (bottomLeft, bottomRight)]),
    ]

    @Test("a touch in each corner of the panel lands in the screen corner the user sees there", arguments: cornersSeen)
    func touchCorners(orientation: Orientation, corners: [(panel: Point, seen: Point)]) {
        let matrix = PanelTransform(orientation).matrix
        for (panel, seen) in corners {
            let mapped = matrix.map(x: panel.x, y: panel.y)
            #expect(mapped == seen, "\(orientation.rawValue): touch at \(panel) should land at \(seen), got \(mapped)")
        }
    }

    /// The content turned `degrees` counter-clockwise (the wl_output transform),
    /// as the panel draws it: a point of the screen (y down) lands here on the panel.
    static func drawn(_ point: Point, degrees: Int) -> Point {
        var p = point
        for _ in 0..<(degrees / 90) { p = (p.y, 1 - p.x) }
        return p
    }

    @Test("the screen corner drawn under a finger is the one the touch reports", arguments: cornersSeen)
    func transformAgreesWithMatrix(orientation: Orientation, corners: [(panel: Point, seen: Point)]) {
        let transform = PanelTransform(orientation)
        for (panel, seen) in corners {
            // The content drawn at this corner of the panel is the screen corner the user sees there…
            #expect(MappingTableTests.drawn(seen, degrees: transform.degrees) == panel)
            // …and the touch matrix sends a touch there back to that screen corner.
            let touched = transform.matrix.map(x: panel.x, y: panel.y)
            #expect(MappingTableTests.drawn((touched.x, touched.y), degrees: transform.degrees) == panel)
        }
    }
}
