/// Sliding-window minimum of the tilt over the last `windowMs`, for the swing
/// gate ("the tilt rose by 20° within 300 ms": being put down).
///
/// A monotonic deque in a fixed ring: amortised O(1) per reading and no
/// allocation after the first, whatever the sample rate.
struct SwingDetector: Sendable {
    private var times: [Double]
    private var tilts: [Double]
    private var head = 0
    private var count = 0

    init(capacity: Int = 1024) {
        times = Array(repeating: 0, count: capacity)
        tilts = Array(repeating: 0, count: capacity)
    }

    mutating func clear() {
        head = 0
        count = 0
    }

    /// Adds a reading and returns how far the tilt has risen above the lowest
    /// reading within the window (0 when it has not risen).
    mutating func rise(tMs: Double, tilt: Double, windowMs: Double) -> Double {
        let capacity = times.count
        // Drop readings that fell out of the window.
        while count > 0, times[head] < tMs - windowMs {
            head = (head + 1) % capacity
            count -= 1
        }
        // Drop readings that can never be the minimum again.
        while count > 0 {
            let last = (head + count - 1) % capacity
            guard tilts[last] >= tilt else { break }
            count -= 1
        }
        if count == capacity {  // absurd sample rates: forget the oldest
            head = (head + 1) % capacity
            count -= 1
        }
        let slot = (head + count) % capacity
        times[slot] = tMs
        tilts[slot] = tilt
        count += 1
        return tilt - tilts[head]
    }
}
