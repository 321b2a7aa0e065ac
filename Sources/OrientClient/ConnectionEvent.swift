/// The client's connection to the daemon came up or went down.
public enum ConnectionEvent: Sendable, Equatable {
    /// Connected and greeted: requests go through.
    case connected
    /// A working connection dropped (the daemon stopped or restarted); the client
    /// reconnects while something (a stream, a constraint) needs the daemon.
    case lost(OrientClientError)
}

extension OrientClient {
    /// When the connection comes up and goes down, for tools that say so
    /// (`orientctl watch`). Starts with `.connected` if the client is connected
    /// now. Observing alone does not connect or keep the client reconnecting:
    /// `states()`, `samples()` and live constraints do.
    ///
    /// ```swift
    /// for await event in client.connectionEvents() {
    ///     if case .lost(let why) = event { print("orientd went away: \(why)") }
    /// }
    /// ```
    public func connectionEvents() -> AsyncStream<ConnectionEvent> {
        let id = nextObserverID()
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionEvent.self, bufferingPolicy: .bufferingNewest(16))
        continuation.onTermination = { _ in _ = self.mailbox.post(.removeConnectionObserver(id)) }
        if !mailbox.post(.addConnectionObserver(id, continuation)) { continuation.finish() }
        return stream
    }
}
