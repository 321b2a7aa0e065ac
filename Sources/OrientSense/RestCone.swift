#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OrientProtocol

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
/// of angular radius ρ around a direction at tilt φ₀ and angle θ₀ holds
/// tilts φ₀ ± ρ and angles θ₀ ± asin(sin ρ / cos φ₀); so there is a widest
/// cap of candidates around it, found once (with libm, and a margin far
/// above rounding). A cone whose axis lies β inside that cap keeps every
/// reading in it while its spread stays under R − β: one dot product per
/// cone, and one comparison per reading.
struct RestCone: Sendable {
    /// The cap: every direction within R of `centre` (a unit vector) is a
    /// steady candidate for `orientation`; cos R is 2 when there is none.
    private var orientation = Orientation.undefined
    private var centre: Vector3 = .zero
    private var cosRadius = 2.0
    private var sinRadius = 0.0
    /// The cone (by serial) the bound was computed for, and the cosine of the
    /// widest spread that keeps it inside the cap (2 when none does).
    private var coneSerial = -1
    private var cosWidestSpread = 2.0

    /// Whether the window's mean is certainly the steady candidate for the
    /// orientation measured, the window's cone being `serial` with its readings
    /// within the angle of cosine `cosSpread` of its axis. The caller must
    /// `forget` whenever that orientation, the applied one or the overhead
    /// latch changes.
    @inline(__always)
    func holds(cone serial: Int, cosSpread: Double) -> Bool {
        serial == coneSerial && cosSpread >= cosWidestSpread
    }

    /// Whether `measure` has yet to look at this cone and orientation.
    @inline(__always)
    func mayMeasure(cone serial: Int, orientation: Orientation) -> Bool {
        serial != coneSerial || orientation != self.orientation
    }

    /// Bounds the spread of the window's cone `serial` (axis `axis`, a unit
    /// vector; spread of cosine `cosSpread` now) inside a cap of candidates for
    /// `orientation`, which is also the applied one; finds a new cap around the
    /// axis in `region` when the last one does not hold the cone as it is.
    @inline(never)
    mutating func measure(
        cone serial: Int, axis: Vector3, cosSpread: Double, orientation: Orientation, region: Region, zSign: Double
    ) {
        coneSerial = serial
        if orientation == self.orientation, fit(axis), cosSpread >= cosWidestSpread { return }
        self.orientation = orientation
        findCap(around: axis, region: region, zSign: zSign)
        _ = fit(axis)
    }

    /// Where the current orientation is a steady candidate: tilts within
    /// `lowTilt...highTilt` and angles θ nearer its centre than `near`
    /// (degrees, all comparisons with room to spare), from
    /// `ClassifierLimits.restRegion`.
    struct Region {
        let turns: Int
        let lowTilt: Double
        let highTilt: Double
        let near: Double
    }

    /// Sets the widest spread around `axis` inside the cap: R − β, β the angle
    /// from the cap's centre (its sine rounded up, so the bound errs inside).
    private mutating func fit(_ axis: Vector3) -> Bool {
        cosWidestSpread = 2
        let cosBeta = (axis * centre).sum()
        guard cosBeta > cosRadius else { return false }  // false for NaN too
        let sinBeta = (max(0, 1 - cosBeta * cosBeta) + 4e-15).squareRoot()
        cosWidestSpread = cosRadius * cosBeta + sinRadius * sinBeta + 1e-12
        return true
    }

    /// The widest cap of directions in `region` around `axis`.
    private mutating func findCap(around axis: Vector3, region: Region, zSign: Double) {
        cosRadius = 2
        let length = (axis * axis).sum().squareRoot()
        centre = axis / length
        let tilt = tiltDegrees(sine: tiltSine(z: axis.z, length: length, zSign: zSign))
        let cosTilt = (axis.x * axis.x + axis.y * axis.y).squareRoot() / length
        var theta = atan2(axis.x, -axis.y) * 180 / .pi
        if theta < 0 { theta += 360 }
        let sideways = region.near - angularDistance(theta, Double(region.turns) * 90)
        guard sideways > 0, sideways < 90 else { return }  // also false for NaN
        let turn = asin(sin(sideways * .pi / 180) * cosTilt) * 180 / .pi
        // The margin (about 2e-6 rad) is far above the rounding of the angles
        // and of a spread's cosine near 1 (about 5e-8 rad).
        let radius = min(tilt - region.lowTilt, region.highTilt - tilt, turn) - 1e-4
        guard radius > 0, radius < 90 else { return }  // also false for NaN
        cosRadius = cos(radius * .pi / 180)
        sinRadius = sin(radius * .pi / 180)
    }

    /// Forgets the cap (the limits changed).
    mutating func forget() {
        orientation = .undefined
        coneSerial = -1
        cosRadius = 2
        cosWidestSpread = 2
    }
}
