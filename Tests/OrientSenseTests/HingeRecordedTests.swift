import Foundation
import OrientSynth
import Testing

@testable import OrientSense
import OrientProtocol

/// The hinge detector on real and synthetic two-sensor traces. What each
/// should give was written down from its plot (`tracegen plot TRACE`; the
/// ChromeOS ones are in docs/plots) before it was asserted.
@Suite("Tablet mode from the hinge angle, on recordings and scenarios")
struct HingeRecordedTests {
    /// A change of mode: when, and to what.
    struct Change: Equatable, CustomStringConvertible {
        var tMs: Double
        var mode: TabletMode
        var description: String { "\(mode.rawValue)@\(tMs)" }
    }

    /// The mode changes of a replay: each display sample paired with the base's
    /// latest at or before it, z negated on both if asked (the z sign then
    /// negated with it, as `z-sign` in the config would be), `start` readings first.
    static func replay(_ trace: Trace, negate: Bool = false, start: [(lid: Vector3, base: Vector3)] = []) -> [Change] {
        let header = trace.extraHeaders.first { $0.key == "z_sign" }?.value
        var config = ZSign.decide(setting: .auto, driverName: nil, traceHeader: header).applied(to: HingeConfig())
        let flip = Vector3(1, 1, negate ? -1 : 1)
        if negate { config.zSign = -config.zSign }
        var detector = HingeModeDetector(config: config)
        var changes: [Change] = []
        var last = TabletMode.unknown
        let t0 = (trace.samples.first?.tMs ?? 0) - 10_000
        for (i, pair) in start.enumerated() {
            detector.update(tMs: t0 + Double(i), lid: pair.lid * flip, base: pair.base * flip)
        }
        last = detector.mode
        var nextBase = 0
        for sample in trace.samples {
            while nextBase < trace.baseSamples.count, trace.baseSamples[nextBase].tMs <= sample.tMs { nextBase += 1 }
            guard nextBase > 0 else { continue }
            let lid = trace.mountMatrix.apply(sample.vector) * flip
            let base = trace.baseMountMatrix.apply(trace.baseSamples[nextBase - 1].vector) * flip
            let mode = detector.update(tMs: sample.tMs, lid: lid, base: base)
            if mode != last {
                changes.append(Change(tMs: sample.tMs, mode: mode))
                last = mode
            }
        }
        return changes
    }

    static func chromeos(_ name: String) throws -> Trace {
        try RecordedTraceTests.load("chromeos/chromeos_\(name).trace")
    }

    // MARK: ChromeOS recordings

    @Test("each ChromeOS recording has both sensors at the same times, the base with an identity matrix")
    func recordingsHaveTwoSensors() throws {
        for name in ["laptopmode", "fullyopen", "verticalhinge", "verticalhinge_unstable"] {
            let trace = try Self.chromeos(name)
            #expect(trace.columns == [.base], "\(name)")
            #expect(trace.baseSamples.map(\.tMs) == trace.samples.map(\.tMs), "\(name)")
            #expect(trace.baseMountMatrix == .identity && trace.samples.count > 20, "\(name)")
        }
        // Laptop mode at t = 0 reads about 113°: the base needs no matrix.
        let laptop = try Self.chromeos("laptopmode")
        var config = HingeConfig()
        config.zSign = -1
        let angle = try #require(HingeAngle.degrees(lid: laptop.samples[0].vector, base: laptop.baseSamples[0].vector, config: config))
        #expect(abs(angle - 113.4) < 0.1)
    }

    // Plot: the hinge angle sits at 100–130° whenever the machine is still
    // (the trusted readings, 0–3 s, 12 s, 29–31 s, 44 s), and swings anywhere
    // while it is shaken; about 17–21 s the lid is nearly closed (10–40°).
    // A person expects laptop from the first reading to the end.
    @Test("laptop mode, shaken about: laptop from the first reading and never tablet", arguments: [false, true])
    func laptopMode(negate: Bool) throws {
        let changes = Self.replay(try Self.chromeos("laptopmode"), negate: negate)
        #expect(changes == [Change(tMs: 0, mode: .laptop)], "\(changes)")
    }

    // Plot: folded flat back the whole time, the angle hugging 360°/0°,
    // dipping while shaken; the first sample moves (the base reads 8.8 m/s²).
    // Expected: tablet from the first trusted reading (0.5 s, after the motion
    // hold) to the end.
    @Test("folded into a tablet and turned: tablet from 0.5 s to the end", arguments: [false, true])
    func fullyOpen(negate: Bool) throws {
        let changes = Self.replay(try Self.chromeos("fullyopen"), negate: negate)
        #expect(changes == [Change(tMs: 500, mode: .tablet)], "\(changes)")
    }

    // Plot: hinge vertical most of the 83 s (held), the trusted angles at
    // 300–360° (and a few near 0°, folded), 205° at the very end. Expected:
    // tablet from the first reading, no change after.
    @Test("a tablet held with its hinge near vertical: tablet from the first reading, never flapping", arguments: [false, true])
    func verticalHinge(negate: Bool) throws {
        let changes = Self.replay(try Self.chromeos("verticalhinge"), negate: negate)
        #expect(changes == [Change(tMs: 0, mode: .tablet)], "\(changes)")
    }

    // Plot: every reading has the hinge within 27.5° of vertical (a few
    // also moving): no angle can be known. Expected: whatever was decided
    // before holds through it; from nothing, it stays unknown.
    @Test("hinge vertical and unstable: no change at all, from unknown, tablet or laptop", arguments: [false, true])
    func verticalHingeUnstable(negate: Bool) throws {
        let trace = try Self.chromeos("verticalhinge_unstable")
        #expect(Self.replay(trace, negate: negate).isEmpty)
        for hinge in [300.0, 110] {
            let changes = Self.replay(trace, negate: negate, start: [hingePair(hinge)])
            #expect(changes.isEmpty, "decided at \(hinge): \(changes)")
        }
    }

    // MARK: Synthetic convertibles

    /// The first time the scenario's hinge crosses `degrees` after `after`, ms.
    static func crossing(_ s: ConvertibleScenario, _ degrees: Double, after: Double = 0, rising: Bool) -> Double? {
        var t = after
        while t <= s.durationMs {
            let h = s.pose(at: t).hinge
            if rising ? h >= degrees : h <= degrees { return t }
            t += 1
        }
        return nil
    }

    @Test("opening the lid through 180° to 360° and back: laptop, tablet once past 200°, laptop once back at 160°", arguments: [1, 2, 3] as [UInt64])
    func opening(seed: UInt64) throws {
        let s = Scenarios.convertibleOpening(seed: seed)
        let changes = Self.replay(s.trace(rateHz: 20))
        #expect(changes.map(\.mode) == [.laptop, .tablet, .laptop], "\(changes)")
        let up = try #require(Self.crossing(s, 200, rising: true))
        let down = try #require(Self.crossing(s, 160, after: up + 2000, rising: false))
        #expect(changes.count == 3 && abs(changes[1].tMs - up) <= 150 && abs(changes[2].tMs - down) <= 150, "\(changes), 200° at \(up), 160° at \(down)")
    }

    @Test("folded into a tent and tapped: laptop, then tablet once past 200°, kept through the taps", arguments: [1, 2, 3] as [UInt64])
    func tent(seed: UInt64) throws {
        let s = Scenarios.convertibleTent(seed: seed)
        let changes = Self.replay(s.trace(rateHz: 20))
        let up = try #require(Self.crossing(s, 200, rising: true))
        #expect(changes.map(\.mode) == [.laptop, .tablet] && abs(changes[1].tMs - up) <= 150, "\(changes), 200° at \(up)")
    }

    @Test(
        "closed and carried, on a lap tilted back, its base lifted: laptop throughout",
        arguments: ["convertible-carried-closed", "convertible-lap", "convertible-base-lifted"], [1, 2, 3] as [UInt64])
    func staysLaptop(name: String, seed: UInt64) throws {
        let entry = try #require(Scenarios.convertibleNamed(name))
        let changes = Self.replay(entry.build(seed).trace(rateHz: 20))
        #expect(changes == [Change(tMs: 0, mode: .laptop)], "\(name): \(changes)")
    }

    @Test("a scenario's trace at another rate decides the same (10, 20 and 100 Hz)", arguments: ["convertible-opening", "convertible-tent", "convertible-carried-closed"])
    func rates(name: String) throws {
        let entry = try #require(Scenarios.convertibleNamed(name))
        let modes = [10.0, 20, 100].map { Self.replay(entry.build(1).trace(rateHz: $0)).map(\.mode) }
        #expect(modes[0] == modes[1] && modes[1] == modes[2], "\(modes)")
    }

    @Test("the bundled convertible traces are what the generator writes (to 1e-4 m/s²), and replay as their scenarios do")
    func bundled() throws {
        let traces = RecordedTraceTests.root.deletingLastPathComponent()
        for entry in Scenarios.convertibleCatalog {
            let path = traces.appendingPathComponent("\(entry.name).trace").path
            let data = try #require(FileManager.default.contents(atPath: path), "missing \(path): make traces")
            let bundled = try TraceReader.parse([UInt8](data), file: path)
            let generated = entry.build(1).trace(rateHz: 20)
            #expect(bundled.samples.count == generated.samples.count && bundled.baseSamples.count == generated.baseSamples.count, "\(entry.name)")
            // A function, not one closure expression: swiftlang 6.0.3 could not type-check that in time.
            func near(_ a: Sample, _ b: Sample) -> Bool {
                let difference: Vector3 = a.vector - b.vector
                return a.tMs == b.tMs && difference.max() <= 5.1e-5 && (-difference).max() <= 5.1e-5
            }
            let close = zip(bundled.samples + bundled.baseSamples, generated.samples + generated.baseSamples).allSatisfy(near)
            #expect(close, "\(entry.name) differs from the generator: make traces")
            #expect(Self.replay(bundled).map(\.mode) == Self.replay(generated).map(\.mode), "\(entry.name)")
        }
    }
}
