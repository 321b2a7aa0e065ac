#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in milliseconds: deadlines for replies and reconnection.
enum MonotonicTime {
    static func nowMs() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }
}
