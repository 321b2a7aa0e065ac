import OrientProtocol

/// Completes a request with the daemon's reply (a `state`, `ok` or `error`
/// message already turned into a failure) or the reason it failed.
typealias ReplyCompletion = @Sendable (Result<ServerMessage, OrientClientError>) -> Void

/// What the public API asks the I/O thread to do. Every command that carries a
/// completion has it called exactly once.
enum EngineCommand: Sendable {
    /// `get`, `lock`, `unlock`: send, complete with the reply.
    case request(Request, completion: ReplyCompletion)
    /// Register or update a constraint; completes with the generation the handle keeps.
    case constrain(id: String, allow: [String], completion: @Sendable (Result<UInt64, OrientClientError>) -> Void)
    /// Release the constraint `id` if `generation` is still its latest registration.
    /// A nil completion is fire-and-forget (a handle's deinit).
    case release(id: String, generation: UInt64, completion: (@Sendable (Result<Void, OrientClientError>) -> Void)?)
    case addStateSubscriber(UInt64, AsyncStream<StateMessage>.Continuation)
    case removeStateSubscriber(UInt64)
    /// A samples consumer; `header` completes with the trace metadata of the `samples` reply.
    case addSampleSubscriber(
        UInt64, AsyncStream<Sample>.Continuation, base: AsyncStream<Sample>.Continuation?,
        header: @Sendable (Result<Trace, OrientClientError>) -> Void)
    case removeSampleSubscriber(UInt64)
    /// A consumer of the readings of `sensors`; `ready` completes with the
    /// `watch-sensors` reply (the readings then come on the stream).
    case addSensorSubscriber(
        UInt64, Set<EnvironmentSensor>, AsyncStream<SensorMessage>.Continuation,
        ready: @Sendable (Result<Void, OrientClientError>) -> Void)
    case removeSensorSubscriber(UInt64)
    /// Someone who wants to hear when the connection comes and goes.
    case addConnectionObserver(UInt64, AsyncStream<ConnectionEvent>.Continuation)
    case removeConnectionObserver(UInt64)
    /// The client is gone: fail what is left and stop the thread.
    case shutdown

    /// Completes the command's callbacks with `error` (a command that will never run).
    func fail(_ error: OrientClientError) {
        switch self {
        case .request(_, let completion): completion(.failure(error))
        case .constrain(_, _, let completion): completion(.failure(error))
        case .release(_, _, let completion): completion?(.success(()))
        case .addStateSubscriber(_, let continuation): continuation.finish()
        case .addSampleSubscriber(_, let continuation, let base, let header):
            header(.failure(error))
            continuation.finish()
            base?.finish()
        case .addSensorSubscriber(_, _, let continuation, let ready):
            ready(.failure(error))
            continuation.finish()
        case .addConnectionObserver(_, let continuation): continuation.finish()
        case .removeStateSubscriber, .removeSampleSubscriber, .removeSensorSubscriber, .removeConnectionObserver, .shutdown:
            break
        }
    }
}
