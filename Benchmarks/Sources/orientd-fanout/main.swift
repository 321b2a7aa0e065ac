// Fan-out latency of a running orientd: N subscribers, one controller that
// toggles a constraint; for each toggle, the time from the controller's send to
// each subscriber's receipt of the resulting state line.
//
//   orientd-fanout --socket PATH --clients N [--toggles K] [--warmup W]
//                  [--gap-ms G] [--timeout-ms T] [--pid PID] [--threads R]
//                  [--receipt ready|read]
//
// Prints one JSON object (figures in ms) on stdout; scripts/bench/bench.py runs it.
// With ORIENTD_FANOUT_TRACE set it also prints each timed toggle's first and
// last receipt on stderr (which toggles make the tail: a late first receipt is a
// late daemon or reader wakeup, a late last one a fan-out interrupted).
//
// What is measured, exactly:
// - "Publish" is taken as the moment the controller sends its `constrain`
//   request (CLOCK_MONOTONIC just before send(2)): the daemon is a black box.
//   `from_send` therefore also holds the daemon's wakeup, the request's
//   decoding, the arbiter and the encoding of the state: an upper bound of
//   publish -> receipt. `from_first` measures from the first subscriber's
//   receipt of the same toggle instead: a lower bound (the publish came before).
// - Receipt (CLOCK_MONOTONIC, in one of R reader threads, each with its own
//   epoll over every R-th subscriber) is, with `--receipt ready` (the default),
//   the return of the epoll_wait(2) that reported the subscriber's socket
//   readable: the moment the line is in that subscriber's socket and the
//   subscriber knows it. The sockets are watched edge-triggered and not read
//   while the toggle is timed, so one reader observes a thousand sockets
//   without a recv(2) per socket delaying the observation of the next. Every
//   receipt is then checked: after the toggle the reader drains each socket,
//   and a receipt counts only if the socket held exactly the expected state
//   line (anything else is reported as `unverified` and counted missing), and
//   every socket is drained before the next toggle, so a readiness cannot
//   come from an older line. With `--receipt read` a receipt is instead when
//   recv(2) returned the line (one recv per ready socket, in turn): each
//   subscriber's figure then also holds the reader's reads of the sockets
//   ahead of it, a cost of the benchmark's one-thread-per-many-subscribers
//   design that no subscriber process would pay.
// - The readers compete with the daemon for the machine's cores, and they have
//   a cost of their own: `reader_floor` is how long they take to collect one
//   line from every subscriber when all the lines are already waiting (the
//   daemon was given 100 ms first). A fan-out figure near the floor is bounded
//   by the readers, not by the daemon. Timed at readiness, the floor is one
//   epoll_wait that returns every socket at once: about 0. The readers'
//   remaining cost is their wakeups and the harvesting of events while the
//   daemon writes, which no floor shows.
// - With --pid (the daemon's; it is single-threaded) it also reports the
//   daemon's on-CPU time per toggle (/proc/PID/schedstat across the timed
//   toggles): what a publish costs the daemon, whatever the scheduling.
#if canImport(Glibc)
import Glibc
#endif
import CBench

func die(_ message: String) -> Never {
    let text = "orientd-fanout: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

func nowNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func pause(_ ms: Double) {
    var ts = timespec(tv_sec: Int(ms / 1000), tv_nsec: Int((ms.truncatingRemainder(dividingBy: 1000)) * 1e6))
    var left = timespec()
    while nanosleep(&ts, &left) != 0 && errno == EINTR { ts = left }
}

// MARK: Arguments

struct Options {
    var socketPath = ""
    var clients = 1
    var toggles = 100
    var warmup = 3
    var gapMs = 10.0
    var timeoutMs = 5000.0
    var daemonPid = 0
    var threads = 1
    /// Receipt at the epoll readiness of the socket (verified afterwards), or at recv(2)'s return.
    var receiptAtRead = false
}

let options: Options = {
    var o = Options()
    var args = CommandLine.arguments.dropFirst()
    func value(_ name: String) -> String {
        guard let v = args.popFirst() else { die("\(name) needs a value") }
        return v
    }
    while let arg = args.popFirst() {
        switch arg {
        case "--socket": o.socketPath = value(arg)
        case "--clients": o.clients = Int(value(arg)) ?? -1
        case "--toggles": o.toggles = Int(value(arg)) ?? -1
        case "--warmup": o.warmup = Int(value(arg)) ?? -1
        case "--gap-ms": o.gapMs = Double(value(arg)) ?? -1
        case "--timeout-ms": o.timeoutMs = Double(value(arg)) ?? -1
        case "--pid": o.daemonPid = Int(value(arg)) ?? -1
        case "--threads": o.threads = Int(value(arg)) ?? -1
        case "--receipt":
            switch value(arg) {
            case "ready": o.receiptAtRead = false
            case "read": o.receiptAtRead = true
            default: die("--receipt is ready or read")
            }
        default: die("unknown argument \(arg)")
        }
    }
    if o.socketPath.isEmpty || o.clients < 1 || o.toggles < 1 || o.warmup < 0 || o.gapMs < 0 || o.timeoutMs <= 0
        || o.threads < 1 || o.daemonPid < 0
    {
        die("usage: orientd-fanout --socket PATH --clients N [--toggles K] [--warmup W] [--gap-ms G] "
            + "[--timeout-ms T] [--pid PID] [--threads R] [--receipt ready|read]")
    }
    o.threads = min(o.threads, o.clients)
    return o
}()

// 1,000 subscribers need more descriptors than a default soft limit of 1,024.
do {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

// MARK: Connections (setup: blocking, untimed)

func connectSocket(_ path: String) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    if fd < 0 { die("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    if bytes.count >= MemoryLayout.size(ofValue: address.sun_path) { die("socket path too long") }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, b) in bytes.enumerated() { raw[i] = b }
        raw[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    if result != 0 { die("connect \(path): \(String(cString: strerror(errno)))") }
    return fd
}

func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
        if n < 0 {
            if errno == EINTR { continue }
            die("send: \(String(cString: strerror(errno)))")
        }
        offset += n
    }
}

/// Reads lines from a blocking socket (setup and the controller's replies only).
final class LineReader {
    var buffer: [UInt8] = []
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    func line() -> String {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { die("orientd closed the connection (or error \(errno)) while setting up") }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}

func expect(_ line: String, startsWith prefix: String, _ what: String) {
    if !line.hasPrefix(prefix) { die("\(what): unexpected reply \(line)") }
}

let controller = connectSocket(options.socketPath)
let controllerReader = LineReader(fd: controller)
expect(controllerReader.line(), startsWith: "{\"type\":\"hello\"", "controller hello")

var subscribers: [Int32] = []
subscribers.reserveCapacity(options.clients)
for _ in 0..<options.clients {
    let fd = connectSocket(options.socketPath)
    let reader = LineReader(fd: fd)
    let hello = reader.line()
    if hello.contains("\"limit\"") { die("orientd refused a client: \(hello) (raise [limits] clients)") }
    expect(hello, startsWith: "{\"type\":\"hello\"", "subscriber hello")
    sendAll(fd, Array("{\"op\":\"subscribe\",\"seq\":1}\n".utf8))
    expect(reader.line(), startsWith: "{\"type\":\"state\",\"seq\":1", "subscribe")
    if !reader.buffer.isEmpty { die("unexpected data after the subscribe reply") }
    subscribers.append(fd)
}

// MARK: Readers

let targets = ["left-up", "right-up"]
let prefixes = targets.map { Array("{\"type\":\"state\",\"orientation\":\"\($0)\"".utf8) }

/// One reader thread's subscribers and what it saw. The main thread writes
/// `target`, `delayMs` and `deadlineNs` only while the readers wait at the start
/// barrier, and reads `receipt` and `unverified` only after the end barrier.
final class Reader: @unchecked Sendable {
    let fds: [Int32]
    let epollFD: Int32
    var pending: [[UInt8]]  // partial lines (rare: a state line comes in one send)
    var receipt: [UInt64]  // CLOCK_MONOTONIC ns of the target line, 0 = not yet
    var received = 0
    /// Receipts (readiness mode) dropped because the socket did not hold exactly the target line.
    var unverified = 0
    var target = 0
    var delayMs = 0.0
    var timeoutNs: UInt64 = 0
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
    let events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: 1024)

    init(fds: [Int32]) {
        self.fds = fds
        pending = [[UInt8]](repeating: [], count: fds.count)
        receipt = [UInt64](repeating: 0, count: fds.count)
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        if epollFD < 0 { die("epoll_create1") }
        for (index, fd) in fds.enumerated() {
            var event = epoll_event()
            // Readiness mode: edge-triggered, the sockets are read only after the timed part.
            event.events = EPOLLIN.rawValue | (options.receiptAtRead ? 0 : EPOLLET.rawValue)
            event.data.u64 = UInt64(index)
            if epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) != 0 { die("epoll_ctl") }
        }
    }

    /// Collects the target line from each of its subscribers, or gives up at the deadline.
    func collect() {
        for i in 0..<fds.count { receipt[i] = 0 }
        received = 0
        unverified = 0
        if delayMs > 0 { pause(delayMs) }
        if options.receiptAtRead {
            collectReading()
        } else {
            collectReadiness()
            verify()
        }
    }

    /// Waits for readiness: the number of events, or nil at the deadline.
    private func wait(until deadline: UInt64) -> Int? {
        while true {
            let now = nowNs()
            if now >= deadline { return nil }
            let waitMs = Int32(min(1000, (deadline - now) / 1_000_000 + 1))
            // glibc 2.41 (Debian 13) declares the event buffer non-null, older ones optional.
            let ready = epoll_wait(epollFD, events.baseAddress!, Int32(events.count), waitMs)
            if ready >= 0 { return Int(ready) }
            if errno != EINTR { die("epoll_wait") }
        }
    }

    /// Receipt = the return of the epoll_wait that reported the socket readable.
    private func collectReadiness() {
        let deadline = nowNs() + timeoutNs
        while received < fds.count {
            guard let ready = wait(until: deadline) else { return }
            let at = nowNs()
            for e in 0..<ready {
                let index = Int(events[e].data.u64)
                if receipt[index] == 0 {
                    receipt[index] = at
                    received += 1
                }
            }
        }
    }

    /// Reads every socket dry; keeps a receipt only if the socket held exactly
    /// the target line, so that the readiness it was timed by was that line's.
    private func verify() {
        let prefix = prefixes[target]
        let base = chunk.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for index in 0..<fds.count {
            var total = 0
            var lines = 0
            var isTarget = false
            var endsWithNewline = false
            while true {
                let got = recv(fds[index], chunk.baseAddress, chunk.count, Int32(MSG_DONTWAIT))
                if got == 0 { die("orientd closed a subscriber") }
                if got < 0 {
                    if errno == EINTR { continue }
                    break
                }
                if total == 0 {
                    isTarget = got >= prefix.count && memcmp(base, prefix, prefix.count) == 0
                }
                var at = 0
                while at < got, let nl = memchr(base + at, 0x0A, got - at) {
                    lines += 1
                    at = base.distance(to: nl.assumingMemoryBound(to: UInt8.self)) + 1
                }
                endsWithNewline = base[got - 1] == 0x0A
                total += got
            }
            let exact = lines == 1 && isTarget && endsWithNewline
            if receipt[index] != 0, !exact {
                receipt[index] = 0
                received -= 1
                unverified += 1
            }
        }
        // Edges left over from the reads above must not time the next toggle.
        _ = epoll_wait(epollFD, events.baseAddress!, Int32(events.count), 0)
    }

    /// Receipt = the return of recv(2) with the line, one socket after the other.
    private func collectReading() {
        let deadline = nowNs() + timeoutNs
        let prefix = prefixes[target]
        let base = chunk.baseAddress!.assumingMemoryBound(to: UInt8.self)
        while received < fds.count {
            guard let ready = wait(until: deadline) else { return }
            for e in 0..<ready {
                let index = Int(events[e].data.u64)
                let got = recv(fds[index], chunk.baseAddress, chunk.count, Int32(MSG_DONTWAIT))
                let at = nowNs()
                if got == 0 { die("orientd closed a subscriber") }
                if got < 0 { continue }
                if pending[index].isEmpty {
                    // Fast path, no copy: whole lines straight from the chunk.
                    var start = 0
                    while start < got, let nl = memchr(base + start, 0x0A, got - start) {
                        let j = base.distance(to: nl.assumingMemoryBound(to: UInt8.self))
                        if j - start >= prefix.count, memcmp(base + start, prefix, prefix.count) == 0, receipt[index] == 0 {
                            receipt[index] = at
                            received += 1
                        }
                        start = j + 1
                    }
                    if start < got { pending[index].append(contentsOf: UnsafeBufferPointer(start: base + start, count: got - start)) }
                } else {
                    pending[index].append(contentsOf: UnsafeBufferPointer(start: base, count: got))
                    while let nl = pending[index].firstIndex(of: 0x0A) {
                        let isTarget = nl >= prefix.count && pending[index][..<prefix.count].elementsEqual(prefix)
                        pending[index].removeSubrange(...nl)
                        if isTarget, receipt[index] == 0 {
                            receipt[index] = at
                            received += 1
                        }
                    }
                }
            }
        }
    }
}

/// What the threads share: the readers, two barriers, and the stop flag (set
/// only between rounds).
final class Shared: @unchecked Sendable {
    let readers: [Reader]
    let start = UnsafeMutablePointer<pthread_barrier_t>.allocate(capacity: 1)
    let end = UnsafeMutablePointer<pthread_barrier_t>.allocate(capacity: 1)
    var stop = false
    init(readers: [Reader]) {
        self.readers = readers
        pthread_barrier_init(start, nil, UInt32(readers.count + 1))
        pthread_barrier_init(end, nil, UInt32(readers.count + 1))
    }
}

final class ThreadContext: @unchecked Sendable {
    let shared: Shared
    let reader: Reader
    init(shared: Shared, reader: Reader) {
        self.shared = shared
        self.reader = reader
    }
}

let shared = Shared(readers: (0..<options.threads).map { r in
    Reader(fds: stride(from: r, to: subscribers.count, by: options.threads).map { subscribers[$0] })
})
/// A reader thread's body: one `collect` per round, between the barriers. (A
/// global function: a closure written in top-level code would be main-actor
/// isolated, and the runtime's isolation check would stop this thread.)
func readerThread(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let context = Unmanaged<ThreadContext>.fromOpaque(raw!).takeRetainedValue()
    while true {
        pthread_barrier_wait(context.shared.start)
        if context.shared.stop { return nil }
        context.reader.collect()
        pthread_barrier_wait(context.shared.end)
    }
}

for reader in shared.readers {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(ThreadContext(shared: shared, reader: reader)).toOpaque()
    let status = pthread_create(&thread, nil, readerThread, context)
    if status != 0 { die("pthread_create: \(status)") }
}

// MARK: Toggling

var seq = 1
/// Receipts dropped because the socket did not hold exactly the expected line (see the top).
var unverified = 0

/// One toggle: constrain to `targets[which]`; the readers collect every
/// subscriber's state line (or time out). Returns the send time and the
/// receipts (0: none, or not verified).
@MainActor func toggle(_ which: Int, readAfterMs: Double = 0) -> (sent: UInt64, receipts: [UInt64]) {
    seq += 1
    let request = Array("{\"op\":\"constrain\",\"id\":\"bench\",\"allow\":[\"\(targets[which])\"],\"seq\":\(seq)}\n".utf8)
    for reader in shared.readers {
        reader.target = which
        reader.delayMs = readAfterMs
        reader.timeoutNs = UInt64(options.timeoutMs * 1e6)
    }
    pthread_barrier_wait(shared.start)
    let sent = nowNs()
    let n = request.withUnsafeBytes { send(controller, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    if n != request.count { die("controller send") }
    pthread_barrier_wait(shared.end)
    // The controller's `ok` (it does not subscribe, so that is all it gets).
    expect(controllerReader.line(), startsWith: "{\"type\":\"ok\",\"seq\":\(seq)", "constrain")
    var receipts = shared.readers.flatMap(\.receipt)
    unverified += shared.readers.reduce(0) { $0 + $1.unverified }
    // A receipt before the send cannot be this toggle's line.
    for i in receipts.indices where receipts[i] != 0 && receipts[i] < sent {
        receipts[i] = 0
        unverified += 1
    }
    return (sent, receipts)
}

/// The daemon's on-CPU ns so far (first field of /proc/PID/schedstat), or nil.
func daemonCpuNs() -> UInt64? {
    guard options.daemonPid > 0 else { return nil }
    let fd = open("/proc/\(options.daemonPid)/schedstat", O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 128)
    let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard n > 0 else { return nil }
    return UInt64(String(decoding: bytes[..<n].prefix { $0 != 0x20 }, as: UTF8.self))
}

// The first toggle moves away from whatever the state was; warm-up toggles are
// not counted.
var which = 0
for _ in 0..<(options.warmup + 1) {
    _ = toggle(which)
    which ^= 1
    pause(options.gapMs)
}

var fromSend: [Double] = []
var fromFirst: [Double] = []
var firstReceipt: [Double] = []  // per toggle: send -> first subscriber
var lastReceipt: [Double] = []  // per toggle: send -> last subscriber (the whole fan-out)
var missing = 0
unverified = 0  // the warm-up's do not count
let cpuBefore = daemonCpuNs()
for _ in 0..<options.toggles {
    let (sent, receipts) = toggle(which)
    which ^= 1
    let times = receipts.filter { $0 != 0 }
    missing += options.clients - times.count
    if let first = times.min(), let last = times.max() {
        for r in times {
            fromSend.append(Double(r - sent) / 1e6)
            fromFirst.append(Double(r - first) / 1e6)
        }
        firstReceipt.append(Double(first - sent) / 1e6)
        lastReceipt.append(Double(last - sent) / 1e6)
        if getenv("ORIENTD_FANOUT_TRACE") != nil {
            let text = "toggle \(firstReceipt.count): first \(Double(first - sent) / 1e6) ms, last \(Double(last - sent) / 1e6) ms\n"
            _ = text.withCString { write(2, $0, strlen($0)) }
        }
    }
    pause(options.gapMs)
}
let cpuAfter = daemonCpuNs()
let unverifiedTimed = unverified

// The readers' own floor: every line is already waiting when they start.
var readerFloor: [Double] = []
for _ in 0..<3 {
    let (_, receipts) = toggle(which, readAfterMs: 100)
    which ^= 1
    let times = receipts.filter { $0 != 0 }
    if let first = times.min(), let last = times.max() { readerFloor.append(Double(last - first) / 1e6) }
    pause(options.gapMs)
}

shared.stop = true
pthread_barrier_wait(shared.start)

// MARK: Report

func percentile(_ values: [Double], _ p: Double) -> Double {
    if values.isEmpty { return .nan }
    let sorted = values.sorted()
    let rank = max(1, Int((p * Double(sorted.count)).rounded(.up)))
    return sorted[min(rank, sorted.count) - 1]
}

func number(_ x: Double) -> String {
    x.isNaN ? "null" : "\((x * 1000).rounded() / 1000)"
}

func summary(_ values: [Double]) -> String {
    "{\"n\":\(values.count),\"p50\":\(number(percentile(values, 0.5))),\"p90\":\(number(percentile(values, 0.9))),"
        + "\"p99\":\(number(percentile(values, 0.99))),\"max\":\(number(values.max() ?? .nan))}"
}

var cpuPerToggle = "null"
if let before = cpuBefore, let after = cpuAfter {
    cpuPerToggle = number(Double(after - before) / 1e6 / Double(options.toggles))
}
let report = "{\"clients\":\(options.clients),\"toggles\":\(options.toggles),\"threads\":\(options.threads),"
    + "\"receipt\":\"\(options.receiptAtRead ? "read" : "ready")\",\"missing\":\(missing),\"unverified\":\(unverifiedTimed),\"from_send_ms\":\(summary(fromSend)),\"from_first_ms\":\(summary(fromFirst)),"
    + "\"first_receipt_ms\":\(summary(firstReceipt)),\"last_receipt_ms\":\(summary(lastReceipt)),"
    + "\"daemon_cpu_ms_per_toggle\":\(cpuPerToggle),\"reader_floor_ms\":\(summary(readerFloor))}\n"
_ = report.withCString { write(1, $0, strlen($0)) }
// Subscribers first: closing the controller first would drop its constraint and
// publish once more to a thousand closing sockets.
for fd in subscribers { close(fd) }
close(controller)
