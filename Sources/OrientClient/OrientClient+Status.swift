public import OrientProtocol

extension OrientClient {
    /// What the daemon sees and why (`status`): its version and config file,
    /// the sensor and its mount matrix with the source, the natural geometry
    /// and z sign with their reasons, the consumers, the lock and the
    /// constraints in force with their holders. See docs/protocol.md, "status".
    ///
    /// ```swift
    /// let status = try await client.status()
    /// print(status.sensor?.device ?? "no accelerometer", status.mountMatrix.reason)
    /// ```
    ///
    /// Fails with `.protocol` when the reply is malformed (naming the member),
    /// and with `.server` (`unknown-op`) from a daemon too old to know `status`.
    public func status() async throws(OrientClientError) -> DaemonStatus {
        let reply = try await exchange(.status)
        guard case .status(let status, _) = reply else {
            throw .protocol("expected a status in reply to status, got \(reply.kindName)")
        }
        return status
    }
}
