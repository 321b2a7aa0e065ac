import OrientProtocol

/// Every parameter of the orientation classifier, in wall-clock units (ms,
/// degrees, m/s²), never in sample counts, so behaviour does not depend on the
/// sample rate. The defaults are constants, each with its reason here and in
/// docs/classifier.md; a configuration file sets only the sensitivity
/// (``init(sensitivity:)``), the upside-down policy and the z sign. Tests vary
/// the rest through this API.
public struct ClassifierConfig: Sendable, Equatable {
    // MARK: Sampling and filtering
    /// Rate requested from the sensor, Hz (never below 10). Also the zero-order-hold
    /// re-feed period for on-change sensors.
    public var sampleRateHz: Double = 20
    /// Time constant of the one-pole low-pass filter on the vector, ms.
    public var filterTimeConstantMs: Double = 200
    /// A longer gap between samples re-initialises the filter (not on on-change sensors), ms.
    public var maxSampleGapMs: Double = 1000
    /// The sensor reports only when the reading changes: silence is not a gap; the
    /// last reading is held (re-fed on ticks) until the filter converges.
    public var onChange: Bool = false

    // MARK: Settling and hysteresis
    /// How long a candidate must hold on the filtered (slow) path before it commits, ms.
    public var settleTimeMs: Double = 250
    /// How long the raw readings must keep proposing a new orientation before
    /// it commits, ms: a turn that comes back sooner (a glance, a wobble past the
    /// boundary) publishes nothing. The floor on latency: a brisk 300 ms turn
    /// crosses the boundary about 100 ms before it ends.
    public var glanceHoldMs: Double = 340
    /// The glance hold while the device is tilted back (or forward) by at least
    /// `glanceTiltedFromDeg`, ms: a device read in the hand wobbles further
    /// in-plane the flatter it lies.
    public var glanceHoldTiltedMs: Double = 450
    /// The tilt from which `glanceHoldTiltedMs` applies, degrees.
    public var glanceTiltedFromDeg: Double = 35
    /// Width of the dead zone between adjacent orientations, degrees: leave an
    /// orientation at 45 + gap/2 of turn, come back within 45 − gap/2.
    public var adjacentGapDeg: Double = 45
    /// At startup (nothing committed yet) accept the nearest orientation within this, degrees.
    public var initialAcceptDeg: Double = 40
    /// Accept the opposite orientation within this of its centre, degrees (45: nearest wins).
    public var oppositeAcceptDeg: Double = 45

    // MARK: Tilt gates
    /// Lowest tilt at which each orientation may be entered, degrees, indexed by quarter turns
    /// (normal, left-up, bottom-up, right-up).
    public var tiltMinDeg: [Double] = [-25, -25, -25, -25]
    /// Highest tilt at which each orientation may be entered, degrees, indexed by quarter turns.
    public var tiltMaxDeg: [Double] = [70, 65, 60, 65]
    /// Flatter than this (|tilt|), no candidate at all, degrees.
    public var maxTiltDeg: Double = 80
    /// Tilt at or above which the device counts as lying flat, degrees.
    public var flatAngleDeg: Double = 80
    /// How long it must stay that flat to be "flat", ms.
    public var flatTimeMs: Double = 1000
    /// No commit until this long after the last flat reading (being picked up), ms.
    public var holdAfterFlatMs: Double = 500
    /// A tilt rise of this many degrees within `swingWindowMs` is a swing (being put down).
    public var swingDeltaDeg: Double = 20
    /// Window of the swing test, ms.
    public var swingWindowMs: Double = 300
    /// No commit until this long after the last swing reading, ms.
    public var holdAfterSwingMs: Double = 300
    /// The overhead latch (lying in bed, screen facing down) sets at or below this tilt, degrees.
    public var overheadEnterDeg: Double = -40
    /// ... and releases at or above this tilt, degrees.
    public var overheadExitDeg: Double = -15

    // MARK: Magnitude gates
    /// Filtered magnitude below this is free fall: no candidate, m/s².
    public var nearZeroMagnitude: Double = 1.0
    /// |filtered magnitude − g| above this arms the acceleration hold, m/s².
    public var accelToleranceFiltered: Double = 4.0
    /// |raw magnitude − g| above this arms the acceleration hold (jolts), m/s².
    public var accelToleranceRaw: Double = 6.0
    /// Raw samples with a larger magnitude are dropped as garbage (4 g), m/s².
    public var implausibleMagnitude: Double = 4 * 9.80665
    /// No commit until this long after the last accelerating reading, ms.
    public var holdAfterAccelMs: Double = 500
    /// Standard gravity, m/s².
    public var standardGravity: Double = 9.80665

    // MARK: Steady (fast) path
    /// The raw vector must stay within `steadyAngleDeg` for this long (and over at
    /// least two readings) before the steady path may commit, ms.
    public var steadyWindowMs: Double = 80
    /// Largest angle between a raw reading and the start of its steady run, degrees.
    public var steadyAngleDeg: Double = 5
    /// Largest |raw magnitude − g| during a steady run, m/s².
    public var steadyMagnitudeTolerance: Double = 1.5
    /// The steady mean must lie within this of the new orientation's centre, degrees.
    public var steadyAcceptDeg: Double = 20

    // MARK: Policy and frame
    /// Whether `bottom-up` may be proposed at all.
    public var allowUpsideDown: Bool = true
    /// Sign applied to z before computing tilt: +1 when lying face up reads +z
    /// (proper acceleration under a rotation), −1 when it reads −z (HID sensor
    /// hubs, the Windows convention).
    public var zSign: Double = 1
    /// Whether `zSign` is known (set in the config) rather than assumed from the
    /// driver family. When it is only assumed, no decision that depends on it
    /// may hold the orientation: the tilt limits apply to either sign of the
    /// tilt, flat and swing look at |tilt|, and the overhead latch expires after
    /// `overheadExpiryMs`.
    public var zSignKnown: Bool = true
    /// With an assumed z sign, the longest the overhead latch holds, ms; it
    /// then stays off until the tilt has come back above `overheadExitDeg`.
    public var overheadExpiryMs: Double = 1000
    /// |tilt| above which the published tilt is `tilted-up`/`tilted-down`, degrees.
    public var tiltedDeg: Double = 20
    /// |tilt| at or above which the published tilt is `face-up`/`face-down`, degrees.
    public var faceDeg: Double = 70
    /// Hysteresis on the published tilt around its thresholds, degrees.
    public var tiltHysteresisDeg: Double = 5
    /// A new tilt class must hold this long before it is published (the first is
    /// published at once), ms.
    public var tiltSettleMs: Double = 250

    /// The defaults (docs/classifier.md).
    public init() {}

    /// The widest sensitivity a configuration may ask for (`[classifier] sensitivity`).
    public static let sensitivityRange: ClosedRange<Double> = 0.25...4

    /// The defaults with every settle and hold time divided by `sensitivity`:
    /// 2 follows a turn in half the time (and lets shorter glances through),
    /// 0.5 waits twice as long (for a device read lying down, or shaky hands).
    /// The angles and magnitudes stay: they describe the device, not the user.
    public init(sensitivity: Double) {
        self.init()
        guard sensitivity != 1, sensitivity > 0, sensitivity.isFinite else { return }
        for time in [\Self.settleTimeMs, \.glanceHoldMs, \.glanceHoldTiltedMs, \.holdAfterFlatMs, \.holdAfterSwingMs,
                     \.holdAfterAccelMs, \.tiltSettleMs] {
            self[keyPath: time] /= sensitivity
        }
    }

    /// Checks ranges and relations between parameters; returns one message per problem
    /// (empty when the config is usable). The message names the parameter.
    public func problems() -> [String] {
        var out: [String] = []
        func positive(_ name: String, _ v: Double) { if !(v > 0 && v.isFinite) { out.append("\(name) must be a positive number, got \(v)") } }
        func nonNegative(_ name: String, _ v: Double) { if !(v >= 0 && v.isFinite) { out.append("\(name) must be ≥ 0, got \(v)") } }
        func angle(_ name: String, _ v: Double, _ lo: Double, _ hi: Double) {
            if !(v >= lo && v <= hi) { out.append("\(name) must be within \(lo)...\(hi) degrees, got \(v)") }
        }
        if !(sampleRateHz >= 10 && sampleRateHz <= 1000) { out.append("sample-rate must be within 10...1000 Hz, got \(sampleRateHz)") }
        positive("filter-time-constant", filterTimeConstantMs)
        positive("max-sample-gap", maxSampleGapMs)
        nonNegative("settle-time", settleTimeMs)
        if !(glanceHoldMs >= 0 && glanceHoldMs <= 2000) { out.append("glance-hold must be within 0...2000 ms, got \(glanceHoldMs)") }
        if !(glanceHoldTiltedMs >= 0 && glanceHoldTiltedMs <= 2000) {
            out.append("glance-hold-tilted must be within 0...2000 ms, got \(glanceHoldTiltedMs)")
        }
        angle("glance-tilted-from", glanceTiltedFromDeg, 0, 90)
        angle("adjacent-gap", adjacentGapDeg, 0, 80)
        angle("initial-accept", initialAcceptDeg, 1, 45)
        angle("opposite-accept", oppositeAcceptDeg, 1, 45)
        if tiltMinDeg.count != 4 || tiltMaxDeg.count != 4 {
            out.append("tilt limits need 4 values each (normal, left-up, bottom-up, right-up)")
        } else {
            for i in 0..<4 where !(tiltMinDeg[i] >= -90 && tiltMinDeg[i] <= tiltMaxDeg[i] && tiltMaxDeg[i] <= 90) {
                out.append("tilt limits for \(Orientation(quarterTurns: i).rawValue) must satisfy -90 ≤ min ≤ max ≤ 90, got \(tiltMinDeg[i])..\(tiltMaxDeg[i])")
            }
        }
        angle("max-tilt", maxTiltDeg, 0, 90)
        angle("flat-angle", flatAngleDeg, 0, 90)
        nonNegative("flat-time", flatTimeMs)
        nonNegative("hold-after-flat", holdAfterFlatMs)
        angle("swing-delta", swingDeltaDeg, 1, 180)
        positive("swing-window", swingWindowMs)
        nonNegative("hold-after-swing", holdAfterSwingMs)
        angle("overhead-enter", overheadEnterDeg, -90, 0)
        angle("overhead-exit", overheadExitDeg, -90, 0)
        nonNegative("overhead-expiry", overheadExpiryMs)
        if overheadExitDeg < overheadEnterDeg { out.append("overhead-exit (\(overheadExitDeg)) must be ≥ overhead-enter (\(overheadEnterDeg))") }
        nonNegative("near-zero-magnitude", nearZeroMagnitude)
        positive("accel-tolerance-filtered", accelToleranceFiltered)
        positive("accel-tolerance-raw", accelToleranceRaw)
        positive("implausible-magnitude", implausibleMagnitude)
        nonNegative("hold-after-accel", holdAfterAccelMs)
        positive("standard-gravity", standardGravity)
        // Gates on the wrong side of g would reject a device at rest.
        if nearZeroMagnitude >= standardGravity {
            out.append("near-zero-magnitude (\(nearZeroMagnitude)) must be below standard-gravity (\(standardGravity))")
        }
        if implausibleMagnitude <= standardGravity + steadyMagnitudeTolerance {
            out.append("implausible-magnitude (\(implausibleMagnitude)) must be above standard-gravity + steady-magnitude-tolerance")
        }
        nonNegative("steady-window", steadyWindowMs)
        angle("steady-angle", steadyAngleDeg, 0, 45)
        nonNegative("steady-magnitude-tolerance", steadyMagnitudeTolerance)
        angle("steady-accept", steadyAcceptDeg, 0, 45)
        if zSign != 1 && zSign != -1 { out.append("z-sign must be 1 or -1, got \(zSign)") }
        angle("tilted", tiltedDeg, 0, 90)
        angle("face", faceDeg, 0, 90)
        if faceDeg < tiltedDeg { out.append("face (\(faceDeg)) must be ≥ tilted (\(tiltedDeg))") }
        angle("tilt-hysteresis", tiltHysteresisDeg, 0, 20)
        nonNegative("tilt-settle", tiltSettleMs)
        return out
    }
}
