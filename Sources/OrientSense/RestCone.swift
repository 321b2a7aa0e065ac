#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How far the steady window's readings may spread around its cone's axis
/// while the window's mean stays the steady candidate for the current
/// orientation: the steady path's answer for a device at rest, kept for as
/// long as the cone lasts.
///
/// A device at rest passes the steady test on every reading, and its mean
/// lands at the current orientation every time. While the steady window keeps
/// one cone (`SteadyWindow.coneSerial`), every reading of the window, and so
/// their mean, lies within the cone's spread of its axis. The candidate for
/// the current orientation A (applied too, no overhead latch) holds for every
/// direction whose tilt φ lies inside A's tilt gates and whose angle θ is
/// nearer A's centre than the stay and steady-accept limits (and 45°). A cap
/// of angular radius ρ around an axis at tilt φₐ and angle θₐ holds tilts
/// φₐ ± ρ and angles θₐ ± asin(sin ρ / cos φₐ); so the cap fits for every ρ
/// up to a bound computed once per cone, with a margin far above rounding,
/// and each later reading needs only its spread compared with that bound.
struct RestCone: Sendable {
    /// The cone (by serial) and orientation the bound was computed for.
    private var coneSerial = -1
    private var orientation = Orientation.undefined
    /// The cosine of the widest spread that fits; 2 when none does.
    private var cosWidestSpread = 2.0

    /// Whether the window's mean is certainly the steady candidate for
    /// `orientation`, the window's cone being `serial` with its readings within
    /// the angle of cosine `cosSpread` of its axis.
    @inline(__always)
    func holds(
        cone serial: Int, cosSpread: Double, orientation: Orientation, applied: Orientation?, overheadLatched: Bool
    ) -> Bool {
        serial == coneSerial && cosSpread >= cosWidestSpread && orientation == self.orientation
            && applied == orientation && !overheadLatched
    }

    /// Whether `measure` has yet to look at this cone and orientation.
    @inline(__always)
    func mayMeasure(cone serial: Int, orientation: Orientation) -> Bool {
        serial != coneSerial || orientation != self.orientation
    }

    /// Computes the widest spread around the unit vector `axis` (the window's
    /// cone `serial`) at which every direction is a steady candidate for
    /// `orientation`, which is also the applied one.
    @inline(never)
    mutating func measure(
        cone serial: Int, axis: Vector3, orientation: Orientation, limits: ClassifierLimits, config: ClassifierConfig
    ) {
        coneSerial = serial
        self.orientation = orientation
        cosWidestSpread = 2
        guard let turns = orientation.quarterTurns, turns != 2 || config.allowUpsideDown else { return }
        let length = (axis * axis).sum().squareRoot()
        let sinTilt = tiltSine(z: axis.z, length: length, zSign: config.zSign)
        let tilt = tiltDegrees(sine: sinTilt)
        let cosTilt = (axis.x * axis.x + axis.y * axis.y).squareRoot() / length
        var theta = atan2(axis.x, -axis.y) * 180 / .pi
        if theta < 0 { theta += 360 }
        let range = limits.tiltRange(quarterTurns: turns)
        // Every comparison `candidate` makes for A, as room left in degrees.
        let below = tilt - max(limits.overheadEnter.degrees, limits.minusMaxTilt.degrees, range.min.degrees)
        let above = min(limits.maxTilt.degrees, range.max.degrees) - tilt
        let sideways = min(45, limits.stay.degrees, limits.steadyAccept.degrees) - angularDistance(theta, Double(turns) * 90)
        guard sideways > 0, sideways < 90 else { return }
        let turn = asin(sin(sideways * .pi / 180) * cosTilt) * 180 / .pi
        // The margin (about 2e-6 rad) is far above the rounding of the angles
        // and of a spread's cosine near 1 (about 5e-8 rad).
        let widest = min(below, above, turn) - 1e-4
        guard widest > 0 else { return }  // also false for NaN
        cosWidestSpread = cos(widest * .pi / 180)
    }

    /// Forgets the bound (the limits changed).
    mutating func forget() {
        coneSerial = -1
        cosWidestSpread = 2
    }
}
