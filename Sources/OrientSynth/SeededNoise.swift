#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// SplitMix64: a tiny, fast, seedable generator (Steele, Lea and Flood, 2014).
///
/// Chosen because it is a few lines with no state beyond one word, so a seed
/// gives the same stream on every platform and Swift version; the standard
/// library's generator is neither seedable nor stable.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// The stream for `seed` (the same on every platform and Swift version).
    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in (0, 1]: never 0, so `log` in Box–Muller stays finite.
    package mutating func nextUnitInterval() -> Double {
        (Double(next() >> 11) + 1) * 0x1.0p-53
    }
}

/// Standard normal deviates from a seeded SplitMix64 through the Box–Muller
/// transform (each pair of uniforms gives two deviates; the second is kept).
package struct GaussianNoise: Sendable {
    private var uniform: SplitMix64
    private var spare: Double?

    /// The deviates for `seed`.
    package init(seed: UInt64) {
        uniform = SplitMix64(seed: seed)
    }

    /// The next N(0, 1) deviate.
    package mutating func next() -> Double {
        if let value = spare {
            spare = nil
            return value
        }
        let u1 = uniform.nextUnitInterval()
        let u2 = uniform.nextUnitInterval()
        let radius = (-2 * log(u1)).squareRoot()
        let angle = 2 * Double.pi * u2
        spare = radius * sin(angle)
        return radius * cos(angle)
    }

    /// Three independent N(0, 1) deviates, one per axis.
    package mutating func nextVector() -> SIMD3<Double> {
        let x = next()
        let y = next()
        let z = next()
        return SIMD3(x, y, z)
    }
}
