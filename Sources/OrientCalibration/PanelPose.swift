#if canImport(Glibc)
import Glibc
#endif
package import OrientProtocol

/// What a resting device would show, from its gravity reading in the panel frame
/// alone: the orientation and tilt the frame convention gives, without the
/// classifier's timing, filter or hysteresis.
///
/// The calibration uses it to say what each pose gives under a matrix: enough
/// to tell right from wrong at rest, not a prediction of the daemon's timing.
package struct PanelPose: Sendable, Equatable, CustomStringConvertible {
    /// The orientation the reading points to; nil when the device lies (nearly)
    /// flat, where the daemon keeps the orientation it had.
    package var orientation: Orientation?
    package var tilt: Tilt
    /// Degrees out of the vertical: +90 lying face up, −90 face down.
    package var tiltDegrees: Double

    /// Tilt at or below this is `vertical` (the daemon's default `tilted`).
    package static let tiltedDegrees = 20.0
    /// Tilt at or above this is `face-up`/`face-down` and too flat to orient
    /// (the daemon's default `face`).
    package static let faceDegrees = 70.0

    /// The pose of a resting reading `v` (m/s², panel frame, face up +z).
    package init(panel v: Vector3) {
        let length = length(v)
        let sine = length > 0 ? min(1, max(-1, v.z / length)) : 0
        tiltDegrees = asin(sine) * 180 / .pi
        let magnitude = abs(tiltDegrees)
        if magnitude <= PanelPose.tiltedDegrees {
            tilt = .vertical
        } else if magnitude < PanelPose.faceDegrees {
            tilt = tiltDegrees > 0 ? .tiltedUp : .tiltedDown
        } else {
            tilt = tiltDegrees > 0 ? .faceUp : .faceDown
        }
        if magnitude >= PanelPose.faceDegrees || length == 0 {
            orientation = nil
        } else if abs(v.y) >= abs(v.x) {
            orientation = v.y < 0 ? .normal : .bottomUp
        } else {
            orientation = v.x > 0 ? .leftUp : .rightUp
        }
    }

    /// The pose of the sensor-frame reading `raw` under `matrix`, for a daemon
    /// whose z sign is `zSign` (−1: it takes lying face up to read −z).
    package init(raw: Vector3, matrix: MountMatrix, zSign: Int = 1) {
        self.init(panel: matrix.apply(raw) * Vector3(1, 1, zSign < 0 ? -1 : 1))
    }

    /// `left-up, vertical` or `flat (keeps the last orientation), face-up`.
    package var description: String {
        "\(orientation?.rawValue ?? "flat (keeps the last orientation)"), \(tilt.rawValue)"
    }
}
