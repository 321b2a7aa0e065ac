#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OrientProtocol

// Angle limits compared through sines and cosines: the classifier's angles
// (tilt φ, orientation angle θ) meet only fixed limits, so each comparison is
// decided from a sine or cosine and the limit's, precomputed, and falls back to
// the angle itself (asin, atan2) only within rounding distance of the limit.

/// How close (in sine or cosine) a reading may come to a limit before the
/// comparison falls back to the angle itself. Far above the rounding of the
/// sines and cosines (about 1e-15) and far below any angle a config sets.
let angleGuardBand = 1e-9

/// The tilt φ, in degrees (+90 face up), of a vector whose sin φ is `sine`:
/// the definition every tilt comparison is measured against.
func tiltDegrees(sine: Double) -> Double {
    asin(sine) * 180 / .pi
}

/// sin φ clamped to [−1, 1], for z (times the configured sign) and the
/// vector's length: the definition φ is measured by.
@inline(__always)
func tiltSine(z: Double, length: Double, zSign: Double) -> Double {
    min(1, max(-1, zSign * z / length))
}

/// A limit on the tilt φ, compared through sin φ.
///
/// asin is increasing, so φ ≥ c exactly when sin φ ≥ sin c; in floating point
/// that holds away from the limit, and within `angleGuardBand` of sin c the
/// comparison is made on φ itself. Limits within 1° of ±90° (where sin φ is
/// clamped to ±1) or outside ±90° always compare φ.
struct TiltLimit: Sendable {
    let degrees: Double
    /// sin φ below `lower` is clearly under the limit, above `upper` clearly over it.
    let lower: Double
    let upper: Double

    /// Whether the tilt whose sine is `sinTilt` is at most the limit (φ ≤ limit).
    @inline(__always)
    func isAtOrAbove(tiltOfSine sinTilt: Double) -> Bool {
        if sinTilt < lower { return true }
        if sinTilt > upper { return false }
        return tiltDegrees(sine: sinTilt) <= degrees
    }

    /// Whether the tilt whose sine is `sinTilt` reaches the limit (φ ≥ limit).
    @inline(__always)
    func isReached(byTiltOfSine sinTilt: Double) -> Bool {
        if sinTilt > upper { return true }
        if sinTilt < lower { return false }
        return tiltDegrees(sine: sinTilt) >= degrees
    }

    init(degrees: Double) {
        self.degrees = degrees
        if abs(degrees) < 89 {
            let sine = sin(degrees * .pi / 180)
            lower = sine - angleGuardBand
            upper = sine + angleGuardBand
        } else {
            lower = -.infinity
            upper = .infinity
        }
    }
}

/// A limit on the angular distance between θ and the centre of an
/// orientation, compared through the cosine of that distance (decreasing on
/// 0...180°, so a larger cosine is a smaller distance). Within
/// `angleGuardBand` of cos α, and for limits outside 0...180°, the comparison
/// is made on the distance itself.
struct TurnLimit: Sendable {
    let degrees: Double
    /// A cosine below `lower` is clearly farther than the limit, above `upper` clearly nearer.
    let lower: Double
    let upper: Double

    init(degrees: Double) {
        self.degrees = degrees
        if degrees >= 0, degrees <= 180 {
            let cosine = cos(degrees * .pi / 180)
            lower = cosine - angleGuardBand
            upper = cosine + angleGuardBand
        } else {
            lower = -.infinity
            upper = .infinity
        }
    }
}
