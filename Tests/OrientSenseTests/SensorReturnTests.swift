import OrientSynth
import Testing

@testable import OrientSense
import OrientProtocol

/// A sensor that goes and comes back (a hub re-created, a driver rebound, a
/// resume): nothing read before the loss is published again, and `active` is
/// published with the new device's readings, not before (docs/behaviour.md,
/// "Across a replug or a resume").
@Suite("A sensor's return")
struct SensorReturnTests {
    /// `scenario`'s readings at 20 Hz, moved to start at `startMs`.
    static func readings(_ scenario: Scenario, from startMs: Double) -> [Sample] {
        scenario.samples(rateHz: 20).map { Sample(tMs: $0.tMs + startMs, vector: $0.vector) }
    }

    /// An engine at `normal`, active, then the device lost (absent).
    static func engineAfterLoss() throws -> OrientationEngine {
        var (engine, _) = OrientationEngineTests.engineAtNormal()
        #expect(engine.state.physical == .normal)
        engine.forgetReadings()
        let lost = try OrientationEngineTests.changed(engine.setSensor(.absent, atMs: 10_000))
        #expect(lost.sensor == .absent)
        #expect(lost.physical == .undefined, "the orientation from before the loss is not kept")
        #expect(lost.orientation == .normal, "the effective orientation stays where it was")
        return engine
    }

    @Test("back held left-up: the first state published is active and left-up, nothing between, as fast as a fresh start", arguments: [1, 2, 3] as [UInt64])
    func backHeldLeftUp(seed: UInt64) throws {
        var engine = try Self.engineAfterLoss()
        let back = 12_000.0
        #expect(engine.setSensor(.active, atMs: back) == nil, "opened, no reading yet: nothing published")
        #expect(engine.state.sensor == .absent)
        #expect(engine.awaitingReadings)
        let published = OrientationEngineTests.publish(Self.readings(Scenarios.cardinal(theta: 90, seed: seed), from: back), to: &engine)
        let first = try #require(published.first)
        #expect(first.sensor == .active)
        #expect(first.physical == .leftUp)
        #expect(first.orientation == .leftUp)
        // A fresh engine's first commit on the same readings comes as soon.
        var fresh = OrientationEngine(sensor: .active)
        let freshStates = OrientationEngineTests.publish(Self.readings(Scenarios.cardinal(theta: 90, seed: seed), from: back), to: &fresh)
        let freshCommit = try #require(freshStates.first { $0.physical != .undefined })
        #expect(first.tMs == freshCommit.tMs)
        #expect(first.tMs - back <= 500, "left-up \(first.tMs - back) ms after the first reading")
        #expect(!engine.awaitingReadings)
    }

    @Test("back lying flat: active at once with the flat tilt, the orientation undefined", arguments: [9.81, -9.81])
    func backFlat(z: Double) throws {
        var engine = try Self.engineAfterLoss()
        _ = engine.setSensor(.active, atMs: 12_000)
        let flat = (0..<40).map { Sample(tMs: 12_000 + Double($0) * 50, vector: Vector3(0.05, -0.03, z)) }
        let published = OrientationEngineTests.publish(flat, to: &engine)
        let first = try #require(published.first)
        #expect(first.sensor == .active)
        #expect(first.tilt == .faceUp || first.tilt == .faceDown)
        #expect(first.physical == .undefined)
        #expect(first.tMs - 12_000 < OrientationEngine.activationLimitMs)
    }

    @Test("back while shaken: active with the orientation undefined once the limit has passed")
    func backShaken() throws {
        var engine = try Self.engineAfterLoss()
        _ = engine.setSensor(.active, atMs: 12_000)
        let published = OrientationEngineTests.publish(Self.readings(Scenarios.shaking(), from: 12_000), to: &engine)
        let first = try #require(published.first)
        #expect(first.sensor == .active)
        #expect(first.tMs - 12_000 <= OrientationEngine.activationLimitMs + 100)
    }

    @Test("opened again without a loss (idle, then a subscriber), turned meanwhile: active with the orientation it has now")
    func reopenedWithoutLoss() throws {
        var (engine, _) = OrientationEngineTests.engineAtNormal()
        let idle = try OrientationEngineTests.changed(engine.setSensor(.idle, atMs: 10_000))
        #expect(idle.physical == .normal, "idle keeps what the sensor said")
        engine.forgetReadings()
        #expect(engine.setSensor(.active, atMs: 11_000) == nil)
        #expect(engine.state.physical == .normal, "nothing published before the readings decide")
        let published = OrientationEngineTests.publish(Self.readings(Scenarios.cardinal(theta: 90), from: 11_000), to: &engine)
        let first = try #require(published.first)
        #expect(first.sensor == .active)
        #expect(first.physical == .leftUp)
        #expect(first.tMs - 11_000 <= 500)
    }

    @Test("a constraint changed while the readings are awaited publishes nothing of them")
    func constraintWhileAwaited() throws {
        var engine = try Self.engineAfterLoss()
        _ = engine.setSensor(.active, atMs: 12_000)
        // Readings come, not yet enough to decide (the tilt is already known).
        for (i, sample) in Self.readings(Scenarios.cardinal(theta: 90), from: 12_000).prefix(2).enumerated() {
            #expect(engine.process(sample) == nil, "reading \(i)")
        }
        let constrained = try OrientationEngineTests.changed(engine.setConstraints([[.normal, .bottomUp]], atMs: 12_060))
        #expect(constrained.sensor == .absent)
        #expect(constrained.physical == .undefined)
        #expect(constrained.tilt == .undefined)
    }

    @Test("lost again before any reading: the status that follows is published, the wait ends")
    func lostBeforeReading() throws {
        var engine = try Self.engineAfterLoss()
        _ = engine.setSensor(.active, atMs: 12_000)
        #expect(engine.setSensor(.idle, atMs: 12_100)?.sensor == .idle)
        #expect(!engine.awaitingReadings)
    }

    @Test("a compositor's applied orientation survives the loss")
    func appliedKept() throws {
        var (engine, _) = OrientationEngineTests.engineAtNormal()
        var classifier = engine.classifier
        classifier.setApplied(.rightUp)
        classifier.restart()
        #expect(classifier.applied == .rightUp)
        #expect(classifier.orientation == .undefined)
        engine.forgetReadings()
        #expect(engine.classifier.orientation == .undefined)
        #expect(engine.classifier.filtered == nil)
    }
}
