#if canImport(Glibc)
import Glibc
#endif
public import OrientProtocol
import Synchronization

/// A connection to `orientd`, the screen-orientation daemon, for apps, shells
/// and tools (docs/protocol.md).
///
/// ```swift
/// import OrientClient
/// import OrientProtocol
///
/// let client = OrientClient()                      // $ORIENTD_SOCKET or /run/orientd/orientd.sock
/// let now = try await client.get()                 // one state
/// print(now.summary)
///
/// // Landscape only while the video plays.
/// let landscape = try await client.constrain(id: "player", allow: [.landscape])
/// // … later, when the player closes (or just drop the handle):
/// try await landscape.release()
///
/// // Lay out vertically in portrait and horizontally in landscape.
/// for await state in client.states() {            // the current state, then every change
///     let frames = AdaptiveStack.layout(
///         sizes: itemSizes, in: windowSize, axis: state.axis, alignment: .center, spacing: 8)
///     apply(frames)
/// }
/// ```
///
/// The client connects on first use and keeps one connection. When the
/// connection drops (the daemon restarts), requests in flight fail with
/// `.unavailable`, and the client reconnects with exponential backoff (50 ms
/// doubling to 2 s by default) as long as something needs the daemon: it then
/// subscribes again, re-registers every live constraint with the same id and
/// mask, and asks for samples again. Streams keep going across reconnects.
///
/// Thread safety: every method may be called from any task or thread. The
/// socket is served by one small dedicated thread per client, which sleeps in
/// `poll` while there is nothing to do. Streams and constraint handles keep the
/// client alive; when the last reference goes, the thread ends and the
/// connection closes (the daemon then drops the connection's constraints).
public final class OrientClient: Sendable {
    /// The socket this client connects to.
    public let socketPath: String
    /// Timeouts and reconnection pacing.
    public let options: Options
    let mailbox: Mailbox
    private let nextSubscriberID = Atomic<UInt64>(1)

    /// A client for the daemon at `socketPath`, else `$ORIENTD_SOCKET`, else
    /// `/run/orientd/orientd.sock`. Does not connect yet: the first call does.
    public init(socketPath: String? = nil, options: Options = Options()) {
        let path = OrientClient.resolveSocketPath(socketPath, environment: OrientClient.socketPathFromEnvironment())
        self.socketPath = path
        self.options = options
        let mailbox = Mailbox()
        self.mailbox = mailbox
        guard mailbox.startupFailure == nil else { return }
        let started = IOThread.start {
            ClientEngine(mailbox: mailbox, path: path, options: options).run()
        }
        if !started {
            for command in mailbox.closeQueue() { command.fail(.unavailable("cannot start the client's I/O thread")) }
        }
    }

    deinit {
        _ = mailbox.post(.shutdown)
    }

    // MARK: Requests

    /// The daemon's current state (`get`): a fresh reading if the sensor was idle.
    public func get() async throws(OrientClientError) -> StateMessage {
        let reply = try await exchange(.get)
        guard case .state(let state, _) = reply else {
            throw .protocol("expected a state in reply to get, got \(reply.kindName)")
        }
        return state
    }

    /// Locks the rotation (`lock`) to `target`: the current effective orientation
    /// or a named one. The daemon persists it across restarts; app constraints
    /// that exclude it still win. Throws `.server` with `not-permitted` when the
    /// daemon's lock policy forbids it.
    public func lock(_ target: LockTarget = .current) async throws(OrientClientError) {
        try expectOK(try await exchange(.lock(target)), op: "lock")
    }

    /// Unlocks the rotation (`unlock`).
    public func unlock() async throws(OrientClientError) {
        try expectOK(try await exchange(.unlock), op: "unlock")
    }

    /// Registers (or, for an id this client already uses, updates) the constraint
    /// `id`, allowing the orientations named in `allow` (the ``MaskName``s:
    /// `normal`, `left-up`, `bottom-up`, `right-up`, `portrait`, `landscape`,
    /// `all`, `all-but-upside-down`; `portrait`, `landscape` and
    /// `all-but-upside-down` resolve against the panel in the daemon).
    ///
    /// The constraint lives until the handle's `release()`, the handle's deinit,
    /// or a newer `constrain` with the same id (which takes over: the older
    /// handle then releases nothing). It is re-registered after reconnects.
    /// Unknown names fail with `.server` (`bad-argument`).
    public func constrain(id: String, allow: [String]) async throws(OrientClientError) -> ConstraintHandle {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<UInt64, OrientClientError>, Never>) in
            let command = EngineCommand.constrain(id: id, allow: allow) { continuation.resume(returning: $0) }
            if !mailbox.post(command) { command.fail(unavailable) }
        }
        switch result {
        case .success(let generation): return ConstraintHandle(id: id, allow: allow, generation: generation, client: self)
        case .failure(let error): throw error
        }
    }

    /// Registers the constraint `id` allowing the masks named in `allow`, as
    /// SwiftUI's `.supportedInterfaceOrientations(_:)` takes them: the daemon
    /// resolves `portrait` (the one upright portrait orientation), `landscape`
    /// and `all-but-upside-down` against the panel.
    ///
    /// ```swift
    /// let handle = try await client.constrain(id: "reader", allow: [.portrait])
    /// ```
    public func constrain(id: String, allow: [MaskName]) async throws(OrientClientError) -> ConstraintHandle {
        try await constrain(id: id, allow: allow.map(\.rawValue))
    }

    /// Registers the constraint `id` allowing exactly the orientations in `allow`
    /// (already resolved: for example a state's `allowed`).
    public func constrain(id: String, allow: OrientationMask) async throws(OrientClientError) -> ConstraintHandle {
        try await constrain(id: id, allow: allow.names)
    }

    // MARK: Streams

    /// The state as a stream (`subscribe`): the current state first, then every
    /// change, across reconnects, until the consumer stops iterating.
    ///
    /// A state is only yielded when its content (everything but `t_ms`) differs
    /// from the last one this stream yielded. A consumer that falls behind keeps
    /// the newest 32 states (the latest is never lost). While the daemon is
    /// unreachable the stream simply waits.
    public func states() -> AsyncStream<StateMessage> {
        let id = nextSubscriberID.wrappingAdd(1, ordering: .relaxed).oldValue
        let (stream, continuation) = AsyncStream.makeStream(of: StateMessage.self, bufferingPolicy: .bufferingNewest(32))
        continuation.onTermination = { _ in _ = self.mailbox.post(.removeStateSubscriber(id)) }
        if !mailbox.post(.addStateSubscriber(id, continuation)) { continuation.finish() }
        return stream
    }

    /// Raw sensor samples (`samples`), for recording and calibration: the trace
    /// metadata of the reply (`mountMatrix`, `rateHz`, `onChange`; no samples)
    /// and a stream of samples in m/s² in the **sensor frame** (before the mount
    /// matrix), until the consumer stops iterating. Requested again after a
    /// reconnect. A consumer that falls behind keeps the newest 4096 samples.
    ///
    /// ```swift
    /// let (header, samples) = try await client.samples()
    /// for await sample in samples { print(sample.tMs, sample.vector) }
    /// ```
    public func samples() async throws(OrientClientError) -> (header: Trace, stream: AsyncStream<Sample>) {
        let (header, stream, _) = try await samples(base: false)
        return (header, stream)
    }

    /// `samples()` with a 2-in-1's base accelerometer beside the display's:
    /// the header's `baseMountMatrix` and a `.base` column when the daemon
    /// reads one, and its samples (sensor frame) on `base`, which stays empty
    /// otherwise. Both streams end together.
    public func samplesWithBase() async throws(OrientClientError) -> (header: Trace, stream: AsyncStream<Sample>, base: AsyncStream<Sample>) {
        try await samples(base: true)
    }

    private func samples(base wanted: Bool) async throws(OrientClientError) -> (header: Trace, stream: AsyncStream<Sample>, base: AsyncStream<Sample>) {
        let id = nextSubscriberID.wrappingAdd(1, ordering: .relaxed).oldValue
        let (stream, continuation) = AsyncStream.makeStream(of: Sample.self, bufferingPolicy: .bufferingNewest(4096))
        let (base, baseContinuation) = AsyncStream.makeStream(of: Sample.self, bufferingPolicy: .bufferingNewest(4096))
        if !wanted { baseContinuation.finish() }
        continuation.onTermination = { _ in _ = self.mailbox.post(.removeSampleSubscriber(id)) }
        let header = await withCheckedContinuation { (waiter: CheckedContinuation<Result<Trace, OrientClientError>, Never>) in
            let command = EngineCommand.addSampleSubscriber(id, continuation, base: wanted ? baseContinuation : nil) {
                waiter.resume(returning: $0)
            }
            if !mailbox.post(command) { command.fail(unavailable) }
        }
        switch header {
        case .success(let trace): return (trace, stream, base)
        case .failure(let error):
            continuation.finish()
            baseContinuation.finish()
            throw error
        }
    }

    // MARK: Internals

    /// A fresh id for a stream's registration with the I/O thread.
    func nextObserverID() -> UInt64 {
        nextSubscriberID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// The error for a client whose I/O thread is gone or never started.
    var unavailable: OrientClientError {
        .unavailable(mailbox.startupFailure ?? "the client's I/O thread is not running")
    }

    /// Sends `request` and waits for its reply; error replies come back as failures.
    func exchange(_ request: Request) async throws(OrientClientError) -> ServerMessage {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ServerMessage, OrientClientError>, Never>) in
            let command = EngineCommand.request(request) { continuation.resume(returning: $0) }
            if !mailbox.post(command) { command.fail(unavailable) }
        }
        return try result.get()
    }

    private func expectOK(_ reply: ServerMessage, op: String) throws(OrientClientError) {
        guard case .ok = reply else { throw .protocol("expected ok in reply to \(op), got \(reply.kindName)") }
    }

    /// Releases a constraint registration and waits for the daemon's answer.
    func release(id: String, generation: UInt64) async throws(OrientClientError) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, OrientClientError>, Never>) in
            let command = EngineCommand.release(id: id, generation: generation) { continuation.resume(returning: $0) }
            if !mailbox.post(command) { command.fail(unavailable) }
        }
        try result.get()
    }

    /// Releases a constraint registration without waiting (a handle's deinit).
    func releaseInBackground(id: String, generation: UInt64) {
        _ = mailbox.post(.release(id: id, generation: generation, completion: nil))
    }
}
