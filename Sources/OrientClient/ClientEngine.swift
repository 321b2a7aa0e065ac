#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol

/// The client's event loop: owns the socket, the pending requests, the
/// subscribers and the live constraints, and runs on its own thread (`IOThread`).
///
/// Nothing here is shared: the public API talks to it only through the
/// `Mailbox`, and it answers through completions and stream continuations,
/// which are safe to call from any thread. The loop sleeps in `poll` until the
/// socket, the mailbox or a deadline (a reply timeout, the greeting, the next
/// reconnection attempt) needs it; with nothing to do it never wakes.
final class ClientEngine {
    enum Phase: Equatable {
        case disconnected
        /// Connected; the daemon's `hello` has not arrived yet.
        case awaitingHello(deadline: Double)
        case ready
    }

    /// What to do with the reply to a request this engine sent.
    enum PendingKind {
        /// A caller's request: complete with the reply.
        case caller(ReplyCompletion)
        case constrain(id: String, allow: [String], generation: UInt64, (@Sendable (Result<UInt64, OrientClientError>) -> Void))
        case release((@Sendable (Result<Void, OrientClientError>) -> Void)?)
        /// Re-registration after a reconnect: nothing waits for it.
        case reconstrain
        case subscribe
        case unsubscribe
        case samples
        /// `watch-sensors` with this set, sent by `reconcileSubscriptions`.
        case watchSensors(Set<EnvironmentSensor>)
    }

    struct Pending {
        var request: Request
        var kind: PendingKind
        /// When the request times out (infinity for the engine's own requests).
        var deadline: Double
    }

    struct StateSubscriber {
        var continuation: AsyncStream<StateMessage>.Continuation
        /// The last state given to this subscriber, so an unchanged state is not repeated.
        var last: StateMessage?
    }

    struct SampleSubscriber {
        var continuation: AsyncStream<Sample>.Continuation
        /// The base accelerometer's samples, for a consumer that asked for them.
        var base: AsyncStream<Sample>.Continuation?
        /// Waiting for the `samples` reply's metadata; nil once it was given.
        var header: (@Sendable (Result<Trace, OrientClientError>) -> Void)?
    }

    struct SensorSubscriber {
        var sensors: Set<EnvironmentSensor>
        var continuation: AsyncStream<SensorMessage>.Continuation
        /// Waiting for the `watch-sensors` reply; nil once it came.
        var ready: (@Sendable (Result<Void, OrientClientError>) -> Void)?
        /// The reading last given, per sensor, so a repeat (after a reconnect) is not given again.
        var last: [EnvironmentSensor: SensorMessage] = [:]
    }

    struct LiveConstraint {
        var id: String
        var allow: [String]
        var generation: UInt64
    }

    let mailbox: Mailbox
    let path: String
    let requestTimeoutMs: Double
    let initialBackoffMs: Double
    let maximumBackoffMs: Double

    var socket: Int32 = -1
    var phase = Phase.disconnected
    var readBuffer: [UInt8] = []
    var writeBuffer: [UInt8] = []
    var nextSeq: Int64 = 1
    var pending: [Int64: Pending] = [:]
    /// Caller requests made while waiting for `hello`; sent once it arrives.
    var queued: [(request: Request, kind: PendingKind)] = []
    var stateSubscribers: [UInt64: StateSubscriber] = [:]
    var sampleSubscribers: [UInt64: SampleSubscriber] = [:]
    var sensorSubscribers: [UInt64: SensorSubscriber] = [:]
    /// The sensors this connection's last answered `watch-sensors` watches.
    var serverSensors: Set<EnvironmentSensor> = []
    /// A `watch-sensors` is in flight: reconcile again once it is answered.
    var sensorsInFlight = false
    /// Told when the connection is ready and when it is lost (`connectionEvents()`).
    var connectionObservers: [UInt64: AsyncStream<ConnectionEvent>.Continuation] = [:]
    /// Constraints the daemon acknowledged, in registration order; re-registered
    /// with the same ids after a reconnect.
    var constraints: [LiveConstraint] = []
    var nextGeneration: UInt64 = 1
    /// `subscribe` was sent on this connection (and not undone by `unsubscribe`).
    var serverSubscribed = false
    /// `samples` was sent on this connection.
    var serverSamples = false
    /// The metadata of this connection's `samples` reply.
    var samplesHeader: Trace?
    /// The latest state the subscription delivered on this connection.
    var latestState: StateMessage?
    var backoffMs: Double
    var reconnectAt: Double?
    var running = true

    init(mailbox: Mailbox, path: String, options: OrientClient.Options) {
        self.mailbox = mailbox
        self.path = path
        requestTimeoutMs = max(1, options.requestTimeout.milliseconds)
        initialBackoffMs = max(1, options.initialReconnectDelay.milliseconds)
        maximumBackoffMs = max(initialBackoffMs, options.maximumReconnectDelay.milliseconds)
        backoffMs = initialBackoffMs
    }

    /// Whether anything must survive a dropped connection (so the engine reconnects).
    var needsConnection: Bool {
        !stateSubscribers.isEmpty || !sampleSubscribers.isEmpty || !sensorSubscribers.isEmpty || !constraints.isEmpty
    }

    // MARK: The loop

    func run() {
        while running {
            let polled = socket
            var fds = [pollfd(fd: mailbox.wakeFD, events: Int16(POLLIN), revents: 0)]
            if polled >= 0 {
                let wantWrite = !writeBuffer.isEmpty && phase != .disconnected
                fds.append(pollfd(fd: polled, events: Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            _ = poll(&fds, nfds_t(fds.count), pollTimeout())
            for command in mailbox.takeAll() {
                handle(command)
                if !running { break }
            }
            guard running else { break }
            if polled >= 0, socket == polled, fds[1].revents != 0 {
                readAvailable()
            }
            flushWrites()
            fireDeadlines()
            flushWrites()
        }
        finishAll()
    }

    /// Milliseconds until the nearest deadline, or -1 (sleep until woken).
    private func pollTimeout() -> Int32 {
        var nearest = Double.infinity
        if case .awaitingHello(let deadline) = phase { nearest = min(nearest, deadline) }
        if let reconnectAt { nearest = min(nearest, reconnectAt) }
        for entry in pending.values where entry.deadline < nearest { nearest = entry.deadline }
        guard nearest.isFinite else { return -1 }
        let wait = (nearest - MonotonicClock.nowMs()).rounded(.up)
        return Int32(max(0, min(wait, 3_600_000)))
    }

    private func fireDeadlines() {
        let now = MonotonicClock.nowMs()
        if case .awaitingHello(let deadline) = phase, now >= deadline {
            connectionLost(.unavailable("orientd at \(path) did not send its hello within \(formatMs(requestTimeoutMs))"))
        }
        let expired = pending.filter { $0.value.deadline <= now }.sorted { $0.key < $1.key }
        for (seq, entry) in expired {
            pending[seq] = nil
            fail(entry.kind, with: .timedOut("no reply to '\(entry.request.opName)' within \(formatMs(requestTimeoutMs))"))
        }
        if let at = reconnectAt, now >= at {
            reconnectAt = nil
            if needsConnection, phase == .disconnected { _ = connect() }
        }
    }

    /// On shutdown: fail everything still waiting and end every stream.
    private func finishAll() {
        let gone = OrientClientError.unavailable("the OrientClient was closed")
        for command in mailbox.closeQueue() { command.fail(gone) }
        if socket >= 0 {
            flushWrites()  // best effort: a release queued just before the shutdown
            close(socket)
            socket = -1
        }
        phase = .disconnected
        let entries = pending.sorted { $0.key < $1.key }.map(\.value)
        pending = [:]
        for entry in entries { fail(entry.kind, with: gone) }
        for entry in queued { fail(entry.kind, with: gone) }
        queued = []
        let states = stateSubscribers.values
        stateSubscribers = [:]
        for subscriber in states { subscriber.continuation.finish() }
        let samples = sampleSubscribers.values
        sampleSubscribers = [:]
        for subscriber in samples {
            subscriber.header?(.failure(gone))
            subscriber.continuation.finish()
            subscriber.base?.finish()
        }
        let sensors = sensorSubscribers.values
        sensorSubscribers = [:]
        for subscriber in sensors {
            subscriber.ready?(.failure(gone))
            subscriber.continuation.finish()
        }
        let observers = connectionObservers.values
        connectionObservers = [:]
        for observer in observers { observer.finish() }
    }

    // MARK: Connection

    /// Connects now (whatever the backoff says). On failure, schedules a retry
    /// when something needs the connection, and returns the error.
    func connect() -> OrientClientError? {
        switch UnixStream.connect(path: path) {
        case .success(let fd):
            socket = fd
            phase = .awaitingHello(deadline: MonotonicClock.nowMs() + requestTimeoutMs)
            readBuffer.removeAll()
            writeBuffer.removeAll()
            return nil
        case .failure(let error):
            scheduleReconnect()
            return error
        }
    }

    /// Makes sure a connection exists or is being greeted; the error when it cannot be made.
    func ensureConnection() -> OrientClientError? {
        phase == .disconnected ? connect() : nil
    }

    private func scheduleReconnect() {
        guard needsConnection, reconnectAt == nil else { return }
        reconnectAt = MonotonicClock.nowMs() + backoffMs
        backoffMs = min(backoffMs * 2, maximumBackoffMs)
    }

    /// The connection is gone: fail what was in flight, keep what must be
    /// re-registered, and schedule a reconnection if anything needs one.
    func connectionLost(_ error: OrientClientError) {
        if phase == .ready {
            for observer in connectionObservers.values { observer.yield(.lost(error)) }
        }
        if socket >= 0 { close(socket) }
        socket = -1
        phase = .disconnected
        readBuffer.removeAll()
        writeBuffer.removeAll()
        serverSubscribed = false
        serverSamples = false
        samplesHeader = nil
        latestState = nil
        serverSensors = []
        sensorsInFlight = false
        let entries = pending.sorted { $0.key < $1.key }.map(\.value)
        pending = [:]
        let waiting = queued
        queued = []
        for entry in entries { fail(entry.kind, with: error) }
        for entry in waiting { fail(entry.kind, with: error) }
        scheduleReconnect()
    }

    /// The greeting arrived: re-register what the previous connection held, then
    /// send what callers asked for meanwhile.
    func connectionReady() {
        phase = .ready
        for observer in connectionObservers.values { observer.yield(.connected) }
        backoffMs = initialBackoffMs
        reconnectAt = nil
        // Constraints first, so the subscription's first state already reflects them.
        for constraint in constraints {
            send(.constrain(id: constraint.id, allow: constraint.allow), kind: .reconstrain)
        }
        reconcileSubscriptions()
        let waiting = queued
        queued = []
        for entry in waiting { send(entry.request, kind: entry.kind) }
    }

    // MARK: Writing and reading

    /// Queues `request` with the next `seq` (or holds it until `hello` arrives).
    func submit(_ request: Request, kind: PendingKind) {
        switch phase {
        case .ready: send(request, kind: kind)
        case .awaitingHello: queued.append((request, kind))
        case .disconnected: fail(kind, with: .unavailable("not connected to orientd at \(path)"))
        }
    }

    func send(_ request: Request, kind: PendingKind) {
        let seq = nextSeq
        nextSeq += 1
        let internalRequest: Bool
        switch kind {
        case .reconstrain, .subscribe, .unsubscribe: internalRequest = true
        default: internalRequest = false
        }
        let deadline = internalRequest ? Double.infinity : MonotonicClock.nowMs() + requestTimeoutMs
        pending[seq] = Pending(request: request, kind: kind, deadline: deadline)
        writeBuffer.append(contentsOf: request.jsonLine(seq: seq).utf8)
        writeBuffer.append(0x0A)
    }

    private func flushWrites() {
        guard socket >= 0, phase != .disconnected, !writeBuffer.isEmpty else { return }
        var written = 0
        while written < writeBuffer.count {
            guard let n = UnixStream.send(socket, writeBuffer, from: written) else {
                let reason = UnixStream.errorText(errno)
                connectionLost(.unavailable("writing to orientd at \(path) failed: \(reason)"))
                return
            }
            if n == 0 { break }
            written += n
        }
        writeBuffer.removeFirst(written)
    }

    /// Longest line accepted from the daemon (its own lines are far shorter).
    static let maxLineBytes = 1 << 16

    private func readAvailable() {
        let fd = socket
        var chunk = [UInt8](repeating: 0, count: 16384)
        while socket == fd {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                readBuffer.append(contentsOf: chunk[0..<n])
                processLines(fd: fd)
                continue
            }
            if n < 0, errno == EINTR { continue }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
            let reason = n == 0 ? "orientd closed the connection" : "reading from orientd failed: \(UnixStream.errorText(errno))"
            connectionLost(.unavailable(reason))
            return
        }
    }

    private func processLines(fd: Int32) {
        var start = 0
        let buffer = readBuffer
        while socket == fd, let newline = buffer[start...].firstIndex(of: 0x0A) {
            let line = buffer[start..<newline]
            start = newline + 1
            handleLine(line)
        }
        guard socket == fd else { return }
        readBuffer.removeFirst(start)
        if readBuffer.count > ClientEngine.maxLineBytes {
            connectionLost(.protocol("orientd sent a line longer than \(ClientEngine.maxLineBytes) bytes"))
        }
    }

    private func formatMs(_ ms: Double) -> String {
        ms >= 1000 && ms.truncatingRemainder(dividingBy: 1000) == 0 ? "\(Int(ms / 1000)) s" : "\(Int(ms)) ms"
    }
}
