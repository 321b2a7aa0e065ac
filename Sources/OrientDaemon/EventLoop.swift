#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol
import CLinux

/// The daemon's one event loop: epoll over file descriptors, one timerfd for all
/// timers, and a signalfd for signals. Every callback runs on the thread that
/// called `run()`, so state needs no locks (a `Poller`'s thread only hands
/// its readings back, through an eventfd).
///
/// Nothing runs unless an fd is ready or a timer is due: with no timers armed
/// and no traffic, the process sleeps in `epoll_wait` and makes no wakeups.
package final class EventLoop {
    /// Readiness bits passed to fd handlers (EPOLLIN, EPOLLOUT, EPOLLHUP, EPOLLERR).
    package struct Events: OptionSet, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }
        package static let readable = Events(rawValue: EPOLLIN.rawValue)
        package static let writable = Events(rawValue: EPOLLOUT.rawValue)
        package static let hangup = Events(rawValue: EPOLLHUP.rawValue | EPOLLRDHUP.rawValue)
        package static let error = Events(rawValue: EPOLLERR.rawValue)
    }

    /// Identifies a scheduled timer, to cancel it.
    package struct TimerID: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    private struct Watch {
        var generation: UInt32
        var handler: (Events) -> Void
    }

    private struct Timer {
        var id: UInt64
        var deadlineMs: Double
        var action: () -> Void
    }

    private let epollFD: Int32
    private let timerFD: Int32
    private var signalFD: Int32 = -1
    private var signalHandler: ((Int32) -> Void)?
    private var watches: [Int32: Watch] = [:]
    private var nextGeneration: UInt32 = 1
    /// Scheduled timers, unordered: there are a handful at a time, and a linear
    /// scan without hashing or allocation is the cheapest on every wakeup.
    private var timers: [Timer] = []
    private var nextTimerID: UInt64 = 1
    private var armedDeadline: Double?
    /// The timerfd fired and stays readable until it is set again.
    private var timerExpired = false
    /// False once `stop()` was called, even before `run()` (then `run()` returns at once).
    private var running = true

    /// Wakeups counted since start (epoll_wait returns), for tests and benchmarks.
    package private(set) var wakeups = 0

    /// Told when one callback held the loop longer than `stallMs` (how long,
    /// and what: `timer` or `fd N`): nothing on the loop may block (a sysfs
    /// read a driver sleeps in belongs on a `Poller`'s thread).
    package var onStall: ((_ ms: Double, _ what: String) -> Void)?
    /// How long a callback may hold the loop before `onStall` hears of it, ms.
    package static let stallMs = 200.0

    /// Creates the epoll instance and the timerfd. Fails only if the kernel refuses.
    package init() throws(SystemError) {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw SystemError("epoll_create1") }
        timerFD = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard timerFD >= 0 else {
            close(epollFD)
            throw SystemError("timerfd_create")
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = UInt64(UInt32(bitPattern: timerFD))
        epoll_ctl(epollFD, EPOLL_CTL_ADD, timerFD, &event)
    }

    deinit {
        close(timerFD)
        if signalFD >= 0 { close(signalFD) }
        close(epollFD)
    }

    // MARK: File descriptors

    /// Watches `fd` for `events`; `handler` gets the ready bits. Replaces any
    /// earlier watch of the same fd.
    package func watch(_ fd: Int32, for events: Events, handler: @escaping (Events) -> Void) {
        let generation = nextGeneration
        nextGeneration &+= 1
        if nextGeneration == 0 { nextGeneration = 1 }
        let existed = watches[fd] != nil
        watches[fd] = Watch(generation: generation, handler: handler)
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
        epoll_ctl(epollFD, existed ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event)
    }

    /// Changes the events watched on `fd` (keeps its handler).
    package func change(_ fd: Int32, to events: Events) {
        guard let watch = watches[fd] else { return }
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = UInt64(watch.generation) << 32 | UInt64(UInt32(bitPattern: fd))
        epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd` (call before closing it).
    package func unwatch(_ fd: Int32) {
        guard watches.removeValue(forKey: fd) != nil else { return }
        epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
    }

    // MARK: Timers

    /// Runs `action` once at `deadlineMs` on CLOCK_MONOTONIC (at once if it has passed).
    @discardableResult
    package func schedule(atMs deadlineMs: Double, _ action: @escaping () -> Void) -> TimerID {
        let id = nextTimerID
        nextTimerID += 1
        timers.append(Timer(id: id, deadlineMs: deadlineMs, action: action))
        return TimerID(value: id)
    }

    /// Cancels a timer that has not fired yet (no effect otherwise).
    package func cancel(_ timer: TimerID?) {
        guard let timer, let index = timers.firstIndex(where: { $0.id == timer.value }) else { return }
        timers.swapAt(index, timers.count - 1)
        timers.removeLast()
    }

    /// The number of timers scheduled and not yet fired.
    package var pendingTimers: Int { timers.count }

    // MARK: Signals

    /// Blocks `signals` and delivers them to `handler` through a signalfd.
    package func handleSignals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws(SystemError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        guard pthread_sigmask(SIG_BLOCK, &mask, nil) == 0 else { throw SystemError("pthread_sigmask") }
        let fd = signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        guard fd >= 0 else { throw SystemError("signalfd") }
        signalFD = fd
        signalHandler = handler
        watch(fd, for: .readable) { [unowned self] _ in self.readSignals() }
    }

    private func readSignals() {
        var info = signalfd_siginfo()
        while read(signalFD, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            signalHandler?(Int32(info.ssi_signo))
        }
    }

    // MARK: Running

    /// Dispatches events until `stop()`.
    package func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while running {
            runDueTimers()
            guard running else { break }
            armTimerFD()
            // glibc 2.41 (Debian 13) declares the event buffer non-null, older ones optional.
            let n = events.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return Int32(-1) }
                return epoll_wait(epollFD, base, Int32(buffer.count), -1)
            }
            wakeups += 1
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            for i in 0..<Int(n) {
                let data = events[i].data.u64
                let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: data))
                if fd == timerFD {
                    // Not read: re-arming (or disarming) it in armTimerFD clears the
                    // expiration, one system call instead of two per timer.
                    timerExpired = true
                    continue
                }
                let generation = UInt32(truncatingIfNeeded: data >> 32)
                // The fd may have been closed and reused by an earlier handler in this batch.
                guard let watch = watches[fd], watch.generation == generation else { continue }
                let started = MonotonicClock.nowMs()
                watch.handler(Events(rawValue: events[i].events))
                noteDuration(since: started, "fd \(fd)")
                if !running { break }
            }
        }
    }

    private func noteDuration(since started: Double, _ what: @autoclosure () -> String) {
        let ms = MonotonicClock.nowMs() - started
        if ms > EventLoop.stallMs, let onStall { onStall(ms, what()) }
    }

    /// Makes `run()` return after the current callback.
    package func stop() {
        running = false
    }

    /// Runs the timers due now that existed before this pass, so a timer that
    /// schedules another for "now" cannot keep the loop from polling its fds.
    /// Allocates nothing: it runs on every wakeup.
    private func runDueTimers() {
        let existing = nextTimerID
        while true {
            let now = MonotonicClock.nowMs()
            var due: Int?
            var dueDeadline = Double.infinity
            for index in timers.indices {
                let deadline = timers[index].deadlineMs
                if timers[index].id < existing, deadline <= now, due == nil || deadline < dueDeadline {
                    due = index
                    dueDeadline = deadline
                }
            }
            guard let due else { return }
            timers.swapAt(due, timers.count - 1)
            let timer = timers.removeLast()
            timer.action()
            noteDuration(since: now, "timer")
            if !running { return }
        }
    }

    /// The latest deadline the timerfd is armed for, in seconds of CLOCK_MONOTONIC.
    static let farFutureSeconds = 1e9

    private func armTimerFD() {
        var earliest: Double?
        for timer in timers where earliest.map({ timer.deadlineMs < $0 }) ?? true { earliest = timer.deadlineMs }
        guard earliest != armedDeadline || timerExpired else { return }
        armedDeadline = earliest
        timerExpired = false
        var spec = itimerspec()
        if let deadline = earliest {
            // A deadline beyond ~30 years (a trace time of 1e300 ms, a replay
            // speed of 1e-300) is "never": clamped, never a trap in Int(_:).
            let seconds = min(max((deadline / 1000).rounded(.down), 0), EventLoop.farFutureSeconds)
            spec.it_value.tv_sec = Int(seconds)
            let nanoseconds = ((deadline - seconds * 1000) * 1_000_000).rounded(.down)
            spec.it_value.tv_nsec = nanoseconds.isFinite ? Int(min(max(nanoseconds, 1), 999_999_999)) : 1
        }
        timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }
}

/// A failed system call, with errno's text.
package struct SystemError: Error, Sendable, CustomStringConvertible {
    package var call: String
    package var code: Int32
    /// A failure of `call` with the current errno.
    package init(_ call: String) {
        self.call = call
        self.code = errno
    }

    package init(_ call: String, code: Int32) {
        self.call = call
        self.code = code
    }
    package var description: String { "\(call): \(String(cString: strerror(code)))" }
}
