public import OrientProtocol

/// Why an `OrientClient` call failed.
///
/// ```swift
/// do {
///     let state = try await client.get()
/// } catch .unavailable(let reason) {
///     print("orientd is not running: \(reason)")
/// } catch {
///     print(error)
/// }
/// ```
public enum OrientClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The daemon could not be reached, refused the connection, or the connection
    /// dropped while the request was in flight. The message names the socket and
    /// the system error.
    case unavailable(String)
    /// The daemon answered with a protocol `error` message (SPEC §7), e.g.
    /// `not-permitted` for a lock the configured policy forbids.
    case server(ProtocolError)
    /// The daemon sent something this client cannot understand (a malformed line,
    /// an unexpected reply, another protocol version).
    case `protocol`(String)
    /// No reply arrived within `OrientClient.Options.requestTimeout`.
    case timedOut(String)

    /// A message for people: what failed and why.
    public var description: String {
        switch self {
        case .unavailable(let reason): return "orientd unavailable: \(reason)"
        case .server(let error): return "orientd refused the request: \(error.description)"
        case .protocol(let reason): return "protocol error: \(reason)"
        case .timedOut(let reason): return "timed out: \(reason)"
        }
    }
}
