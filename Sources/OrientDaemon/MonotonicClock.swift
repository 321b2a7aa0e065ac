#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in milliseconds, and sleeping until a point on it.
package enum MonotonicClock {
    /// Now, in ms on CLOCK_MONOTONIC.
    package static func nowMs() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
    }

    /// Sleeps until `deadlineMs` on CLOCK_MONOTONIC (returns at once if it has passed).
    package static func sleep(untilMs deadlineMs: Double) {
        guard deadlineMs.isFinite, deadlineMs > nowMs() else { return }
        var ts = timespec()
        let seconds = (deadlineMs / 1000).rounded(.down)
        ts.tv_sec = Int(seconds)
        ts.tv_nsec = Int((deadlineMs - seconds * 1000) * 1_000_000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
