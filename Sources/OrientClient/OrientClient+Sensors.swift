public import OrientProtocol

extension OrientClient {
    /// The light and proximity sensors (`watch-sensors`, docs/protocol.md): a
    /// stream that gives the current reading of each sensor in `sensors` (or
    /// that it is absent) first, then every change, across reconnects, until
    /// the consumer stops iterating.
    ///
    /// ```swift
    /// for await reading in try await client.sensors([.proximity]) {
    ///     if reading.near == true { dimTheScreen() }
    /// }
    /// ```
    ///
    /// A reading equal to the last one given is not given again. A consumer
    /// that falls behind keeps the newest 64 readings. Throws `.server` with
    /// `not-permitted` when the daemon's `sensors-permission` refuses this
    /// client, and with `unknown-op` from a daemon too old to have sensors.
    public func sensors(_ sensors: Set<EnvironmentSensor>) async throws(OrientClientError) -> AsyncStream<SensorMessage> {
        let id = nextObserverID()
        let (stream, continuation) = AsyncStream.makeStream(of: SensorMessage.self, bufferingPolicy: .bufferingNewest(64))
        continuation.onTermination = { _ in _ = self.mailbox.post(.removeSensorSubscriber(id)) }
        let ready = await withCheckedContinuation { (waiter: CheckedContinuation<Result<Void, OrientClientError>, Never>) in
            let command = EngineCommand.addSensorSubscriber(id, sensors, continuation) { waiter.resume(returning: $0) }
            if !mailbox.post(command) { command.fail(unavailable) }
        }
        switch ready {
        case .success: return stream
        case .failure(let error):
            continuation.finish()
            throw error
        }
    }
}
