import OrientSynth

/// `count` bytes of seeded noise with a newline every 200 bytes or so: hostile
/// input that is the same on every run.
func noiseLines(count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { _ in
        let z = generator.next()
        return z % 200 == 0 ? 0x0A : UInt8(truncatingIfNeeded: z >> 8)
    }
}
