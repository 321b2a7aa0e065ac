#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OrientProtocol

/// The constants the classifier derives from its `ClassifierConfig`, computed
/// once at `init` and `reconfigure` instead of on every reading: squared
/// magnitudes, radians, and the sines and cosines that let `AngleReading`
/// compare angles without computing them.
struct ClassifierLimits: Sendable {
    /// `implausibleMagnitude²`, for the sanity gate on the squared raw magnitude.
    let implausibleSquared: Double

    // Tilt gates.
    let overheadEnter: TiltLimit
    let overheadExit: TiltLimit
    let flat: TiltLimit
    /// |φ| from which the longer glance hold applies.
    let tiltedHold: TiltLimit
    /// `maxTiltDeg` and its negative: |φ| > max is φ > max or φ < −max.
    let maxTilt: TiltLimit
    let minusMaxTilt: TiltLimit
    /// Per-orientation tilt limits, by quarter turns (normal, left-up, bottom-up, right-up).
    private let tiltMin: (TiltLimit, TiltLimit, TiltLimit, TiltLimit)
    private let tiltMax: (TiltLimit, TiltLimit, TiltLimit, TiltLimit)
    /// The same ranges for the tilt of the other z sign: −φ in [min, max] is φ
    /// in [−max, −min] (used while the z sign is only assumed).
    private let mirroredMin: (TiltLimit, TiltLimit, TiltLimit, TiltLimit)
    private let mirroredMax: (TiltLimit, TiltLimit, TiltLimit, TiltLimit)

    // Hysteresis and acceptance, as distances of θ from an orientation's centre.
    /// Stay with the applied orientation within 45° − gap/2 of its centre.
    let stay: TurnLimit
    /// Leave it only beyond 45° + gap/2.
    let leave: TurnLimit
    let oppositeAccept: TurnLimit
    let initialAccept: TurnLimit
    let steadyAccept: TurnLimit

    /// The steady-path angle in radians and its cosine.
    let steadyAngle: Double
    let cosSteadyAngle: Double

    /// The swing rise, degrees, and `SwingDetector`'s bound for ruling it out from sines.
    let swing: SwingLimit

    /// sin φ ranges clearly inside each published tilt class, by `Tilt` case;
    /// nil when a range is empty or the thresholds are outside what this
    /// reasoning covers (then φ decides).
    private let vertical: ClosedRange<Double>?
    private let tiltedUp: ClosedRange<Double>?
    private let tiltedDown: ClosedRange<Double>?
    private let faceUp: ClosedRange<Double>?
    private let faceDown: ClosedRange<Double>?

    init(_ config: ClassifierConfig) {
        implausibleSquared = config.implausibleMagnitude * config.implausibleMagnitude
        overheadEnter = TiltLimit(degrees: config.overheadEnterDeg)
        overheadExit = TiltLimit(degrees: config.overheadExitDeg)
        flat = TiltLimit(degrees: config.flatAngleDeg)
        tiltedHold = TiltLimit(degrees: config.glanceTiltedFromDeg)
        maxTilt = TiltLimit(degrees: config.maxTiltDeg)
        minusMaxTilt = TiltLimit(degrees: -config.maxTiltDeg)
        // `problems()` demands four of each; a missing one is NaN, which no tilt passes.
        func four(_ values: [Double]) -> (TiltLimit, TiltLimit, TiltLimit, TiltLimit) {
            func at(_ i: Int) -> TiltLimit { TiltLimit(degrees: values.indices.contains(i) ? values[i] : .nan) }
            return (at(0), at(1), at(2), at(3))
        }
        tiltMin = four(config.tiltMinDeg)
        tiltMax = four(config.tiltMaxDeg)
        mirroredMin = four(config.tiltMaxDeg.map { -$0 })
        mirroredMax = four(config.tiltMinDeg.map { -$0 })
        stay = TurnLimit(degrees: 45 - config.adjacentGapDeg / 2)
        leave = TurnLimit(degrees: 45 + config.adjacentGapDeg / 2)
        oppositeAccept = TurnLimit(degrees: config.oppositeAcceptDeg)
        initialAccept = TurnLimit(degrees: config.initialAcceptDeg)
        steadyAccept = TurnLimit(degrees: config.steadyAcceptDeg)
        steadyAngle = config.steadyAngleDeg * .pi / 180
        cosSteadyAngle = cos(steadyAngle)
        swing = SwingLimit(degrees: config.swingDeltaDeg)

        // Classes of φ: vertical |φ| ≤ T, tilted T < |φ| < F, face |φ| ≥ F. Their
        // sine ranges, shrunk by the guard band, need 0 ≤ T ≤ F < 89°.
        let t = config.tiltedDeg, f = config.faceDeg
        if t >= 0, t <= f, f < 89 {
            let band = angleGuardBand
            let sinT = sin(t * .pi / 180), sinF = sin(f * .pi / 180)
            func range(_ lower: Double, _ upper: Double) -> ClosedRange<Double>? {
                lower + band < upper - band ? (lower + band)...(upper - band) : nil
            }
            vertical = range(-sinT, sinT)
            tiltedUp = range(sinT, sinF)
            tiltedDown = range(-sinF, -sinT)
            faceUp = range(sinF, 2)
            faceDown = range(-2, -sinF)
        } else {
            vertical = nil
            tiltedUp = nil
            tiltedDown = nil
            faceUp = nil
            faceDown = nil
        }
    }

    /// The lowest and highest tilt at which the orientation `turns` quarter turns
    /// from normal may be entered.
    func tiltRange(quarterTurns turns: Int) -> (min: TiltLimit, max: TiltLimit) {
        (Self.limit(tiltMin, turns), Self.limit(tiltMax, turns))
    }

    /// The limit for the orientation `turns` quarter turns from normal.
    private static func limit(_ limits: (TiltLimit, TiltLimit, TiltLimit, TiltLimit), _ turns: Int) -> TiltLimit {
        switch turns & 3 {
        case 0: limits.0
        case 1: limits.1
        case 2: limits.2
        default: limits.3
        }
    }

    /// `tiltRange` for the tilt read with the other z sign.
    func mirroredTiltRange(quarterTurns turns: Int) -> (min: TiltLimit, max: TiltLimit) {
        (Self.limit(mirroredMin, turns), Self.limit(mirroredMax, turns))
    }

    /// Where the orientation `turns` quarter turns from normal is the steady
    /// candidate while it is also the applied one and the overhead latch is off
    /// (`RestCone`): every tilt gate of `Classifier.candidate` passed, and θ
    /// nearer its centre than the stay limit, the steady-accept limit and 45°
    /// (the nearest orientation). Nil when it is never one (bottom-up not allowed).
    func restRegion(quarterTurns turns: Int, allowUpsideDown: Bool) -> RestCone.Region? {
        guard turns != 2 || allowUpsideDown else { return nil }
        let range = tiltRange(quarterTurns: turns)
        return RestCone.Region(
            turns: turns,
            lowTilt: max(overheadEnter.degrees, minusMaxTilt.degrees, range.min.degrees),
            highTilt: min(maxTilt.degrees, range.max.degrees),
            near: min(45, stay.degrees, steadyAccept.degrees))
    }

    /// Whether a tilt of sine `sinTilt` lies clearly (beyond the guard band) inside
    /// the class `tilt`; false also when that cannot be told from the sine.
    func clearlyInside(_ tilt: Tilt, sinTilt: Double) -> Bool {
        clearRange(of: tilt)?.contains(sinTilt) ?? false
    }

    /// The sines of the tilts at which, with `tilt` published and neither the
    /// overhead latch nor a flat spell on, a reading changes nothing in the tilt
    /// gates or the published tilt: clearly inside the class, clearly above the
    /// overhead latch and clearly below flat. Nil when there are none.
    func quietRange(for tilt: Tilt) -> ClosedRange<Double>? {
        guard let range = clearRange(of: tilt) else { return nil }
        let lower = max(range.lowerBound, overheadEnter.upper.nextUp)
        let upper = min(range.upperBound, flat.lower.nextDown)
        return lower <= upper ? lower...upper : nil
    }

    private func clearRange(of tilt: Tilt) -> ClosedRange<Double>? {
        switch tilt {
        case .undefined: nil
        case .vertical: vertical
        case .tiltedUp: tiltedUp
        case .tiltedDown: tiltedDown
        case .faceUp: faceUp
        case .faceDown: faceDown
        }
    }
}
