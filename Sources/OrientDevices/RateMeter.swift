/// The rate readings arrive at, measured over the latest ones: `status`
/// shows it beside the rate asked for, since a driver may keep its own (a HID
/// hub its report interval) and an on-change sensor at rest sends none.
package struct RateMeter: Sendable {
    /// Arrival times of the latest readings (ms), oldest first; at most `capacity`.
    private var times: [Double] = []
    /// How many readings are kept.
    package static let capacity = 20
    /// How far back readings count, ms: older ones say nothing of the rate now.
    package static let windowMs = 2000.0

    package init() {
        times.reserveCapacity(RateMeter.capacity)
    }

    /// A reading came at `tMs` (times never go back: an earlier one is ignored).
    package mutating func note(_ tMs: Double) {
        guard tMs.isFinite, tMs >= (times.last ?? -.infinity) else { return }
        if times.count == RateMeter.capacity { times.removeFirst() }
        times.append(tMs)
    }

    /// Forgets the readings (the sensor was closed or reopened).
    package mutating func reset() { times.removeAll(keepingCapacity: true) }

    /// Readings a second over those of the last `windowMs` before `now`; nil
    /// with fewer than two (nothing measured: idle, or an on-change sensor at rest).
    package func hz(atMs now: Double) -> Double? {
        let recent = times.drop { $0 < now - RateMeter.windowMs }
        guard recent.count >= 2, let first = recent.first, let last = recent.last, last > first else { return nil }
        return Double(recent.count - 1) * 1000 / (last - first)
    }
}
