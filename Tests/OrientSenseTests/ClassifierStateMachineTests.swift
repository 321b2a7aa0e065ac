import OrientSynth
import Testing

@testable import OrientSense
import OrientProtocol

/// The classifier as a state machine (SPEC §4, research/classifier.md §5.6–5.7):
/// deadlines, hold-offs, reset, re-initialisation, applied-orientation feedback,
/// reconfiguration, the config check, and the published tilt.
@Suite("Classifier state machine")
struct ClassifierStateMachineTests {
    /// Noise-free readings of a device held still in `pose`, every `everyMs` in [from, to].
    static func readings(_ pose: Pose, from: Double, to: Double, everyMs: Double = 50) -> [Sample] {
        stride(from: from, through: to, by: everyMs).map { Sample(tMs: $0, vector: pose.gravityReading) }
    }

    /// Upright in `normal`, held in the hand (φ = 10°).
    static let upright = Pose(theta: 0, phi: Scenarios.handTilt)
    /// Left edge up, held in the hand (φ = 10°).
    static let leftUp = Pose(theta: 90, phi: Scenarios.handTilt)

    /// Feeds readings one by one and returns the events.
    static func feed(_ samples: [Sample], to classifier: inout Classifier) -> [ClassifierEvent] {
        samples.compactMap { classifier.process($0) }
    }

    /// A classifier that has committed `normal` from 1.5 s of upright readings (t = 0...1450).
    static func committedUpright(config: ClassifierConfig = ClassifierConfig()) -> Classifier {
        var classifier = Classifier(config: config)
        _ = feed(readings(upright, from: 0, to: 1450), to: &classifier)
        return classifier
    }

    // MARK: nextDeadline

    @Test("nextDeadline is nil before any reading", arguments: [false, true])
    func noDeadlineAtStart(onChange: Bool) {
        var config = ClassifierConfig()
        config.onChange = onChange
        var classifier = Classifier(config: config)
        #expect(classifier.nextDeadline == nil)
        #expect(classifier.tick(atMs: 100) == nil, "a tick before any reading does nothing")
        #expect(classifier.nextDeadline == nil)
        #expect(classifier.filtered == nil)
    }

    @Test("nextDeadline is nil after a settled commit on a periodic sensor", arguments: [UInt64(1), 2, 3])
    func noDeadlineAfterSettledCommit(seed: UInt64) throws {
        // With a zero magnitude tolerance the noisy raw vector is never "steady",
        // so the commit must come from the filtered (settled) path.
        var config = ClassifierConfig()
        config.steadyMagnitudeTolerance = 0
        var classifier = Classifier(config: config)
        let samples = Scenarios.cardinal(theta: 90, seed: seed).samples(rateHz: 20)
        var commit: ClassifierEvent?
        for sample in samples {
            let event = classifier.process(sample)
            if let event, event.orientationChanged {
                #expect(commit == nil, "a second commit at \(event.tMs)")
                commit = event
            }
            if commit != nil {
                #expect(classifier.nextDeadline == nil, "deadline \(classifier.nextDeadline ?? 0) at \(sample.tMs)")
            }
        }
        let event = try #require(commit)
        #expect(event.orientation == .leftUp)
        #expect(event.path == .settled)
        #expect(classifier.nextDeadline == nil)
    }

    @Test("nextDeadline is nil while nothing is pending after a steady commit")
    func noDeadlineAfterSteadyCommit() {
        let classifier = Self.committedUpright()
        #expect(classifier.orientation == .normal)
        #expect(classifier.nextDeadline == nil)
    }

    // MARK: Hold-offs

    @Test("a steady left-up candidate right after a 3 g impulse commits 500 ms after it, at a tick at nextDeadline")
    func joltArmsHold() throws {
        var classifier = Self.committedUpright()
        #expect(classifier.orientation == .normal)

        let impulseAt = 1500.0
        let jolt = Self.upright.gravityReading + Vector3(3 * standardGravity, 0, 0)
        #expect(classifier.process(Sample(tMs: impulseAt, vector: jolt))?.orientationChanged != true)
        // The device is now at rest in left-up; the readings stop at 1700 ms.
        let events = Self.feed(Self.readings(Self.leftUp, from: 1550, to: 1700), to: &classifier)
        #expect(!events.contains { $0.orientationChanged }, "committed inside the hold: \(events)")
        #expect(classifier.orientation == .normal)

        let deadline = try #require(classifier.nextDeadline)
        #expect(deadline >= impulseAt + 500, "deadline \(deadline)")
        #expect(deadline <= impulseAt + 600, "deadline \(deadline)")

        // A timer firing early changes nothing.
        #expect(classifier.tick(atMs: 1800)?.orientationChanged != true)
        #expect(classifier.orientation == .normal)

        let fired = classifier.tick(atMs: deadline)
        let event = try #require(fired)
        #expect(event.orientationChanged)
        #expect(event.orientation == .leftUp)
        #expect(event.tMs == deadline)
        #expect(event.path == .steady)
        #expect(classifier.nextDeadline == nil)
    }

    // MARK: Reset and re-initialisation

    @Test("reset keeps the orientation but forgets the filter")
    func resetKeepsOrientation() {
        var classifier = Self.committedUpright()
        let tilt = classifier.tilt
        classifier.reset()
        #expect(classifier.orientation == .normal)
        #expect(classifier.applied == .normal)
        #expect(classifier.tilt == tilt)
        #expect(classifier.filtered == nil)
        #expect(classifier.nextDeadline == nil)
        #expect(classifier.tick(atMs: 5000) == nil)

        // The next reading starts the filter again from itself.
        let reading = Self.leftUp.gravityReading
        let event = classifier.process(Sample(tMs: 1500, vector: reading))
        #expect(classifier.filtered == reading)
        #expect(event?.orientationChanged != true, "one reading is not enough to commit")
        #expect(classifier.orientation == .normal)
    }

    @Test("time going backwards re-initialises the filter without changing the orientation")
    func timeReversal() {
        var classifier = Self.committedUpright()
        let reading = Self.leftUp.gravityReading
        let event = classifier.process(Sample(tMs: 500, vector: reading))
        #expect(classifier.filtered == reading)
        #expect(event?.orientationChanged != true)
        #expect(classifier.orientation == .normal)
        // The new timeline carries on normally: 1.5 s of left-up commits left-up.
        let events = Self.feed(Self.readings(Self.leftUp, from: 550, to: 2000), to: &classifier)
        #expect(events.filter(\.orientationChanged).map(\.orientation) == [.leftUp])
    }

    @Test(
        "after time goes backwards a new tilt is published within the tilt settle time of the new clock")
    func timeReversalTilt() {
        var classifier = Classifier()
        _ = Self.feed(Self.readings(Pose(theta: 0, phi: 0), from: 0, to: 2000), to: &classifier)
        #expect(classifier.tilt == .vertical)
        // Start tilting back; the tilted-up class is pending, not yet published...
        let tilted = Pose(theta: 0, phi: 45)
        _ = Self.feed(Self.readings(tilted, from: 2050, to: 2200), to: &classifier)
        #expect(classifier.tilt == .vertical)
        // ...when the clock restarts (a new trace, a clock reset). Held at 45° for a second.
        _ = Self.feed(Self.readings(tilted, from: 0, to: 1000), to: &classifier)
        #expect(classifier.tilt == .tiltedUp)
    
    }

    @Test("a 2 s gap re-initialises the filter on a periodic sensor but not on an on-change sensor", arguments: [false, true])
    func sensorGap(onChange: Bool) {
        var config = ClassifierConfig()
        config.onChange = onChange
        var classifier = Self.committedUpright(config: config)
        let before = classifier.filtered
        let reading = Self.leftUp.gravityReading
        _ = classifier.process(Sample(tMs: 1450 + 2000, vector: reading))
        #expect(classifier.orientation == .normal)
        if onChange {
            // Silence is not a gap: the held reading and the new one are blended.
            #expect(classifier.filtered != reading)
            #expect(classifier.filtered != before)
        } else {
            #expect(classifier.filtered == reading)
        }
    }

    @Test("a gap just under max-sample-gap does not re-initialise a periodic sensor")
    func shortGap() {
        var classifier = Self.committedUpright()
        let reading = Self.leftUp.gravityReading
        _ = classifier.process(Sample(tMs: 1450 + 999, vector: reading))
        #expect(classifier.filtered != reading)
    }

    // MARK: Applied-orientation feedback

    /// research/classifier.md §6.3 #22: the policy feeds back `normal` (a rotation
    /// lock) on every change while the device is turned to landscape and back.
    @Test("with setApplied(normal) a turn to landscape is suggested once and withdrawn once", arguments: [UInt64(1), 2, 3, 4, 5])
    func appliedFeedbackLock(seed: UInt64) throws {
        var s = Scenario(start: Self.upright, seed: seed)
        s.hold(Scenarios.settleMs)
        s.move(to: Self.leftUp, over: 300)
        s.mark("landscape", at: s.durationMs)
        s.hold(10_000)
        s.mark("turn-back", at: s.durationMs)
        s.move(to: Self.upright, over: 300)
        s.mark("upright", at: s.durationMs)
        s.hold(2000)

        var classifier = Classifier()
        classifier.setApplied(.normal)
        var changes: [Change] = []
        var lastTick = -Double.infinity
        func handle(_ event: ClassifierEvent?) {
            guard let event else { return }
            if event.orientationChanged { changes.append(Change(tMs: event.tMs, orientation: event.orientation)) }
            classifier.setApplied(.normal)  // locked: the display stays normal
        }
        func ticks(before limit: Double?) {
            while let d = classifier.nextDeadline, d > lastTick, limit.map({ d < $0 }) ?? true {
                lastTick = d
                handle(classifier.tick(atMs: d))
            }
        }
        for sample in s.samples(rateHz: 20) {
            ticks(before: sample.tMs)
            handle(classifier.process(sample))
        }
        ticks(before: nil)

        #expect(changes.map(\.orientation) == [.normal, .leftUp, .normal], "\(changes)")
        let landscape = try #require(s.markTime("landscape"))
        let turnBack = try #require(s.markTime("turn-back"))
        if changes.count == 3 {
            #expect(changes[1].tMs >= landscape - 150 && changes[1].tMs <= landscape + 600, "\(changes)")
            #expect(changes[2].tMs > turnBack, "\(changes)")
        }
        #expect(classifier.applied == .normal)
        #expect(classifier.orientation == .normal)
    }

    @Test("setApplied(undefined) clears the applied orientation")
    func setAppliedUndefined() {
        var classifier = Self.committedUpright()
        classifier.setApplied(.undefined)
        #expect(classifier.applied == nil)
        #expect(classifier.orientation == .normal)
    }

    // MARK: Reconfiguration

    @Test("reconfigure keeps the orientation, the applied orientation and the filter")
    func reconfigureKeepsState() {
        var classifier = Classifier()
        _ = Self.feed(Self.readings(Self.leftUp, from: 0, to: 1500), to: &classifier)
        #expect(classifier.orientation == .leftUp)
        let filtered = classifier.filtered
        var config = ClassifierConfig()
        config.settleTimeMs = 300
        config.filterTimeConstantMs = 100
        config.adjacentGapDeg = 60
        classifier.reconfigure(config)
        #expect(classifier.config == config)
        #expect(classifier.orientation == .leftUp)
        #expect(classifier.applied == .leftUp)
        #expect(classifier.filtered == filtered)
        let events = Self.feed(Self.readings(Self.leftUp, from: 1550, to: 3000), to: &classifier)
        #expect(!events.contains { $0.orientationChanged })
        #expect(classifier.orientation == .leftUp)
    }

    // MARK: Config check

    @Test("the default config has no problems")
    func defaultConfigIsValid() {
        #expect(ClassifierConfig().problems() == [])
    }

    /// One bad parameter value and the name its problem must mention.
    enum BadValue: String, CaseIterable, Sendable {
        case sampleRate5, negativeSettle, tiltMinAboveMax, tiltLimitCount, overheadExitBelowEnter, zSignZero,
            nanTimeConstant

        var parameter: String {
            switch self {
            case .sampleRate5: return "sample-rate"
            case .negativeSettle: return "settle-time"
            case .tiltMinAboveMax: return "tilt limits for left-up"
            case .tiltLimitCount: return "tilt limits"
            case .overheadExitBelowEnter: return "overhead-exit"
            case .zSignZero: return "z-sign"
            case .nanTimeConstant: return "filter-time-constant"
            }
        }

        var config: ClassifierConfig {
            var c = ClassifierConfig()
            switch self {
            case .sampleRate5: c.sampleRateHz = 5
            case .negativeSettle: c.settleTimeMs = -1
            case .tiltMinAboveMax: c.tiltMinDeg[1] = 66
            case .tiltLimitCount: c.tiltMaxDeg = [70, 65, 60]
            case .overheadExitBelowEnter: c.overheadExitDeg = -50
            case .zSignZero: c.zSign = 0
            case .nanTimeConstant: c.filterTimeConstantMs = .nan
            }
            return c
        }
    }

    @Test("each bad parameter value gives one problem naming the parameter", arguments: BadValue.allCases)
    func badConfig(bad: BadValue) {
        let problems = bad.config.problems()
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.allSatisfy { $0.contains(bad.parameter) }, "\(problems)")
    }

    /// A magnitude gate on the wrong side of g, which no single-parameter range check catches.
    enum GravityGate: String, CaseIterable, Sendable {
        case implausibleBelowGravity, nearZeroAboveGravity

        var parameter: String {
            switch self {
            case .implausibleBelowGravity: return "implausible-magnitude"
            case .nearZeroAboveGravity: return "near-zero-magnitude"
            }
        }

        var config: ClassifierConfig {
            var c = ClassifierConfig()
            switch self {
            case .implausibleBelowGravity: c.implausibleMagnitude = 5
            case .nearZeroAboveGravity: c.nearZeroMagnitude = 12
            }
            return c
        }
    }

    @Test("a magnitude gate that rejects a device at rest is a problem", arguments: GravityGate.allCases)
    func gravityGateOnWrongSide(gate: GravityGate) {
        // The config really is unusable: a device held still and sampled
        // continuously is never classified (every reading is dropped or arms a hold).
        var classifier = Classifier(config: gate.config)
        let events = Scenarios.cardinal(theta: 0).samples(rateHz: 20).compactMap { classifier.process($0) }
        #expect(!events.contains { $0.orientationChanged }, "\(events)")
        #expect(classifier.orientation == .undefined)
        let problems = gate.config.problems()
        #expect(problems.contains { $0.contains(gate.parameter) }, "\(problems)")
    
    }

    // MARK: Published tilt

    @Test(
        "the published tilt follows φ, from startup and after holding vertical",
        arguments: [
            (0.0, Tilt.vertical), (45, .tiltedUp), (85, .faceUp), (-85, .faceDown), (-45, .tiltedDown),
        ])
    func publishedTilt(phi: Double, expected: Tilt) {
        let pose = Pose(theta: 0, phi: phi)
        var fresh = Classifier()
        let first = fresh.process(Sample(tMs: 0, vector: pose.gravityReading))
        #expect(first?.tilt == expected, "the first usable reading publishes its tilt at once")
        #expect(first?.tiltChanged == true)
        _ = Self.feed(Self.readings(pose, from: 50, to: 1000), to: &fresh)
        #expect(fresh.tilt == expected)

        var held = Classifier()
        _ = Self.feed(Self.readings(Pose(theta: 0, phi: 0), from: 0, to: 1000), to: &held)
        #expect(held.tilt == .vertical)
        let events = Self.feed(Self.readings(pose, from: 1050, to: 3000), to: &held)
        #expect(held.tilt == expected, "φ = \(phi)")
        let published = events.filter(\.tiltChanged).map(\.tilt)
        #expect(published.last ?? .vertical == expected, "\(published)")
        #expect(published.count <= 1, "a quick move publishes only where it ends: \(published)")
        // The overhead latch (φ ≤ −40°) blocks orientation candidates, not the tilt.
        #expect(held.orientation == .normal)
    }

    @Test("hovering near a tilt threshold with noise does not flap the published tilt", arguments: [20.0, -20, 70, -70])
    func tiltHysteresis(center: Double) {
        for seed: UInt64 in 1...5 {
            var s = Scenario(start: Pose(theta: 0, phi: center), seed: seed, noiseSigma: 0.1)
            s.hold(20_000)
            s.addTremor(from: 0, to: 20_000, degrees: 1, frequencyHz: 0.4, phiDegrees: 3)
            s.addTremor(from: 0, to: 20_000, degrees: 0.5, frequencyHz: 3, phiDegrees: 1)
            let run = drive(s)
            let tiltChanges = run.events.filter(\.tiltChanged).map(\.tilt)
            #expect(!tiltChanges.isEmpty)
            #expect(tiltChanges.count - 1 <= 1, "seed \(seed): \(tiltChanges)")
        }
    }
}
