// Convertibles: a display and a base, each with an accelerometer (issue 22,
// docs/traces.md, "Convertibles"). Their bundled traces have base columns.

extension Scenarios {
    /// A named convertible scenario for `tracegen` and the bundled traces.
    package struct ConvertibleEntry: Sendable {
        /// File name stem (`convertible-tent` → `traces/convertible-tent.trace`).
        package var name: String
        package var build: @Sendable (UInt64) -> ConvertibleScenario
    }

    /// Every convertible scenario, in the order of docs/traces.md.
    package static let convertibleCatalog: [ConvertibleEntry] = [
        ConvertibleEntry(name: "convertible-opening") { convertibleOpening(seed: $0) },
        ConvertibleEntry(name: "convertible-tent") { convertibleTent(seed: $0) },
        ConvertibleEntry(name: "convertible-carried-closed") { convertibleCarriedClosed(seed: $0) },
        ConvertibleEntry(name: "convertible-lap") { convertibleLap(seed: $0) },
        ConvertibleEntry(name: "convertible-base-lifted") { convertibleBaseLifted(seed: $0) },
    ]

    /// The convertible entry called `name`, if any.
    package static func convertibleNamed(_ name: String) -> ConvertibleEntry? {
        convertibleCatalog.first { $0.name == name }
    }

    /// Closed on a desk; opened to a laptop (110°); lifted off the desk while
    /// the lid goes on through 180° and 270° to 360°, held as a tablet; then
    /// unfolded back to a laptop on the desk.
    package static func convertibleOpening(seed: UInt64 = 1) -> ConvertibleScenario {
        var s = ConvertibleScenario(start: HingePose(hinge: 0), seed: seed)
        s.summary = "convertible: closed, opened to 110 (laptop), through 180 and 270 to 360 (tablet), back to 110"
        s.hold(1000)
        s.move(to: HingePose(hinge: 110), over: 1500)
        s.mark("laptop")
        s.hold(2000)
        s.move(to: HingePose(hinge: 180, pitch: 15), over: 1000)
        s.hold(1000)
        s.move(to: HingePose(hinge: 270, pitch: 30), over: 1500)
        s.hold(1500)
        s.move(to: HingePose(hinge: 360, pitch: 40), over: 1500)
        s.mark("tablet")
        s.hold(3000)
        s.move(to: HingePose(hinge: 110), over: 3000)
        s.mark("laptop-again")
        s.hold(2000)
        return s
    }

    /// A laptop folded into a tent (300°, the hinge on top, symmetric) on a
    /// desk, its screen tapped twice, and held 6 s.
    package static func convertibleTent(seed: UInt64 = 1) -> ConvertibleScenario {
        var s = ConvertibleScenario(start: HingePose(hinge: 110), seed: seed)
        s.summary = "convertible: laptop (110), folded into a tent (300, hinge on top), screen tapped twice"
        s.hold(2000)
        s.move(to: HingePose(hinge: 300, pitch: -60), over: 2500)
        s.mark("tent")
        s.hold(6000)
        s.impulse(at: 6000, ms: 80, peak: 2.5, direction: SIMD3(0, 1, 0))
        s.impulse(at: 8000, ms: 80, peak: 2.5, direction: SIMD3(0, 1, 0))
        return s
    }

    /// A laptop on a desk, closed, picked up and carried: first by its side
    /// (the hinge vertical), then against the chest (the hinge horizontal),
    /// walking all the while; put down and opened again.
    package static func convertibleCarriedClosed(seed: UInt64 = 1) -> ConvertibleScenario {
        var s = ConvertibleScenario(start: HingePose(hinge: 110), seed: seed)
        s.summary = "convertible: laptop (110), closed, carried (hinge vertical, then flat), opened again"
        s.hold(2000)
        s.move(to: HingePose(hinge: 2), over: 1000)
        s.mark("closed")
        s.hold(1000)
        s.move(to: HingePose(hinge: 2, roll: 85), over: 800)
        s.mark("carried")
        s.hold(8000)
        s.move(to: HingePose(hinge: 2, pitch: 80), over: 1000)
        s.hold(6000)
        s.move(to: HingePose(hinge: 2), over: 1000)
        s.mark("put-down")
        s.hold(1000)
        s.move(to: HingePose(hinge: 110), over: 1500)
        s.hold(2000)
        s.shake(from: 4000, to: 20_800, amplitude: 3, hz: 2)
        s.shake(from: 4000, to: 20_800, amplitude: 1, hz: 1, direction: SIMD3(1, 0, 0))
        return s
    }

    /// A laptop at 120° on a lap, tilted back (the hinge side raised 15°),
    /// swaying with breath and shifting 20 s.
    package static func convertibleLap(seed: UInt64 = 1) -> ConvertibleScenario {
        var s = ConvertibleScenario(start: HingePose(hinge: 120, pitch: -15), seed: seed, noiseSigma: 0.08)
        s.summary = "convertible: on a lap at 120, tilted back 15, swaying and shifting for 20 s"
        s.hold(4000)
        s.move(to: HingePose(hinge: 125, pitch: -22, roll: 8), over: 2000)
        s.hold(4000)
        s.move(to: HingePose(hinge: 115, pitch: -10, roll: -6), over: 2000)
        s.hold(4000)
        s.move(to: HingePose(hinge: 120, pitch: -15), over: 2000)
        s.hold(2000)
        s.shake(from: 0, to: 20_000, amplitude: 0.3, hz: 0.3)
        s.shake(from: 4000, to: 6000, amplitude: 1.5, hz: 3, direction: SIMD3(0, 1, 0))
        return s
    }

    /// A laptop at 110° on a desk whose base is lifted: by its front edge
    /// (tilted 25°), then off the desk and carried open a few steps, then put down.
    package static func convertibleBaseLifted(seed: UInt64 = 1) -> ConvertibleScenario {
        var s = ConvertibleScenario(start: HingePose(hinge: 110), seed: seed)
        s.summary = "convertible: laptop (110); base lifted by its front edge, carried open, put down"
        s.hold(2000)
        s.move(to: HingePose(hinge: 110, pitch: 25), over: 500)
        s.mark("edge-lifted")
        s.hold(2000)
        s.move(to: HingePose(hinge: 110), over: 500)
        s.hold(1000)
        s.move(to: HingePose(hinge: 105, pitch: 10, roll: 10), over: 700)
        s.mark("carried")
        s.hold(4000)
        s.move(to: HingePose(hinge: 110), over: 700)
        s.mark("put-down")
        s.hold(2000)
        s.impulse(at: 2000, ms: 300, peak: 4)
        s.impulse(at: 5500, ms: 700, peak: 3)
        s.shake(from: 6200, to: 10_200, amplitude: 2.5, hz: 2)
        s.impulse(at: 10_200, ms: 300, peak: -3)
        return s
    }
}
