import OrientSynth
import Testing

@testable import OrientSense
import OrientProtocol

/// A wrong or missing scale (docs/behaviour.md, "Units"): readings at rest that
/// agree on a magnitude far from g have it taken as the device's g, and only
/// such readings do.
@Suite("Learned gravity")
struct GravityEstimateTests {
    /// Raw −25.6 × scale 10: a device reading 26.1 g at rest.
    static let wrongScale = 256 / standardGravity
    /// Raw counts of 16384 per g with no scale attribute (scale 1).
    static let rawCounts = 16384 / standardGravity
    /// A scale 100 times too small: 0.01 g at rest.
    static let tiny = 0.01

    /// The samples of `scenario` at 20 Hz, multiplied by `factor` (a scale off by that factor).
    static func samples(_ scenario: Scenario, times factor: Double, rateHz: Double = 20) -> [Sample] {
        scenario.samples(rateHz: rateHz).map { Sample(tMs: $0.tMs, vector: $0.vector * factor) }
    }

    /// Feeds `samples` to a fresh estimate; returns it and when `learned` changed.
    static func watch(_ samples: [Sample], estimate: GravityEstimate = GravityEstimate()) -> (GravityEstimate, [Double]) {
        var estimate = estimate
        var changes: [Double] = []
        for sample in samples where estimate.observe(sample.vector, atMs: sample.tMs) { changes.append(sample.tMs) }
        return (estimate, changes)
    }

    /// Held still at `theta` (φ 10°) for `ms`.
    static func still(theta: Double = 0, ms: Double = 4000, seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: theta, phi: Scenarios.handTilt), seed: seed)
        s.hold(ms)
        return s
    }

    /// Held upright, then turned through left-up, bottom-up and right-up, 2 s in each.
    static func fourTurns(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: Scenarios.handTilt), seed: seed)
        s.hold(3000)
        for theta in [90.0, 180, 270] {
            s.mark("turn-\(Int(theta))", at: nil)
            s.move(to: Pose(theta: theta, phi: Scenarios.handTilt), over: 300)
            s.hold(2000)
        }
        return s
    }

    // MARK: Learning

    @Test(
        "readings at rest far from 1 g are learned as the device's g, after a second of rest",
        arguments: [(wrongScale, 256.0), (rawCounts, 16384), (tiny, tiny * standardGravity)] as [(Double, Double)])
    func learnsAtRest(factor: Double, expected: Double) throws {
        for seed in 1...5 as ClosedRange<UInt64> {
            let (estimate, changes) = Self.watch(Self.samples(Scenarios.cardinal(theta: 90, seed: seed), times: factor))
            let learned = try #require(estimate.learned, "seed \(seed): nothing learned")
            #expect(abs(learned / expected - 1) < 0.01, "seed \(seed): learned \(learned), expected \(expected)")
            #expect(abs(estimate.gain * learned - standardGravity) < 1e-9)
            // One change, after a second of readings (20 Hz: the 21st reading, at 1000 ms).
            #expect(changes == [1000], "seed \(seed)")
        }
    }

    @Test("the classifier's gates see 1 g once the gain applies")
    func gainRestoresGravity() throws {
        let (estimate, _) = Self.watch(Self.samples(Scenarios.cardinal(theta: 0), times: Self.wrongScale))
        let last = try #require(Self.samples(Scenarios.cardinal(theta: 0), times: Self.wrongScale).last)
        #expect(abs(length(last.vector * estimate.gain) - standardGravity) < 0.3)
    }

    // MARK: Not learning

    @Test("no scenario of the catalog, correctly scaled, learns anything (rest, turns, shaking, walking, free fall, car dock)")
    func correctlyScaledNeverLearns() {
        for entry in Scenarios.catalog {
            for seed in 1...3 as ClosedRange<UInt64> {
                for rate in [5.0, 20, 100] {
                    let (estimate, changes) = Self.watch(Self.samples(entry.build(seed), times: 1, rateHz: rate))
                    #expect(estimate.learned == nil && changes.isEmpty, "\(entry.name), seed \(seed), \(rate) Hz: learned \(String(describing: estimate.learned))")
                }
            }
        }
    }

    @Test("a correctly scaled device read at 0.9 g or 1.4 g at rest (a poor calibration) learns nothing")
    func nearOneGNeverLearns() {
        for factor in [0.7, 0.9, 1.1, 1.4] {
            let (estimate, _) = Self.watch(Self.samples(Scenarios.cardinal(theta: 0), times: factor))
            #expect(estimate.learned == nil, "x\(factor)")
        }
    }

    @Test("a 26 g device being shaken learns nothing until it rests, then learns once")
    func shakingDoesNotLearn() throws {
        var s = Scenario(start: Pose(theta: 0, phi: Scenarios.handTilt))
        s.hold(3000)
        s.addOscillation(from: 0, to: 3000, frequencyHz: 5, amplitude: Vector3(1.5 * standardGravity, 0, 0))
        s.hold(2000)
        let (estimate, changes) = Self.watch(Self.samples(s, times: Self.wrongScale))
        #expect(changes.count == 1)
        #expect(try #require(changes.first) >= 4000, "learned \(changes) while shaken")
        let learned = try #require(estimate.learned)
        #expect(abs(learned / 256 - 1) < 0.01)
    }

    @Test("a 26 g device turning slowly learns nothing until it rests (the direction moves)")
    func turningDoesNotLearn() throws {
        var s = Scenario(start: Pose(theta: 0, phi: 20), noiseSigma: 0.1)
        s.move(to: Pose(theta: 180, phi: 20), over: 6000, easing: .linear)
        s.hold(2000)
        let (_, changes) = Self.watch(Self.samples(s, times: Self.wrongScale))
        #expect(changes.count == 1)
        #expect(try #require(changes.first) >= 7000, "learned at \(changes) while turning")
    }

    @Test("a correctly scaled device in free fall for 2 s learns nothing")
    func freeFallDoesNotLearn() {
        for seed in 1...5 as ClosedRange<UInt64> {
            var s = Scenario(start: Pose(theta: 0, phi: Scenarios.handTilt), seed: seed)
            s.hold(1000)
            s.freeFall(from: 1000, to: 3000)
            s.hold(3000)
            let (estimate, changes) = Self.watch(Self.samples(s, times: 1))
            #expect(estimate.learned == nil && changes.isEmpty, "seed \(seed)")
        }
    }

    @Test("an estimate that is not enabled (the config gives the scale) never learns")
    func disabledNeverLearns() {
        let (estimate, changes) = Self.watch(
            Self.samples(Scenarios.cardinal(theta: 0), times: Self.wrongScale), estimate: GravityEstimate(enabled: false))
        #expect(estimate.learned == nil && changes.isEmpty && estimate.gain == 1)
    }

    @Test("NaN, zero and infinite readings break a rest instead of joining it")
    func garbageBreaksARest() {
        var samples = Self.samples(Self.still(), times: Self.wrongScale)
        for (index, bad) in [Vector3(.nan, 0, 0), .zero, Vector3(.infinity, 0, 0)].enumerated() {
            samples[8 + 8 * index].vector = bad
        }
        let (_, changes) = Self.watch(samples)
        // The rest starts again after the last bad reading (index 24, 1200 ms).
        #expect(changes == [2250])
    }

    // MARK: Re-learning

    @Test("a rest at 1 g forgets the learned value (the scale was fixed); a rest at another far magnitude re-learns")
    func relearns() throws {
        let wrong = Self.samples(Scenarios.cardinal(theta: 0), times: Self.wrongScale)
        var estimate = Self.watch(wrong).0
        #expect(estimate.learned != nil)
        // The same magnitude again (within 10 %) changes nothing.
        let again = Self.samples(Scenarios.cardinal(theta: 90), times: Self.wrongScale * 1.05).map { Sample(tMs: $0.tMs + 5000, vector: $0.vector) }
        var changed = again.contains { estimate.observe($0.vector, atMs: $0.tMs) }
        #expect(!changed)
        let fixed = Self.samples(Scenarios.cardinal(theta: 0), times: 1).map { Sample(tMs: $0.tMs + 10_000, vector: $0.vector) }
        changed = fixed.contains { estimate.observe($0.vector, atMs: $0.tMs) }
        #expect(changed && estimate.learned == nil && estimate.gain == 1)
        let counts = Self.samples(Scenarios.cardinal(theta: 0), times: Self.rawCounts).map { Sample(tMs: $0.tMs + 15_000, vector: $0.vector) }
        changed = counts.contains { estimate.observe($0.vector, atMs: $0.tMs) }
        #expect(changed)
        let learned = try #require(estimate.learned)
        #expect(abs(learned / 16384 - 1) < 0.01)
        estimate.forget()
        #expect(estimate.learned == nil && estimate.gain == 1)
    }

    // MARK: The first reading

    @Test("a first reading far from g sets a provisional gain at once; nothing is learned until a rest says so")
    func firstReadingIsProvisional() throws {
        var estimate = GravityEstimate()
        let changed = estimate.observe(Vector3(0, -256, 0), atMs: 0)
        #expect(!changed && estimate.isProvisional && estimate.learned == nil)
        #expect(abs(estimate.gain * 256 - standardGravity) < 1e-9)
        // A second far reading does not move it.
        _ = estimate.observe(Vector3(256, 0, 0), atMs: 50)
        #expect(abs(estimate.gain * 256 - standardGravity) < 1e-9)
        let (learned, changes) = Self.watch(Self.samples(Scenarios.cardinal(theta: 0), times: Self.wrongScale))
        #expect(changes == [1000] && !learned.isProvisional)
        #expect(abs(try #require(learned.learned) / 256 - 1) < 0.01)
    }

    @Test("a correctly scaled device caught moving at its first reading drops the provisional gain at its first rest, learning nothing")
    func movingFirstReadingIsDropped() {
        var samples = Self.samples(Self.still(), times: 1)
        samples[0].vector = samples[0].vector * 2.5  // a knock as it is first read
        let (estimate, changes) = Self.watch(samples)
        #expect(changes.isEmpty && estimate.learned == nil && estimate.gain == 1 && !estimate.isProvisional)
        // A near-zero first reading (noise as a chip powers up) is dropped by the next reading at 1 g.
        var noisy = GravityEstimate()
        _ = noisy.observe(Vector3(0.01, 0, 0), atMs: 0)
        #expect(noisy.isProvisional)
        _ = noisy.observe(Vector3(0, -standardGravity, 0), atMs: 50)
        #expect(!noisy.isProvisional && noisy.gain == 1)
        // Nor is a later far reading provisional: it is no longer the first.
        var later = estimate
        _ = later.observe(Vector3(0, -256, 0), atMs: 10_000)
        #expect(later.gain == 1)
    }

    @Test("an on-change sensor's silence continues its rest: a still 26 g device is learned after a second; a 1 g one asks for no wakeup")
    func silenceIsARest() throws {
        var estimate = GravityEstimate()
        _ = estimate.observe(Vector3(0, -256, 0), atMs: 100)
        #expect(estimate.heldRestDeadline == 1100)
        let early = estimate.observeHeld(atMs: 600)
        let due = estimate.observeHeld(atMs: 1100)
        #expect(!early && due)
        #expect(abs(try #require(estimate.learned) - 256) < 1e-9 && estimate.heldRestDeadline == nil)
        // Sparse on-change readings past `restMs`, too few for `observe` to judge:
        // the deadline is never in the past, and a tick there judges the rest.
        var sparse = GravityEstimate()
        for t in [0.0, 700, 1400] { _ = sparse.observe(Vector3(0, -256, 0), atMs: t) }
        #expect(sparse.heldRestDeadline == 1400)
        let judgedSparse = sparse.observeHeld(atMs: 1400)
        #expect(judgedSparse && sparse.heldRestDeadline == nil)
        // A tick at the deadline judges, whatever the rounding of deadline − start
        // (at 4,193,955.592973 ms, (t + 1000) − t is 999.9999999995).
        var late = GravityEstimate()
        let start = 4_193_955.592973
        _ = late.observe(Vector3(0, -256, 0), atMs: start)
        let lateDeadline = try #require(late.heldRestDeadline)
        let judgedLate = late.observeHeld(atMs: lateDeadline)
        #expect(judgedLate && late.heldRestDeadline == nil)
        var correct = GravityEstimate()
        _ = correct.observe(Vector3(0, -standardGravity, 0), atMs: 100)
        #expect(correct.heldRestDeadline == nil)
        let judged = correct.observeHeld(atMs: 5000)
        #expect(!judged && correct.learned == nil)
    }

    // MARK: The engine

    @Test("the engine publishes a 26 g device's orientation from its first readings, before any rest is learned", arguments: [wrongScale, rawCounts, tiny])
    func engineAnswersFromTheFirstReading(factor: Double) throws {
        var engine = OrientationEngine(sensor: .active)
        let samples = Self.samples(Self.still(ms: 900), times: factor)
        let published = OrientationEngineTests.publish(samples, to: &engine)
        let first = try #require(published.first { $0.physical == .normal }, "x\(factor): \(published.map(\.physical))")
        #expect(first.tMs < 600, "x\(factor): normal at \(first.tMs) ms")
        #expect(engine.gravity.learned == nil && engine.gravity.isProvisional)
    }

    @Test("an on-change device read once at 26 g and silent after gets its orientation, then learns its g from the silence")
    func engineSilentOnChangeDevice() throws {
        var config = ClassifierConfig()
        config.onChange = true
        var engine = OrientationEngine(classifier: config, sensor: .active)
        let published = OrientationEngineTests.publish([Sample(tMs: 0, vector: Vector3(0, -256, 0))], to: &engine)
        #expect(published.contains { $0.physical == .normal }, "\(published.map(\.physical))")
        #expect(abs(try #require(engine.gravity.learned) - 256) < 1e-9)
        #expect(engine.nextDeadline == nil, "no more wakeups once it is learned")
    }

    @Test("a 26 g device rotates through all four orientations once its g is learned", arguments: [wrongScale, rawCounts, tiny])
    func engineRotatesAfterLearning(factor: Double) throws {
        for seed in 1...3 as ClosedRange<UInt64> {
            let scenario = Self.fourTurns(seed: seed)
            var engine = OrientationEngine(sensor: .active)
            let published = OrientationEngineTests.publish(Self.samples(scenario, times: factor), to: &engine)
            // (The tilt may be published before the first orientation: undefined, then the four.)
            let physical = OrientationEngineTests.collapsed(published.map(\.physical)).drop { $0 == .undefined }
            #expect(Array(physical) == [.normal, .leftUp, .bottomUp, .rightUp], "x\(factor), seed \(seed)")
            #expect(engine.gravity.learned != nil)
            // Each turn commits within 0.7 s of its end, as a correctly scaled one does.
            for theta in [90, 180, 270] {
                let turnEnd = scenario.mark("turn-\(theta)") + 300
                let commit = try #require(published.first { $0.physical.rotation == theta }?.tMs)
                #expect(commit - turnEnd < 700, "x\(factor), seed \(seed), turn to \(theta): \(commit - turnEnd) ms")
            }
        }
    }

    @Test("without learning (the config gives the scale) a 26 g device never leaves undefined")
    func engineWithoutLearningStaysUndefined() {
        var engine = OrientationEngine(sensor: .active, learnsGravity: false)
        let published = OrientationEngineTests.publish(Self.samples(Self.fourTurns(), times: Self.wrongScale), to: &engine)
        #expect(published.allSatisfy { $0.physical == .undefined })
        #expect(engine.state.physical == .undefined && engine.gravity.learned == nil)
    }

    @Test("a correctly scaled device publishes the same states through the engine as before: the gain is exactly 1")
    func correctlyScaledIsUntouched() {
        var engine = OrientationEngine(sensor: .active)
        var unlearning = OrientationEngine(sensor: .active, learnsGravity: false)
        let samples = Self.samples(Self.fourTurns(), times: 1)
        #expect(OrientationEngineTests.publish(samples, to: &engine) == OrientationEngineTests.publish(samples, to: &unlearning))
        #expect(engine.gravity.gain == 1)
    }

    @Test("turning the learning off forgets the learned g")
    func disablingForgets() {
        var engine = OrientationEngine(sensor: .active)
        _ = OrientationEngineTests.publish(Self.samples(Scenarios.cardinal(theta: 0), times: Self.wrongScale), to: &engine)
        #expect(engine.gravity.learned != nil)
        engine.setLearnsGravity(false)
        #expect(engine.gravity.learned == nil && engine.gravity.gain == 1)
        #expect(engine.filteredAsRead == nil)
    }

    // MARK: What is said

    @Test("the problem and its fix say what was seen, what is done and the scale that would be right")
    func messages() {
        #expect(GravityEstimate.problem(learned: 256, standardGravity: standardGravity)
            == "readings at rest are 26.1 g, not 1 g: taking 256 m/s² as g")
        #expect(GravityEstimate.fix(learned: 256, standardGravity: standardGravity, attribute: "in_accel_scale", scale: 10)
            == "fix the scale (in_accel_scale) or set `[sensor] scale = 0.38307` in the config")
        #expect(GravityEstimate.problem(learned: 16384, standardGravity: standardGravity)
            == "readings at rest are 1671 g, not 1 g: taking 16384 m/s² as g")
        #expect(GravityEstimate.fix(learned: 16384, standardGravity: standardGravity, attribute: nil, scale: 1)
            == "the driver gives no scale (in_accel_scale): fix the driver or set `[sensor] scale = 0.00059855` in the config")
        #expect(GravityEstimate.problem(learned: 0.0980665, standardGravity: standardGravity)
            == "readings at rest are 0.01 g, not 1 g: taking 0.09807 m/s² as g")
        #expect(GravityEstimate.fix(learned: 1, standardGravity: standardGravity, attribute: "in_accel_{x,y,z}_scale", scale: nil)
            == "fix the scale (in_accel_{x,y,z}_scale) or set `[sensor] scale` in the config")
    }
}
