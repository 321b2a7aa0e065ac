#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import OrientProtocol

/// The orientation classifier: a pure state machine fed timestamped readings
/// (m/s², in the panel frame, after the mount matrix) and timer ticks.
///
/// It is Android's `WindowOrientationListener` design (low-pass filter, tilt and
/// magnitude gates, angular hysteresis, settle time, flat/swing/acceleration
/// hold-offs) with three additions: raw-sample sanity and jolt gates; a
/// steady path that commits once the raw vector has come to rest at a new
/// orientation instead of waiting out the filter's lag; and a glance hold
/// (`GlanceHold`): the raw readings must have proposed the new orientation for
/// `glanceHoldMs`, so a turn that comes straight back (a glance, a wobble)
/// publishes nothing. With the z sign only assumed (`zSignKnown`), nothing that
/// depends on it holds the orientation (docs/classifier.md, "The z sign"). It
/// has no clock: the caller passes time in, arms a timer for `nextDeadline`,
/// and calls `tick`.
///
/// ```swift
/// var classifier = Classifier(config: ClassifierConfig())
/// if let event = classifier.process(Sample(tMs: 0, x: 0, y: -9.81, z: 0)) { … }
/// if let deadline = classifier.nextDeadline { /* arm a timer, then */ classifier.tick(atMs: deadline) }
/// ```
///
/// A reading is cheap, with no libm call in the common case (docs/classifier.md,
/// Cost, has the figure `make bench` measures), yet every decision is the one
/// the definitions above give: angles are compared through sines and cosines
/// and computed only near a limit (`AngleReading`), candidate decisions are reused while the vector stays
/// clear of every limit they consulted (`CandidateMemo`), a device at rest is
/// found at its orientation from the steady window's cone alone (`RestCone`),
/// and the steady and swing tests avoid rescanning their windows
/// (`SteadyWindow`, `SwingDetector`). Every shortcut answers only when its
/// answer provably equals the definition's, with margins far above rounding;
/// otherwise the full computation runs. The per-reading helpers are forced
/// inline, the rare paths kept out of line, and the classifier is only ever
/// passed in place, never copied (see `candidate`).
public struct Classifier: Sendable {
    /// The parameters; replace through `reconfigure`.
    package private(set) var config: ClassifierConfig

    /// The published (proposed) orientation P; `undefined` until the first commit.
    package private(set) var orientation: Orientation = .undefined
    /// The published tilt; `undefined` until the first usable reading.
    package internal(set) var tilt: Tilt = .undefined
    /// The applied orientation A, the hysteresis reference (nil at startup).
    package private(set) var applied: Orientation?
    /// The low-pass-filtered vector, nil before the first reading and after `reset`.
    package var filtered: Vector3? { hasFilter ? filter : nil }

    // State the extensions (Classifier+Candidates.swift, Classifier+Tilt.swift)
    // change is internal; the rest stays private to this file.

    // Filter state: `filter` counts only while `hasFilter`.
    private var filter: Vector3 = .zero
    private var hasFilter = false
    private var lastTime: Double = 0
    private(set) var lastRaw: Vector3 = .zero
    private(set) var lastRawSquared: Double = 0
    private(set) var lastRawMagnitude: Double = 0
    private var cachedDt: Double = -1
    private var cachedDecay: Double = 0
    private var appliedFeedback = false

    // Slow path: the pending candidate.
    private var pending: Orientation?
    private var pendingSince: Double = 0

    // The glance hold: the raw readings' runs of candidates.
    private var glance = GlanceHold()

    // Steady path: the recent raw readings.
    var steady = SteadyWindow()
    private var steadyNow = false
    private var steadyCandidate: Orientation?

    // Gates and hold-offs.
    var overheadLatched = false
    /// When the overhead latch last set, and whether it expired (an assumed z
    /// sign) and stays off until the tilt comes back above the exit angle.
    var overheadSince: Double = 0
    var overheadExpired = false
    var flatSince: Double?
    /// No commit before this: the latest end of the acceleration, flat and
    /// swing hold-offs (only their latest end matters, so one value keeps it).
    var holdUntil = -Double.infinity
    private var swing = SwingDetector()

    // Published tilt: a new class must hold for the tilt settle time.
    var tiltCandidate: Tilt = .undefined
    var tiltCandidateSince: Double = 0
    /// `limits.quietRange(for: tilt)`, kept with `tilt` (lower above upper when nil).
    var quietLower = Double.infinity
    var quietUpper = -Double.infinity

    // Derived from the config.
    private(set) var limits: ClassifierLimits
    var slowMemo = CandidateMemo()
    var steadyMemo = CandidateMemo()
    var rawMemo = CandidateMemo()
    var restCone = RestCone()
    /// Whether this evaluation's steady candidate came from the rest cone alone.
    var restConeHeld = false

    /// What a plot of a replay shows beside the published state: the raw
    /// readings' candidate and since when, the filtered path's candidate, the
    /// end of the latest hold-off, and the overhead latch.
    public var diagnostics: ClassifierDiagnostics {
        ClassifierDiagnostics(
            rawCandidate: glance.runCandidate, rawCandidateSince: glance.runSince, filteredCandidate: pending,
            holdUntil: holdUntil, overheadLatched: overheadLatched, glanceHoldMs: glance.holdMs)
    }

    /// A classifier in the startup state.
    public init(config: ClassifierConfig = ClassifierConfig()) {
        self.config = config
        limits = ClassifierLimits(config)
        setQuietTilt()
    }

    /// Replaces the parameters, keeping P, A and the filter.
    package mutating func reconfigure(_ config: ClassifierConfig) {
        self.config = config
        limits = ClassifierLimits(config)
        setQuietTilt()
        slowMemo.forget()
        steadyMemo.forget()
        rawMemo.forget()
        restCone.forget()
        cachedDt = -1
    }

    /// The time at which `tick` may change something without a new reading, or
    /// nil when nothing is pending (then no timer is needed).
    package var nextDeadline: Double? {
        guard hasFilter else { return nil }
        var deadline: Double?
        // On a periodic sensor the filtered path commits on readings only (a tick
        // must not stand in for readings that will come); on an on-change sensor a
        // tick re-feeds the held reading, so its deadline counts.
        if config.onChange, let candidate = pending, candidate != orientation,
            let proposed = glance.proposalHoldEnd(for: candidate) {
            deadline = max(pendingSince + config.settleTimeMs, holdUntil, proposed)
        }
        if let candidate = steadyCandidate, candidate != orientation {
            let held = glance.runHoldEnd(for: candidate) ?? lastTime
            let steadyAt = max(holdUntil, lastTime, held)
            deadline = min(deadline ?? steadyAt, steadyAt)
        }
        if config.onChange, hasFilter {
            let f = filter
            let notConverged = length(f - lastRaw) > 0.05
            if notConverged || !steadyNow {
                let refeed = lastTime + 1000 / config.sampleRateHz
                deadline = min(deadline ?? refeed, refeed)
            }
        }
        if let d = deadline, d <= lastTime { return lastTime }
        return deadline
    }

    /// Feeds one reading (m/s², panel frame). Non-finite, all-zero or implausibly
    /// large readings are dropped before the filter and arm the acceleration hold.
    public mutating func process(_ sample: Sample) -> ClassifierEvent? {
        processReading(sample)
    }

    /// `process`, inlined into it and kept apart for ticks (the evaluation it
    /// calls is marked to inline too, which Swift 6.3 no longer does at its
    /// present size; `@_transparent` would force it, for a few instructions).
    @inline(__always)
    private mutating func processReading(_ sample: Sample) -> ClassifierEvent? {
        let t = sample.tMs
        let a = sample.vector
        guard t.isFinite else { return nil }
        let squared = (a * a).sum()
        // A non-finite component makes the square NaN or infinite, so a finite
        // square spares the three component checks.
        guard squared > 0, squared <= limits.implausibleSquared,
            squared < .infinity || (a.x.isFinite && a.y.isFinite && a.z.isFinite)
        else {
            if hasFilter, t >= lastTime { holdUntil = max(holdUntil, t + config.holdAfterAccelMs) }
            return nil
        }
        let rawMagnitude = squared.squareRoot()
        if hasFilter, t >= lastTime, config.onChange || t - lastTime <= config.maxSampleGapMs {
            var dt = t - lastTime
            var previous = filter
            if config.onChange {
                // The sensor held its previous reading until about one period ago.
                let period = 1000 / config.sampleRateHz
                if dt > period {
                    previous = lastRaw + (previous - lastRaw) * exp(-(dt - period) / config.filterTimeConstantMs)
                    dt = period
                }
            }
            filter = a + (previous - a) * decay(dt)
        } else {
            // First reading, a time reversal or a gap: start again from this reading.
            reinitialise(at: t, to: a)
        }
        glance.replacing(lastRaw, at: lastTime)
        lastTime = t
        lastRaw = a
        lastRawSquared = squared
        lastRawMagnitude = rawMagnitude
        if abs(rawMagnitude - config.standardGravity) > config.accelToleranceRaw {
            holdUntil = max(holdUntil, t + config.holdAfterAccelMs)
        }
        steady.append(
            tMs: t, vector: a, magnitude: rawMagnitude,
            magnitudeOK: abs(rawMagnitude - config.standardGravity) <= config.steadyMagnitudeTolerance,
            windowMs: config.steadyWindowMs)
        return evaluate(at: t, newReading: true)
    }

    /// A timer fired at `tMs` (normally `nextDeadline`). On an on-change sensor the
    /// last reading is re-fed first (zero-order hold); then pending commits are checked.
    package mutating func tick(atMs t: Double) -> ClassifierEvent? {
        guard hasFilter, t >= lastTime else { return nil }
        if config.onChange {
            return processReading(Sample(tMs: t, vector: lastRaw))
        }
        return evaluate(at: t, newReading: false)
    }

    /// Tells the classifier which orientation the display actually shows (a
    /// compositor applying a rotation, or a rotation lock). From then on A follows
    /// these calls instead of P.
    package mutating func setApplied(_ orientation: Orientation?) {
        applied = orientation == .undefined ? nil : orientation
        restCone.forget()
        appliedFeedback = true
    }

    /// Starts again as at startup (the device was lost: removed, unbound, or
    /// gone across a resume, so nothing read before says where it is now): P
    /// and the tilt are `undefined` until the next readings decide, with the
    /// startup's quick first commit. A compositor's applied orientation is
    /// kept: the display still shows it.
    package mutating func restart() {
        let shown = appliedFeedback ? applied : nil
        self = Classifier(config: config)
        if let shown { setApplied(shown) }
    }

    /// Forgets the filter, tilt history, candidates and hold-offs (after a resume or
    /// a sensor re-enable); keeps P and A.
    package mutating func reset() {
        hasFilter = false
        clearTransientState()
    }

    private mutating func reinitialise(at t: Double, to a: Vector3) {
        filter = a
        hasFilter = true
        clearTransientState()
        lastTime = -.infinity
    }

    private mutating func clearTransientState() {
        pending = nil
        glance.clear()
        steady.clear()
        steadyNow = false
        steadyCandidate = nil
        tiltCandidate = .undefined
        flatSince = nil
        holdUntil = -.infinity
        swing.clear()
    }

    private mutating func decay(_ dt: Double) -> Double {
        if dt != cachedDt {
            cachedDt = dt
            cachedDecay = exp(-dt / config.filterTimeConstantMs)
        }
        return cachedDecay
    }

    @inline(__always)
    private mutating func evaluate(at t: Double, newReading: Bool) -> ClassifierEvent? {
        guard hasFilter else { return nil }
        let f = filter
        let squaredMagnitude = (f * f).sum()
        let magnitude = squaredMagnitude.squareRoot()
        let usable = magnitude >= config.nearZeroMagnitude
        var tiltChanged = false
        if usable, newReading {
            if abs(magnitude - config.standardGravity) > config.accelToleranceFiltered {
                holdUntil = max(holdUntil, t + config.holdAfterAccelMs)
            }
            let sinTilt = tiltSine(z: f.z, length: magnitude, zSign: config.zSign)
            glance.holdMs = limits.tiltedHold.isReached(byTiltOfSine: abs(sinTilt)) ? config.glanceHoldTiltedMs : config.glanceHoldMs
            if !overheadLatched, !overheadExpired, flatSince == nil, sinTilt >= quietLower, sinTilt <= quietUpper {
                // The usual reading: the tilt gates and the published tilt stay as they are.
                tiltCandidate = .undefined
            } else {
                updateTiltGates(t: t, sinTilt: sinTilt)
                tiltChanged = publishTilt(sinTilt: sinTilt, at: t)
            }
            let swingSine = config.zSignKnown ? sinTilt : abs(sinTilt)
            if swing.rose(by: limits.swing, tMs: t, sinTilt: swingSine, windowMs: config.swingWindowMs) {
                holdUntil = max(holdUntil, t + config.holdAfterSwingMs)
            }
        } else if newReading {
            holdUntil = max(holdUntil, t + config.holdAfterAccelMs)
        }

        // Steady path: the raw readings of the current run agree and sit near g.
        steadyCandidate = nil
        var steadyAtCurrent = false
        steadyNow = false
        restConeHeld = false
        if steady.isSteady(
            atMs: t, windowMs: config.steadyWindowMs, angle: limits.steadyAngle, cosAngle: limits.cosSteadyAngle) {
            steadyNow = true
            if let k = steadyWindowCandidate() {
                if k == orientation { steadyAtCurrent = true } else { steadyCandidate = k }
            }
        }

        // The glance hold: since when every raw reading has proposed the same
        // candidate. At rest inside the rest cone, every reading of the window
        // (the newest too) proposes the current orientation: no need to ask.
        if newReading {
            let k = usable ? (restConeHeld ? orientation : rawCandidate()) : nil
            if glance.endsRun(proposing: k, usable: usable) {
                glance.startRun(of: k, at: t, newest: lastRaw, applied: applied, config: config)
            }
        }

        // The filtered vector's candidate; moot while the raw vector rests at the
        // current orientation (the bookkeeping below then clears `pending` anyway).
        var slowCandidate: Orientation?
        if usable, !steadyAtCurrent {
            if let recalled = slowMemo.recall(
                f, squaredLength: squaredMagnitude, applied: applied, overheadLatched: overheadLatched) {
                slowCandidate = recalled.candidate
            } else {
                slowCandidate = filteredCandidate(f, magnitude: magnitude)
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
            if let k = steadyCandidate, glance.runHolds(k, at: t) {
                commit(k)
                filter = steady.mean()  // the filter's lag is moot once the raw vector is at rest
                committed = .steady
            } else if let k = pending, newReading, t - pendingSince >= config.settleTimeMs - 1e-9,
                glance.proposalHolds(k, at: t) {
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
        restCone.forget()
        pending = nil
        steadyCandidate = nil
    }
}
