#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the classifier published after a reading or a tick.
public struct ClassifierEvent: Sendable, Equatable {
    /// How a committed orientation was decided.
    public enum Path: String, Sendable, Equatable {
        /// The low-pass-filtered vector held a candidate for the settle time.
        case settled
        /// The raw vector came to rest at a new orientation (the fast path).
        case steady
    }

    /// Time of the reading or tick, ms on the sensor clock.
    public var tMs: Double
    /// The published (physical) orientation; `undefined` only before the first commit.
    public var orientation: Orientation
    /// The published tilt.
    public var tilt: Tilt
    /// True when `orientation` changed at this step.
    public var orientationChanged: Bool
    /// True when `tilt` changed at this step.
    public var tiltChanged: Bool
    /// How the orientation was committed, when it changed.
    public var path: Path?
}

/// The orientation classifier: a pure state machine fed timestamped readings
/// (m/s², in the panel frame, after the mount matrix) and timer ticks.
///
/// It is Android's `WindowOrientationListener` design (low-pass filter, tilt and
/// magnitude gates, angular hysteresis, settle time, flat/swing/acceleration
/// hold-offs) with two additions: raw-sample sanity and jolt gates, and a
/// steady path that commits as soon as the raw vector has come to rest at a new
/// orientation instead of waiting out the filter's lag. It has no clock: the
/// caller passes time in, arms a timer for `nextDeadline`, and calls `tick`.
///
/// ```swift
/// var classifier = Classifier(config: ClassifierConfig())
/// if let event = classifier.process(Sample(tMs: 0, x: 0, y: -9.81, z: 0)) { … }
/// if let deadline = classifier.nextDeadline { /* arm a timer, then */ classifier.tick(atMs: deadline) }
/// ```
public struct Classifier: Sendable {
    /// The parameters; replace through `reconfigure`.
    public private(set) var config: ClassifierConfig

    /// The published (proposed) orientation P; `undefined` until the first commit.
    public private(set) var orientation: Orientation = .undefined
    /// The published tilt; `undefined` until the first usable reading.
    public private(set) var tilt: Tilt = .undefined
    /// The applied orientation A, the hysteresis reference (nil at startup).
    public private(set) var applied: Orientation?
    /// The low-pass-filtered vector, nil before the first reading and after `reset`.
    public private(set) var filtered: Vector3?

    // Filter state.
    private var lastTime: Double = 0
    private var lastRaw: Vector3 = .zero
    private var cachedDt: Double = -1
    private var cachedDecay: Double = 0
    private var appliedFeedback = false

    // Slow path: the pending candidate.
    private var pending: Orientation?
    private var pendingSince: Double = 0

    // Steady path: the recent raw readings.
    private var steady = SteadyWindow()
    private var steadyNow = false
    private var steadyCandidate: Orientation?
    private var steadyMean: Vector3 = .zero

    // Gates and hold-offs.
    private var overheadLatched = false
    private var flatSince: Double?
    private var accelHoldUntil = -Double.infinity
    private var flatHoldUntil = -Double.infinity
    private var swingHoldUntil = -Double.infinity
    private var swing = SwingDetector()

    // Published tilt: a new class must hold for the tilt settle time.
    private var tiltCandidate: Tilt = .undefined
    private var tiltCandidateSince: Double = 0

    // Precomputed from the config.
    private var cosSteadyAngle: Double = 1

    /// A classifier in the startup state.
    public init(config: ClassifierConfig = ClassifierConfig()) {
        self.config = config
        cosSteadyAngle = cos(config.steadyAngleDeg * .pi / 180)
    }

    /// Replaces the parameters, keeping P, A and the filter.
    public mutating func reconfigure(_ config: ClassifierConfig) {
        self.config = config
        cosSteadyAngle = cos(config.steadyAngleDeg * .pi / 180)
        cachedDt = -1
    }

    /// The time at which `tick` may change something without a new reading, or
    /// nil when nothing is pending (then no timer is needed).
    public var nextDeadline: Double? {
        guard filtered != nil else { return nil }
        var deadline: Double?
        // On a periodic sensor the filtered path commits on readings only (a tick
        // must not stand in for readings that will come); on an on-change sensor a
        // tick re-feeds the held reading, so its deadline counts.
        if config.onChange, let candidate = pending, candidate != orientation {
            deadline = max(pendingSince + config.settleTimeMs, holdUntil)
        }
        if let candidate = steadyCandidate, candidate != orientation {
            let steadyAt = max(holdUntil, lastTime)
            deadline = min(deadline ?? steadyAt, steadyAt)
        }
        if config.onChange, let f = filtered {
            let notConverged = length(f - lastRaw) > 0.05
            if notConverged || !steadyNow {
                let refeed = lastTime + 1000 / config.sampleRateHz
                deadline = min(deadline ?? refeed, refeed)
            }
        }
        if let d = deadline, d <= lastTime { return lastTime }
        return deadline
    }

    private var holdUntil: Double { max(accelHoldUntil, flatHoldUntil, swingHoldUntil) }

    /// Feeds one reading (m/s², panel frame). Non-finite, all-zero or implausibly
    /// large readings are dropped before the filter and arm the acceleration hold.
    public mutating func process(_ sample: Sample) -> ClassifierEvent? {
        let t = sample.tMs
        let a = sample.vector
        guard t.isFinite else { return nil }
        let squared = (a * a).sum()
        guard a.x.isFinite, a.y.isFinite, a.z.isFinite, squared > 0,
            squared <= config.implausibleMagnitude * config.implausibleMagnitude
        else {
            if filtered != nil, t >= lastTime { accelHoldUntil = max(accelHoldUntil, t + config.holdAfterAccelMs) }
            return nil
        }
        let rawMagnitude = squared.squareRoot()
        if let f = filtered, t >= lastTime, config.onChange || t - lastTime <= config.maxSampleGapMs {
            var dt = t - lastTime
            var previous = f
            if config.onChange {
                // The sensor held its previous reading until about one period ago.
                let period = 1000 / config.sampleRateHz
                if dt > period {
                    previous = lastRaw + (previous - lastRaw) * exp(-(dt - period) / config.filterTimeConstantMs)
                    dt = period
                }
            }
            filtered = a + (previous - a) * decay(dt)
        } else {
            // First reading, a time reversal or a gap: start again from this reading.
            reinitialise(at: t, to: a)
        }
        lastTime = t
        lastRaw = a
        if abs(rawMagnitude - config.standardGravity) > config.accelToleranceRaw {
            accelHoldUntil = max(accelHoldUntil, t + config.holdAfterAccelMs)
        }
        steady.append(
            tMs: t, vector: a, magnitude: rawMagnitude,
            magnitudeOK: abs(rawMagnitude - config.standardGravity) <= config.steadyMagnitudeTolerance,
            windowMs: config.steadyWindowMs)
        return evaluate(at: t, newReading: true)
    }

    /// A timer fired at `tMs` (normally `nextDeadline`). On an on-change sensor the
    /// last reading is re-fed first (zero-order hold); then pending commits are checked.
    public mutating func tick(atMs t: Double) -> ClassifierEvent? {
        guard filtered != nil, t >= lastTime else { return nil }
        if config.onChange {
            return process(Sample(tMs: t, vector: lastRaw))
        }
        return evaluate(at: t, newReading: false)
    }

    /// Tells the classifier which orientation the display actually shows (a
    /// compositor applying a rotation, or a rotation lock). From then on A follows
    /// these calls instead of P.
    public mutating func setApplied(_ orientation: Orientation?) {
        applied = orientation == .undefined ? nil : orientation
        appliedFeedback = true
    }

    /// Forgets the filter, tilt history, candidates and hold-offs (after a resume or
    /// a sensor re-enable); keeps P and A.
    public mutating func reset() {
        filtered = nil
        clearTransientState()
    }

    private mutating func reinitialise(at t: Double, to a: Vector3) {
        filtered = a
        clearTransientState()
    }

    private mutating func clearTransientState() {
        pending = nil
        steady.clear()
        steadyNow = false
        steadyCandidate = nil
        tiltCandidate = .undefined
        flatSince = nil
        accelHoldUntil = -.infinity
        flatHoldUntil = -.infinity
        swingHoldUntil = -.infinity
        swing.clear()
    }

    private mutating func decay(_ dt: Double) -> Double {
        if dt != cachedDt {
            cachedDt = dt
            cachedDecay = exp(-dt / config.filterTimeConstantMs)
        }
        return cachedDecay
    }

    /// Angles of a vector: tilt φ (degrees, +90 face up) and orientation angle θ
    /// (degrees in [0, 360), 0 normal, 90 left-up).
    private func angles(_ v: Vector3, magnitude: Double) -> (tilt: Double, theta: Double) {
        let sinTilt = min(1, max(-1, config.zSign * v.z / magnitude))
        let tilt = asin(sinTilt) * 180 / .pi
        var theta = atan2(v.x, -v.y) * 180 / .pi
        if theta < 0 { theta += 360 }
        return (tilt, theta)
    }

    private mutating func evaluate(at t: Double, newReading: Bool) -> ClassifierEvent? {
        guard let f = filtered else { return nil }
        let magnitude = length(f)
        var slowCandidate: Orientation?
        var tiltChanged = false
        if magnitude >= config.nearZeroMagnitude {
            let (phi, theta) = angles(f, magnitude: magnitude)
            if newReading {
                if abs(magnitude - config.standardGravity) > config.accelToleranceFiltered {
                    accelHoldUntil = max(accelHoldUntil, t + config.holdAfterAccelMs)
                }
                updateTiltGates(t: t, phi: phi)
                tiltChanged = publishTilt(phi, at: t)
            }
            slowCandidate = candidate(phi: phi, theta: theta, requireNear: nil)
        } else if newReading {
            accelHoldUntil = max(accelHoldUntil, t + config.holdAfterAccelMs)
        }

        // Steady path: the raw readings of the current run agree and sit near g.
        steadyCandidate = nil
        var steadyAtCurrent = false
        steadyNow = false
        if let mean = steady.steadyMean(
            atMs: t, windowMs: config.steadyWindowMs, angle: config.steadyAngleDeg * .pi / 180, cosAngle: cosSteadyAngle) {
            steadyNow = true
            steadyMean = mean
            let m = length(steadyMean)
            let (phi, theta) = angles(steadyMean, magnitude: m)
            if let k = candidate(phi: phi, theta: theta, requireNear: config.steadyAcceptDeg) {
                if k == orientation { steadyAtCurrent = true } else { steadyCandidate = k }
            }
        }

        // Slow path bookkeeping: a candidate must hold unchanged for the settle time.
        if let k = slowCandidate, k != orientation, !steadyAtCurrent {
            if pending != k {
                pending = k
                pendingSince = t
            }
        } else if newReading || steadyAtCurrent {
            pending = nil
        }

        var committed: ClassifierEvent.Path?
        if t >= holdUntil {
            if let k = steadyCandidate {
                commit(k)
                filtered = steadyMean  // the filter's lag is moot once the raw vector is at rest
                committed = .steady
            } else if let k = pending, newReading, t - pendingSince >= config.settleTimeMs - 1e-9 {
                commit(k)
                committed = .settled
            }
        }
        guard committed != nil || tiltChanged else { return nil }
        return ClassifierEvent(
            tMs: t, orientation: orientation, tilt: tilt,
            orientationChanged: committed != nil, tiltChanged: tiltChanged, path: committed)
    }

    private mutating func commit(_ k: Orientation) {
        orientation = k
        if !appliedFeedback { applied = k }
        pending = nil
        steadyCandidate = nil
    }

    private mutating func updateTiltGates(t: Double, phi: Double) {
        if phi <= config.overheadEnterDeg {
            overheadLatched = true
        } else if phi >= config.overheadExitDeg {
            overheadLatched = false
        }
        if phi >= config.flatAngleDeg {
            let since = flatSince ?? t
            flatSince = since
            if t - since >= config.flatTimeMs {
                flatHoldUntil = max(flatHoldUntil, t + config.holdAfterFlatMs)
            }
        } else {
            flatSince = nil
        }
        if swing.rise(tMs: t, tilt: phi, windowMs: config.swingWindowMs) >= config.swingDeltaDeg {
            swingHoldUntil = max(swingHoldUntil, t + config.holdAfterSwingMs)
        }
    }

    /// The tilt class of φ, moving off the current class only past the hysteresis
    /// band and after the class has held for the tilt settle time.
    private mutating func publishTilt(_ phi: Double, at t: Double) -> Bool {
        func classify(_ p: Double) -> Tilt {
            let size = abs(p)
            if size <= config.tiltedDeg { return .vertical }
            if size < config.faceDeg { return p > 0 ? .tiltedUp : .tiltedDown }
            return p > 0 ? .faceUp : .faceDown
        }
        let proposed = classify(phi)
        guard proposed != tilt else {
            tiltCandidate = .undefined
            return false
        }
        if tilt != .undefined {
            let h = config.tiltHysteresisDeg
            guard classify(phi - h) == proposed, classify(phi + h) == proposed else { return false }
            if tiltCandidate != proposed {
                tiltCandidate = proposed
                tiltCandidateSince = t
            }
            guard t - tiltCandidateSince >= config.tiltSettleMs - 1e-9 else { return false }
        }
        tilt = proposed
        tiltCandidate = .undefined
        return true
    }

    /// The accepted candidate for a vector with tilt φ and angle θ, or nil (a gate
    /// closed or θ lies in the hysteresis dead zone). `requireNear` additionally
    /// demands θ within that many degrees of the candidate's centre.
    private func candidate(phi: Double, theta: Double, requireNear: Double?) -> Orientation? {
        if overheadLatched || phi <= config.overheadEnterDeg || abs(phi) > config.maxTiltDeg { return nil }
        var turns = Int((theta / 90).rounded()) % 4
        var k = Orientation(quarterTurns: turns)
        if let a = applied, let aTurns = a.quarterTurns {
            let fromA = angularDistance(theta, Double(aTurns) * 90)
            switch ((turns - aTurns) % 4 + 4) % 4 {
            case 0:
                guard fromA <= 45 - config.adjacentGapDeg / 2 else { return nil }
            case 2:
                if angularDistance(theta, Double(turns) * 90) > config.oppositeAcceptDeg {
                    // Between the adjacent and opposite zones: fall back to the nearer neighbour of A.
                    let left = aTurns + 1, right = aTurns + 3
                    turns = angularDistance(theta, Double(left) * 90) <= angularDistance(theta, Double(right) * 90) ? left : right
                    k = Orientation(quarterTurns: turns)
                }
                guard fromA >= 45 + config.adjacentGapDeg / 2 else { return nil }
            default:
                guard fromA >= 45 + config.adjacentGapDeg / 2 else { return nil }
            }
        } else {
            guard angularDistance(theta, Double(turns) * 90) <= config.initialAcceptDeg else { return nil }
        }
        if let near = requireNear, angularDistance(theta, Double(turns) * 90) > near { return nil }
        let index = ((turns % 4) + 4) % 4
        guard phi >= config.tiltMinDeg[index], phi <= config.tiltMaxDeg[index] else { return nil }
        if k == .bottomUp, !config.allowUpsideDown { return nil }
        return k
    }
}

/// Distance between two angles in degrees, in [0, 180].
func angularDistance(_ a: Double, _ b: Double) -> Double {
    let d = abs((a - b).truncatingRemainder(dividingBy: 360))
    return d > 180 ? 360 - d : d
}
