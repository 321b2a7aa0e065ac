import Foundation

/// A value shared between threads behind a pthread mutex (`NSLock`).
///
/// Not `Synchronization.Mutex`: on Linux its lock is atomics and a futex inside
/// the prebuilt, uninstrumented Synchronization library, so ThreadSanitizer
/// sees no ordering between two threads' `withLock` bodies and reported the
/// abuse suite's storm counters as a Swift access race (docs/robustness.md).
/// TSan intercepts pthread mutexes.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Counters a test's worker threads keep, with the flag that stops them.
protocol WorkerCounts {
    init()
    var stop: Bool { get set }
}

/// Counters shared between worker threads and the test that started them.
final class WorkerLog<Counts: WorkerCounts>: Sendable {
    let counts = Locked(Counts())
    /// Whether the test has told the workers to stop.
    var stopped: Bool { counts.withLock { $0.stop } }
}
