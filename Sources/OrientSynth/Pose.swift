#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
package import OrientProtocol

/// Standard gravity in m/s², the magnitude of every synthetic gravity reading.
package let standardGravity = 9.80665

/// How a device is held: the in-plane angle and the tilt, in degrees.
///
/// `theta` is the orientation angle (docs/traces.md): 0 is `normal`,
/// 90 `left-up` (turned clockwise as seen from the front), 180 `bottom-up`, 270
/// `right-up`. `phi` is the tilt of the screen: 0 vertical, +90 lying face-up,
/// −90 face-down (held overhead). Any real `theta` is allowed; only its value
/// modulo 360 matters for the reading.
///
/// ```swift
/// Pose(theta: 90, phi: 10).gravityReading  // ≈ (9.66, 0, 1.70): left edge up, slightly tilted back
/// ```
package struct Pose: Sendable, Equatable, CustomStringConvertible {
    /// In-plane angle in degrees (0 normal, 90 left-up, 180 bottom-up, 270 right-up).
    package var theta: Double
    /// Tilt in degrees (+90 face-up, −90 face-down).
    package var phi: Double

    package init(theta: Double, phi: Double) {
        self.theta = theta
        self.phi = phi
    }

    /// Upright in the natural orientation, screen vertical.
    package static let normal = Pose(theta: 0, phi: 0)
    /// Lying face-up on a table.
    package static let faceUp = Pose(theta: 0, phi: 90)

    /// The accelerometer reading of a device at rest in this pose, in the panel
    /// frame (after the mount matrix), the hwdb convention (docs/behaviour.md, The frame):
    /// g·(sin θ·cos φ, −cos θ·cos φ, sin φ), so upright `normal` reads (0, −g, 0),
    /// `left-up` (+g, 0, 0) and face-up (0, 0, +g).
    package var gravityReading: Vector3 {
        gravityDirection * standardGravity
    }

    /// The unit vector of `gravityReading`: the direction in which the reading
    /// grows when the device accelerates towards the sky.
    package var gravityDirection: Vector3 {
        let t = theta * .pi / 180
        let p = phi * .pi / 180
        let cosPhi = cosDegreesExact(phi, radians: p)
        return Vector3(
            sinDegreesExact(theta, radians: t) * cosPhi,
            -cosDegreesExact(theta, radians: t) * cosPhi,
            sinDegreesExact(phi, radians: p))
    }

    /// The same pose with `theta` in [0, 360).
    package var normalized: Pose {
        Pose(theta: normalizedDegrees(theta), phi: phi)
    }

    package var description: String {
        "(θ \(theta)°, φ \(phi)°)"
    }
}

/// `degrees` reduced to [0, 360).
func normalizedDegrees(_ degrees: Double) -> Double {
    let r = degrees.truncatingRemainder(dividingBy: 360)
    let positive = r < 0 ? r + 360 : r
    return positive == 360 ? 0 : positive
}

/// sin of an angle, exact (0, ±1) at multiples of 90° so cardinal poses read
/// clean vectors instead of 6e-16 residues.
private func sinDegreesExact(_ degrees: Double, radians: Double) -> Double {
    switch normalizedDegrees(degrees) {
    case 0, 180: return 0
    case 90: return 1
    case 270: return -1
    default: return sin(radians)
    }
}

/// cos of an angle, exact at multiples of 90° (see `sinDegreesExact`).
private func cosDegreesExact(_ degrees: Double, radians: Double) -> Double {
    switch normalizedDegrees(degrees) {
    case 0: return 1
    case 90, 270: return 0
    case 180: return -1
    default: return cos(radians)
    }
}
