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
    private var magnitudeOK: [Bool]
    private var head = 0
    private var count = 0

    init(capacity: Int = 256) {
        times = Array(repeating: 0, count: capacity)
        vectors = Array(repeating: .zero, count: capacity)
        magnitudeOK = Array(repeating: false, count: capacity)
    }

    mutating func clear() {
        head = 0
        count = 0
    }

    /// Adds a reading, forgetting those no longer needed for a window of `windowMs`.
    mutating func append(tMs: Double, vector: Vector3, magnitudeOK ok: Bool, windowMs: Double) {
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
        magnitudeOK[slot] = ok
        count += 1
    }

    /// The mean of the window's readings when the raw vector has been at rest for
    /// `windowMs` by `tMs` (every reading within the angle whose cosine is
    /// `cosAngle` of the newest), or nil.
    func steadyMean(atMs tMs: Double, windowMs: Double, cosAngle: Double) -> Vector3? {
        guard count >= 2, times[head] <= tMs - windowMs + 1e-9 else { return nil }
        let capacity = times.count
        let newest = vectors[(head + count - 1) % capacity]
        let newestLength = length(newest)
        var sum = Vector3.zero
        for i in 0..<count {
            let slot = (head + i) % capacity
            guard magnitudeOK[slot] else { return nil }
            let v = vectors[slot]
            var limit = cosAngle
            if i == 0, tMs - times[slot] > windowMs {
                // The anchor is older than the window (low sample rates): allow it the
                // same angular speed, δ per window, so the test does not depend on the rate.
                limit = cos(acos(cosAngle) * (tMs - times[slot]) / windowMs)
            }
            guard (v * newest).sum() >= limit * length(v) * newestLength else { return nil }
            sum += v
        }
        return sum / Double(count)
    }
}
