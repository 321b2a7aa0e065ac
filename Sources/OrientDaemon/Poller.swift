#if canImport(Glibc)
import Glibc
#endif
import CLinux
import OrientProtocol
import OrientSensors
import Synchronization

/// Polls one device: at each interval a read runs on the poller's own thread
/// and its result comes back to the loop, to `handle`. A driver may sleep in a
/// sysfs read (a HID sensor powering up sleeps in each `_raw` read for up to
/// twice its report interval), and on the loop's one thread that sleep would
/// hold up every other sensor, timer and client; here it delays only this
/// device's own next read.
///
/// One read at a time. The next is asked for an interval after the previous
/// one was (the interval `handle` returns), at once when that read took
/// longer: the cadence stays the device's own. What a read touches (its
/// attribute files) belongs to the thread, which opens, reads and closes it
/// there. `stop()` never waits: a read in flight ends on the thread, its result
/// is dropped, and the thread runs `finish` and exits. Where no thread can be
/// started (a task limit), the reads run on the loop, as before.
final class Poller<Reading: Sendable> {
    private let loop: EventLoop
    private let log: Log
    private var thread: PollerThread<Reading>?
    private var timer: EventLoop.TimerID?
    private var read: (@Sendable () -> Reading)?
    /// Without a thread, what the thread would run after its last read.
    private var finishHere: (@Sendable () -> Void)?
    private var handle: (Reading, Double) -> Double = { _, _ in 0 }
    /// When the read in flight was asked for; nil when none is.
    private var askedMs: Double?
    private var running = false

    init(loop: EventLoop, log: Log) {
        self.loop = loop
        self.log = log
    }

    deinit { stop() }

    /// Starts polling: `read` runs off the loop at once (unless `askNow` is
    /// false: then at the first `pollNow`) and then at the interval `handle`
    /// returns (ms, counted from when the read it handles was asked for;
    /// infinite: at the next `pollNow`); `handle` gets each reading on the
    /// loop with the time it came. `finish` runs on the thread after its
    /// last read (it closes what the reads opened). `name` names the thread
    /// (`ps -L`), at most 15 bytes.
    func start(
        name: String, askNow: Bool = true, read: @escaping @Sendable () -> Reading, finish: @escaping @Sendable () -> Void = {},
        handle: @escaping (_ reading: Reading, _ tMs: Double) -> Double
    ) {
        stop()
        self.read = read
        self.handle = handle
        running = true
        do {
            let thread = try PollerThread(read: read, finish: finish)
            try thread.spawn(name: name)
            self.thread = thread
            loop.watch(thread.doneFD, for: .readable) { [unowned self] _ in self.done() }
        } catch {
            log.warning("\(name): \(error); reading on the main thread (a slow read then delays the others)")
            finishHere = finish
        }
        if askNow { schedule(atMs: MonotonicClock.nowMs()) }
    }

    /// Whether a read is in flight.
    var isReading: Bool { askedMs != nil }

    /// A fixed interval: `handle` needs none.
    func start(
        name: String, intervalMs: Double, read: @escaping @Sendable () -> Reading, finish: @escaping @Sendable () -> Void = {},
        handle: @escaping (_ reading: Reading, _ tMs: Double) -> Void
    ) {
        start(name: name, read: read, finish: finish) { reading, t in
            handle(reading, t)
            return intervalMs
        }
    }

    /// The next read now, not at the end of the interval (none when one is in flight).
    func pollNow() {
        guard running, askedMs == nil else { return }
        schedule(atMs: MonotonicClock.nowMs())
    }

    private func schedule(atMs t: Double) {
        loop.cancel(timer)
        timer = loop.schedule(atMs: t) { [unowned self] in
            self.timer = nil
            self.ask()
        }
    }

    private func ask() {
        guard running, askedMs == nil else { return }
        askedMs = MonotonicClock.nowMs()
        if let thread {
            thread.ask()
        } else if let read {
            let reading = read()
            finished(reading)
        }
    }

    /// The thread's read is done: its reading to `handle`.
    private func done() {
        guard let thread, let reading = thread.take() else { return }
        finished(reading)
    }

    private func finished(_ reading: Reading) {
        guard running, let asked = askedMs else { return }
        askedMs = nil
        let interval = handle(reading, MonotonicClock.nowMs())
        // `handle` may have stopped the poller (the device is gone), or asked again.
        if running, timer == nil, interval.isFinite { schedule(atMs: asked + interval) }
    }

    /// Stops polling; the thread ends after any read in flight.
    func stop() {
        running = false
        loop.cancel(timer)
        timer = nil
        askedMs = nil
        if let thread {
            loop.unwatch(thread.doneFD)
            thread.end()
        }
        thread = nil
        finishHere?()
        finishHere = nil
    }
}

/// The thread of a `Poller`: it waits on an eventfd for the loop to ask, runs
/// the read, keeps its result and signals another eventfd the loop watches.
/// Both eventfds are closed by the thread as it exits (the loop has stopped
/// watching by then).
private final class PollerThread<Reading: Sendable>: Sendable {
    let doneFD: Int32
    private let askFD: Int32
    private let read: @Sendable () -> Reading
    private let finish: @Sendable () -> Void
    private let state = Mutex(State())

    private struct State {
        var asked = false
        var ending = false
        var reading: Reading?
    }

    /// The eventfds; `spawn` starts the thread.
    init(read: @escaping @Sendable () -> Reading, finish: @escaping @Sendable () -> Void) throws(SystemError) {
        self.read = read
        self.finish = finish
        let ask = eventfd(0, Int32(EFD_CLOEXEC))
        let done = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard ask >= 0, done >= 0 else {
            let error = SystemError("eventfd")
            if ask >= 0 { close(ask) }
            if done >= 0 { close(done) }
            throw error
        }
        askFD = ask
        doneFD = done
    }

    /// Starts the thread, named `name` (at most 15 bytes); on failure closes the eventfds.
    func spawn(name: String) throws(SystemError) {
        do {
            // A read and a parse: a small stack.
            try startThread(name: name, stackSize: 256 * 1024) { self.run() }
        } catch {
            close(askFD)
            close(doneFD)
            throw error
        }
    }

    /// Asks for one read (on the loop).
    func ask() {
        state.withLock { $0.asked = true }
        post(askFD)
    }

    /// The reading of the read asked for, once done (on the loop).
    func take() -> Reading? {
        var count: UInt64 = 0
        _ = Glibc.read(doneFD, &count, 8)
        return state.withLock { state in
            defer { state.reading = nil }
            return state.reading
        }
    }

    /// Ends the thread after any read in flight (on the loop, which has stopped watching `doneFD`).
    func end() {
        state.withLock { $0.ending = true }
        post(askFD)
    }

    private func run() {
        while true {
            var count: UInt64 = 0
            if Glibc.read(askFD, &count, 8) < 0, errno == EINTR { continue }
            let (asked, ending) = state.withLock { state in
                defer { state.asked = false }
                return (state.asked, state.ending)
            }
            if ending { break }
            guard asked else { continue }
            let reading = read()
            let endedMeanwhile = state.withLock { state in
                state.reading = reading
                return state.ending
            }
            if endedMeanwhile { break }
            post(doneFD)
        }
        finish()
        close(askFD)
        close(doneFD)
    }

    private func post(_ fd: Int32) {
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }
}

/// One malloc arena for the whole process; call before any thread starts.
/// glibc gives each thread that allocates an arena of its own (up to eight a
/// core) that keeps its pages: for a `Poller`'s few small allocations, one
/// shared arena is enough.
package func setSingleMallocArena() {
    _ = mallopt(M_ARENA_MAX, 1)
}

/// Starts a detached thread named `name` (at most 15 bytes, for `ps -L`) that runs `body`.
func startThread(name: String, stackSize: Int, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, stackSize)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let context = Unmanaged.passRetained(ThreadStart(body)).toOpaque()
    let created = pthread_create(&thread, &attributes, threadEntry, context)
    guard created == 0 else {
        Unmanaged<ThreadStart>.fromOpaque(context).release()
        throw SystemError("pthread_create", code: created)
    }
    _ = pthread_setname_np(thread, String(decoding: name.utf8.prefix(15), as: UTF8.self))
}

/// What a new thread runs (a C function pointer cannot come from a generic context).
private final class ThreadStart: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

private func threadEntry(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    Unmanaged<ThreadStart>.fromOpaque(context).takeRetainedValue().body()
    return nil
}

extension Poller where Reading == Result<[UInt8], SensorError> {
    /// Polls one sysfs attribute every `intervalMs`: the bytes of each read go
    /// through `parse`, and what it makes goes to `deliver`; a failed read is
    /// delivered as `.failed`, a text that does not parse is logged once
    /// (until a good one) and dropped. The attribute is the thread's from now
    /// on; it closes it at `stop()`.
    func start(
        reading attribute: SysfsAttribute, intervalMs: Double, sysname: String,
        parse: @escaping ([UInt8]) throws(AttributeError) -> SensorEvent, deliver: @escaping (SensorEvent) -> Void
    ) {
        let owned = ThreadOwned(attribute)
        var loggedGarbage = false
        start(
            name: sysname, intervalMs: intervalMs, read: { Result { () throws(SensorError) in try owned.value.readBytes() } },
            finish: { owned.value.close() }
        ) { reading, _ in
            let text: [UInt8]
            switch reading {
            case .success(let bytes): text = bytes
            case .failure(let error):
                deliver(.failed(error))
                return
            }
            do throws(AttributeError) {
                let event = try parse(text)
                loggedGarbage = false
                deliver(event)
            } catch {
                if !loggedGarbage { self.log.warning("\(sysname): \(error) (dropping such readings)") }
                loggedGarbage = true
            }
        }
    }
}

/// What a `Poller`'s reads use (attribute files), handed to its thread, which
/// alone touches it from then on: the loop keeps no other reference.
final class ThreadOwned<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
