#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a move progresses from its start pose to its end pose.
package enum Easing: Sendable, Equatable {
    /// Constant angular speed (a slow, deliberate turn at so many degrees a second).
    case linear
    /// Cosine ease-in-out: starts and stops at rest, like a hand turning a device.
    case smooth

    /// The fraction of the move done at `progress` (0...1 of its duration).
    func fraction(_ progress: Double) -> Double {
        let u = min(max(progress, 0), 1)
        switch self {
        case .linear: return u
        case .smooth: return (1 - cos(.pi * u)) / 2
        }
    }
}
