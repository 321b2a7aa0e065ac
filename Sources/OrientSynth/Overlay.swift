#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OrientProtocol

/// Something added on top of the pure gravity reading of a trajectory. Times are
/// absolute, in ms from the start of the scenario; windows are [from, to).
enum Overlay: Sendable {
    /// Half-sine pulse of linear acceleration in the device frame.
    case impulse(atMs: Double, durationMs: Double, peak: Vector3)
    /// Sinusoidal linear acceleration in the device frame.
    case oscillation(fromMs: Double, toMs: Double, frequencyHz: Double, amplitude: Vector3, phase: Double)
    /// Sinusoidal linear acceleration along world-up (m/s²), rotated into the device frame.
    case worldOscillation(fromMs: Double, toMs: Double, frequencyHz: Double, amplitude: Double)
    /// Sinusoidal angular tremor added to the pose, in degrees.
    case tremor(fromMs: Double, toMs: Double, thetaDegrees: Double, phiDegrees: Double, frequencyHz: Double)
    /// The gravity part scaled down to `residual` m/s² (the device is falling).
    case freeFall(fromMs: Double, toMs: Double, residual: Double)

    /// Added to the pose (tremor only), in degrees.
    func poseOffset(at t: Double) -> (theta: Double, phi: Double) {
        guard case let .tremor(from, to, thetaDegrees, phiDegrees, frequencyHz) = self, t >= from, t < to else {
            return (0, 0)
        }
        let s = sin(2 * .pi * frequencyHz * (t - from) / 1000)
        return (thetaDegrees * s, phiDegrees * s)
    }

    /// Linear acceleration added at `t` for a device whose reading points along
    /// `gravityDirection` (unit vector), in m/s², panel frame.
    func acceleration(at t: Double, gravityDirection: Vector3) -> Vector3 {
        switch self {
        case let .impulse(at, duration, peak):
            guard duration > 0, t >= at, t <= at + duration else { return .zero }
            return peak * sin(.pi * (t - at) / duration)
        case let .oscillation(from, to, frequencyHz, amplitude, phase):
            guard t >= from, t < to else { return .zero }
            return amplitude * sin(2 * .pi * frequencyHz * (t - from) / 1000 + phase)
        case let .worldOscillation(from, to, frequencyHz, amplitude):
            guard t >= from, t < to else { return .zero }
            // Accelerating towards the sky makes the reading longer along its own direction.
            return gravityDirection * (amplitude * sin(2 * .pi * frequencyHz * (t - from) / 1000))
        case .tremor, .freeFall:
            return .zero
        }
    }

    /// The factor applied to the gravity part at `t` (free fall only; 1 otherwise).
    func gravityScale(at t: Double) -> Double {
        guard case let .freeFall(from, to, residual) = self, t >= from, t < to else { return 1 }
        return max(residual, 0) / standardGravity
    }
}

/// Extra per-axis white noise in a window, σ in m/s².
struct NoiseWindow: Sendable {
    var fromMs: Double
    var toMs: Double
    var sigma: Vector3
}
