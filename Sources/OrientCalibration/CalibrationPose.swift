public import OrientProtocol

/// The poses the calibration asks for, in the order it asks for them.
///
/// Each is named by what the panel reads in it once the mount matrix is right
/// (the convention systemd's 60-sensor.hwdb quirks are written for): upright in
/// the natural orientation reads (0, −g, 0), left edge up (+g, 0, 0), and lying
/// face up (0, 0, +g). The face-up pose is what settles the sign of z, which the
/// first two leave open.
public enum CalibrationPose: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case upright
    case leftUp = "left-up"
    case faceUp = "face-up"

    /// The unit vector the panel frame reads in this pose (proper acceleration: "up").
    public var panelDirection: Vector3 {
        switch self {
        case .upright: Vector3(0, -1, 0)
        case .leftUp: Vector3(1, 0, 0)
        case .faceUp: Vector3(0, 0, 1)
        }
    }

    /// What the user is asked to do, as one sentence.
    public var instruction: String {
        switch self {
        case .upright:
            "Hold the device upright in its natural orientation: the way its screen reads normally (for a tablet or laptop, the way the logo or keyboard sits), screen facing you."
        case .leftUp:
            "Turn it a quarter turn so its LEFT edge points up (turning the top edge to the left, counter-clockwise as you look at the screen), screen still facing you."
        case .faceUp:
            "Lay it flat on a table, screen facing up."
        }
    }

    /// A few words for tables: "upright", "left edge up", "lying face up".
    public var phrase: String {
        switch self {
        case .upright: "upright"
        case .leftUp: "left edge up"
        case .faceUp: "lying face up"
        }
    }

    public var description: String { rawValue }
}
