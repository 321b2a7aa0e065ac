#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The recent raw readings, to tell when the raw vector has come to rest.
///
/// Steady at time t means: every reading from the last one at or before
/// t − window up to the newest lies within an angle δ of the newest reading and
/// has a magnitude near g. Anchoring on the newest reading and a time window
/// (rounded up to the sample period) makes the test the same at any sample
/// rate: a motion slower than δ per window is steady, anything faster is not.
struct SteadyWindow: Sendable {
    private var times: [Double]
    private var vectors: [Vector3]
    private var magnitudes: [Double]
    private var magnitudeOK: [Bool]
    private var head = 0
    private var count = 0

    init(capacity: Int = 256) {
        times = Array(repeating: 0, count: capacity)
        vectors = Array(repeating: .zero, count: capacity)
        magnitudes = Array(repeating: 0, count: capacity)
        magnitudeOK = Array(repeating: false, count: capacity)
    }

    mutating func clear() {
        head = 0
        count = 0
    }

    /// Adds a reading, forgetting those no longer needed for a window of `windowMs`.
    mutating func append(tMs: Double, vector: Vector3, magnitude: Double, magnitudeOK ok: Bool, windowMs: Double) {
        let capacity = times.count
        // Keep exactly one reading at or before tMs − window (the window's anchor).
        while count >= 2, times[(head + 1) % capacity] <= tMs - windowMs {
            head = (head + 1) % capacity
            count -= 1
        }
        if count == capacity {
            head = (head + 1) % capacity
            count -= 1
        }
        let slot = (head + count) % capacity
        times[slot] = tMs
        vectors[slot] = vector
        magnitudes[slot] = magnitude
        magnitudeOK[slot] = ok
        count += 1
    }

    /// The mean of the window's readings when the raw vector has been at rest for
    /// `windowMs` by `tMs` (every reading within `angle` radians, whose cosine is
    /// `cosAngle`, of the newest), or nil. Checks from the newest back, so a
    /// moving device fails fast.
    func steadyMean(atMs tMs: Double, windowMs: Double, angle: Double, cosAngle: Double) -> Vector3? {
        guard count >= 2, times[head] <= tMs - windowMs + 1e-9 else { return nil }
        let capacity = times.count
        let newestSlot = (head + count - 1) % capacity
        let newest = vectors[newestSlot]
        let newestLength = magnitudes[newestSlot]
        var sum = Vector3.zero
        var i = count - 1
        while i >= 0 {
            let slot = (head + i) % capacity
            guard magnitudeOK[slot] else { return nil }
            let v = vectors[slot]
            var limit = cosAngle
            if i == 0, tMs - times[slot] > windowMs {
                // The anchor is older than the window (low sample rates): allow it the
                // same angular speed, δ per window, so the test does not depend on the rate.
                limit = cos(angle * (tMs - times[slot]) / windowMs)
            }
            guard (v * newest).sum() >= limit * magnitudes[slot] * newestLength else { return nil }
            sum += v
            i -= 1
        }
        return sum / Double(count)
    }
}
