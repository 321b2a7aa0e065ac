extension OrientClient {
    /// Timeouts and reconnection pacing for an `OrientClient`.
    ///
    /// ```swift
    /// var options = OrientClient.Options()
    /// options.requestTimeout = .seconds(2)
    /// let client = OrientClient(options: options)
    /// ```
    public struct Options: Sendable, Equatable {
        /// How long a request waits for its reply (and a new connection for the
        /// daemon's `hello`) before failing with `.timedOut` (`.unavailable` for the
        /// greeting). Default 5 s.
        public var requestTimeout: Duration = .seconds(5)
        /// The first reconnection delay after the connection drops; it doubles after
        /// every failed attempt. Default 50 ms.
        public var initialReconnectDelay: Duration = .milliseconds(50)
        /// The longest reconnection delay. Default 2 s.
        public var maximumReconnectDelay: Duration = .seconds(2)

        /// The defaults: 5 s request timeout, reconnecting after 50 ms doubling to 2 s.
        public init() {}
    }
}

extension Duration {
    /// The duration in milliseconds, as a `Double`.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
