#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OrientProtocol

/// The tilt φ = asin(z/|v|) and orientation angle θ = atan2(x, −y) of a
/// vector, for comparing against limits.
///
/// The classifier only ever compares these angles with fixed limits, and the
/// inverse functions are most of the cost of a reading. So a reading keeps
/// sin φ, cos θ and sin θ, decides each comparison from them and the limit's
/// precomputed sine or cosine, and computes the angle (asin, atan2, once, then
/// cached) only when the two lie within `angleGuardBand` of each other. Each
/// comparison therefore answers exactly as comparing the angle would.
///
/// A reading may also be built from an approximation of the vector (the
/// steady window's running sum, within about 1e-13 of the exact mean's
/// direction). Its comparisons away from the limits are still exact; one that
/// lands within the guard band marks the reading `isUndecided`, and the caller
/// asks again with the exact vector.
///
/// Each comparison also records its slack, how far sin φ or a cosine of θ
/// could move before the comparison might come out otherwise, so that a
/// decision built from comparisons can be reused for a nearby reading
/// (`CandidateMemo`).
struct AngleReading {
    /// The vector and its length.
    let vector: Vector3
    let length: Double
    /// sin φ: z (times the configured sign) over the length, clamped to [−1, 1].
    let sinTilt: Double
    /// cos θ and sin θ, computed on first use (only candidates need them); NaN
    /// when the horizontal part is too small to normalise, and then every θ
    /// comparison is made on θ.
    private var cosTheta = 0.0
    private var sinTheta = 0.0
    private var hasThetaCosines = false
    private let isApproximate: Bool
    /// True once a comparison on an approximate reading came within the guard
    /// band of its limit: then its answers may differ from the exact vector's.
    private(set) var isUndecided = false
    /// Since `resetSlack()`: sin φ may move by less than `tiltSlack`, and cos θ
    /// and sin θ each by less than `turnSlack`, without changing the outcome of
    /// any comparison made (0 once one was decided on the angle itself).
    private(set) var tiltSlack = Double.infinity
    private(set) var turnSlack = Double.infinity
    /// The angles once computed, NaN before (φ is never NaN; a NaN θ is merely
    /// computed again).
    private var cachedTilt = Double.nan
    private var cachedTheta = Double.nan

    /// The angles of `v`, whose length is `magnitude`; `zSign` is +1 when lying
    /// face up reads +z.
    @inline(__always)
    init(_ v: Vector3, magnitude: Double, zSign: Double) {
        vector = v
        length = magnitude
        sinTilt = tiltSine(z: v.z, length: magnitude, zSign: zSign)
        isApproximate = false
    }

    /// The angles of a vector known to within about 1e-13 of its length (any
    /// length: only its direction counts).
    @inline(__always)
    init(approximating v: Vector3, zSign: Double) {
        vector = v
        length = (v * v).sum().squareRoot()
        sinTilt = tiltSine(z: v.z, length: length, zSign: zSign)
        isApproximate = true
    }

    /// φ in degrees, +90 face up. On an approximate reading, needing it makes
    /// the reading undecided.
    var tilt: Double {
        mutating get { cachedTilt.isNaN ? computeTilt() : cachedTilt }
    }

    /// θ in degrees, in [0, 360): 0 normal, 90 left-up, 180 bottom-up, 270 right-up.
    /// On an approximate reading, needing it makes the reading undecided.
    var theta: Double {
        mutating get { cachedTheta.isNaN ? computeTheta() : cachedTheta }
    }

    /// Starts recording slack afresh, for a new decision.
    @inline(__always)
    mutating func resetSlack() {
        tiltSlack = .infinity
        turnSlack = .infinity
    }

    // MARK: Tilt

    /// φ ≤ limit.
    @inline(__always)
    mutating func tilt(atMost limit: TiltLimit) -> Bool {
        switch side(of: limit) {
        case .below: true
        case .above: false
        case .near: tilt <= limit.degrees
        }
    }

    /// φ < limit.
    @inline(__always)
    mutating func tilt(below limit: TiltLimit) -> Bool {
        switch side(of: limit) {
        case .below: true
        case .above: false
        case .near: tilt < limit.degrees
        }
    }

    /// φ ≥ limit.
    @inline(__always)
    mutating func tilt(atLeast limit: TiltLimit) -> Bool {
        switch side(of: limit) {
        case .below: false
        case .above: true
        case .near: tilt >= limit.degrees
        }
    }

    /// φ > limit.
    @inline(__always)
    mutating func tilt(above limit: TiltLimit) -> Bool {
        switch side(of: limit) {
        case .below: false
        case .above: true
        case .near: tilt > limit.degrees
        }
    }

    // MARK: Orientation angle

    /// The orientation nearest θ in quarter turns (0...3), as `θ/90` rounded
    /// (half away from zero) modulo 4.
    @inline(__always)
    mutating func nearestQuarterTurns() -> Int {
        loadThetaCosines()
        // |cos θ| − |sin θ| moves by up to twice what either moves.
        let lead = abs(cosTheta) - abs(sinTheta)
        if lead > angleGuardBand {
            turnSlack = min(turnSlack, (lead - angleGuardBand) / 2)
            return cosTheta > 0 ? 0 : 2
        }
        if -lead > angleGuardBand {
            turnSlack = min(turnSlack, (-lead - angleGuardBand) / 2)
            return sinTheta > 0 ? 1 : 3
        }
        turnSlack = 0
        return Int((theta / 90).rounded()) % 4
    }

    /// The distance from θ to the centre of `turns` quarter turns is at most `limit`.
    @inline(__always)
    mutating func distance(toQuarterTurns turns: Int, atMost limit: TurnLimit) -> Bool {
        switch side(ofQuarterTurns: turns, from: limit) {
        case .nearer: true
        case .farther: false
        case .near: angularDistance(theta, Double(turns) * 90) <= limit.degrees
        }
    }

    /// The distance from θ to the centre of `turns` quarter turns is at least `limit`.
    @inline(__always)
    mutating func distance(toQuarterTurns turns: Int, atLeast limit: TurnLimit) -> Bool {
        switch side(ofQuarterTurns: turns, from: limit) {
        case .nearer: false
        case .farther: true
        case .near: angularDistance(theta, Double(turns) * 90) >= limit.degrees
        }
    }

    /// The distance from θ to the centre of `turns` quarter turns exceeds `limit`.
    @inline(__always)
    mutating func distance(toQuarterTurns turns: Int, above limit: TurnLimit) -> Bool {
        switch side(ofQuarterTurns: turns, from: limit) {
        case .nearer: false
        case .farther: true
        case .near: angularDistance(theta, Double(turns) * 90) > limit.degrees
        }
    }

    /// θ is at least as close to the centre of `near` quarter turns as to that of `far`.
    @inline(__always)
    mutating func isCloser(toQuarterTurns near: Int, thanTo far: Int) -> Bool {
        // A difference of two cosines moves by up to twice what either moves.
        loadThetaCosines()
        let difference = cosine(toQuarterTurns: near) - cosine(toQuarterTurns: far)
        if difference > angleGuardBand {
            turnSlack = min(turnSlack, (difference - angleGuardBand) / 2)
            return true
        }
        if -difference > angleGuardBand {
            turnSlack = min(turnSlack, (-difference - angleGuardBand) / 2)
            return false
        }
        turnSlack = 0
        let angle = theta
        return angularDistance(angle, Double(near) * 90) <= angularDistance(angle, Double(far) * 90)
    }

    // MARK: Sides

    private enum TiltSide { case below, above, near }
    private enum TurnSide { case nearer, farther, near }

    /// Where sin φ lies against the limit's sine, recording the slack.
    @inline(__always)
    private mutating func side(of limit: TiltLimit) -> TiltSide {
        if sinTilt < limit.lower {
            tiltSlack = min(tiltSlack, limit.lower - sinTilt)
            return .below
        }
        if sinTilt > limit.upper {
            tiltSlack = min(tiltSlack, sinTilt - limit.upper)
            return .above
        }
        tiltSlack = 0
        return .near
    }

    /// Where θ lies against a distance limit from the centre of `turns` quarter
    /// turns (a larger cosine is a smaller distance), recording the slack.
    @inline(__always)
    private mutating func side(ofQuarterTurns turns: Int, from limit: TurnLimit) -> TurnSide {
        loadThetaCosines()
        let c = cosine(toQuarterTurns: turns)
        if c > limit.upper {
            turnSlack = min(turnSlack, c - limit.upper)
            return .nearer
        }
        if c < limit.lower {
            turnSlack = min(turnSlack, limit.lower - c)
            return .farther
        }
        turnSlack = 0
        return .near
    }

    @inline(__always)
    private mutating func loadThetaCosines() {
        if !hasThetaCosines { computeThetaCosines() }
    }

    /// cos(θ − turns · 90°), once `loadThetaCosines()` ran.
    @inline(__always)
    private func cosine(toQuarterTurns turns: Int) -> Double {
        switch turns & 3 {
        case 0: cosTheta
        case 1: sinTheta
        case 2: -cosTheta
        default: -sinTheta
        }
    }

    // The slow paths, kept out of line so that the comparisons inline.
    @inline(never)
    private mutating func computeThetaCosines() {
        let horizontal = vector.x * vector.x + vector.y * vector.y
        // Clear of subnormals, where the squares lose precision; for an
        // approximate vector, clear of the vertical, where θ is ill-defined.
        if horizontal >= (isApproximate ? 1e-6 * length * length : 1e-290) {
            let horizontalLength = horizontal.squareRoot()
            cosTheta = -vector.y / horizontalLength
            sinTheta = vector.x / horizontalLength
        } else {
            cosTheta = .nan
            sinTheta = .nan
        }
        hasThetaCosines = true
    }

    @inline(never)
    private mutating func computeTilt() -> Double {
        let tilt = tiltDegrees(sine: sinTilt)
        cachedTilt = tilt
        if isApproximate { isUndecided = true }
        return tilt
    }

    @inline(never)
    private mutating func computeTheta() -> Double {
        var theta = atan2(vector.x, -vector.y) * 180 / .pi
        if theta < 0 { theta += 360 }
        cachedTheta = theta
        if isApproximate { isUndecided = true }
        return theta
    }
}

/// Distance between two angles in degrees, in [0, 180].
///
/// The classifier's angles lie within [0, 540], so |a − b| < 720 and one
/// subtraction of 360 gives exactly what `truncatingRemainder` (a libm `fmod`
/// call) would; larger differences still take the remainder.
func angularDistance(_ a: Double, _ b: Double) -> Double {
    var d = abs(a - b)
    if d >= 360 { d = d < 720 ? d - 360 : d.truncatingRemainder(dividingBy: 360) }
    return d > 180 ? 360 - d : d
}
