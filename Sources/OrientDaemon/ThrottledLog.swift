/// Log lines of one kind, at most one per interval: the first is written at
/// once, the ones after it within the interval are only counted, and the next
/// line written says how many were left out. A storm of refused connections
/// costs one line per interval, not one per connection.
struct ThrottledLog {
    let level: LogLevel
    let intervalMs: Double
    private var lastWrittenMs = -Double.infinity
    private var leftOut = 0

    init(level: LogLevel, intervalMs: Double = 10_000) {
        self.level = level
        self.intervalMs = intervalMs
    }

    /// Writes `message` to `log`, or counts it when one was written less than
    /// an interval ago.
    mutating func write(_ message: String, to log: Log, atMs nowMs: Double = MonotonicClock.nowMs()) {
        guard nowMs - lastWrittenMs >= intervalMs else {
            leftOut += 1
            return
        }
        let more = leftOut > 0 ? " (and \(leftOut) more like it in the last \(Int((nowMs - lastWrittenMs) / 1000)) s)" : ""
        log.log(level, message + more)
        lastWrittenMs = nowMs
        leftOut = 0
    }
}
