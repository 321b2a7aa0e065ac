#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import OrientProtocol

/// The angle of a convertible's hinge, from the gravity the display and the
/// base each read (docs/behaviour.md, "Tablet mode").
///
/// ```swift
/// let lid = displayMatrix.apply(displayReading), base = baseMatrix.apply(baseReading)
/// if let angle = HingeAngle.degrees(lid: lid, base: base, config: HingeConfig()) { … }
/// ```
///
/// **Frames.** `lid` is the display's reading after its mount matrix, in the
/// panel frame of docs/behaviour.md (upright in the natural orientation reads
/// (0, −g, 0)). The hinge lies along that frame's x axis: the bottom edge of a
/// landscape-native panel, as on every convertible this was written for.
/// `base` is the base's reading after *its* mount matrix, which maps the base
/// sensor into the frame the display would have if the lid were opened flat
/// to 180°: the two read the same at 180°, and at 360° (folded back) the base
/// reads the display's (x, −y, −z). Both follow `config.zSign`.
/// The ChromeOS recordings (traces/recorded/chromeos) are already in these
/// frames: their base needs the identity.
///
/// **Angle.** The turn from the base to the lid about the hinge, in the plane
/// normal to it (the x component of each reading is left out), plus 180°:
/// 0° closed, about 110° a laptop on a desk, 180° flat, about 270° tent or
/// stand, 360° folded back into a tablet. In [0, 360); closed and folded back
/// both read near 0°/360° (gravity cannot tell them apart).
public struct HingeAngle: Sendable {
    /// The hinge angle in degrees, in [0, 360); nil when it cannot be known:
    /// a component is not finite, a reading is zero, or either reading lies
    /// within `config.hingeVerticalDeg` of the hinge axis (the hinge is
    /// near vertical and what is left of gravity in the plane is mostly noise).
    ///
    /// Pure and per reading: whether the machine is moving is the detector's
    /// concern (``HingeModeDetector``).
    public static func degrees(lid: Vector3, base: Vector3, config: HingeConfig) -> Double? {
        let lidLength = (lid * lid).sum().squareRoot(), baseLength = (base * base).sum().squareRoot()
        guard lidLength.isFinite, baseLength.isFinite, lidLength > 0, baseLength > 0 else { return nil }
        // In a frame where lying face up reads −z (right-handed: x right, y up
        // the screen, z out of it), so the turn's sign means the same on every device.
        let flip = -config.zSign
        let ly = lid.y, lz = flip * lid.z, by = base.y, bz = flip * base.z
        let inPlaneLid = (ly * ly + lz * lz).squareRoot(), inPlaneBase = (by * by + bz * bz).squareRoot()
        let limit = sin(config.hingeVerticalDeg * .pi / 180)
        guard inPlaneLid > 0, inPlaneBase > 0, inPlaneLid >= limit * lidLength, inPlaneBase >= limit * baseLength else {
            return nil
        }
        let turn = atan2(by * lz - bz * ly, by * ly + bz * lz) * 180 / .pi
        var angle = 180 + turn
        if angle >= 360 { angle -= 360 }
        if angle < 0 { angle += 360 }
        return angle
    }
}
