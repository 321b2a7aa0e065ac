#if canImport(Glibc)
import Glibc
#endif

extension OrientClient {
    /// The daemon's default socket (docs/protocol.md).
    public static let defaultSocketPath = "/run/orientd/orientd.sock"

    /// The environment variable that overrides the default socket path.
    public static let socketEnvironmentVariable = "ORIENTD_SOCKET"

    /// The socket path a client uses: `explicit` when given and not empty, else
    /// `environment` (the value of `ORIENTD_SOCKET`) when not empty, else
    /// `/run/orientd/orientd.sock`.
    ///
    /// ```swift
    /// OrientClient.resolveSocketPath(nil, environment: "/tmp/o.sock")  // "/tmp/o.sock"
    /// ```
    public static func resolveSocketPath(_ explicit: String?, environment: String?) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let environment, !environment.isEmpty { return environment }
        return defaultSocketPath
    }

    /// `ORIENTD_SOCKET` from the process environment, nil when unset.
    static func socketPathFromEnvironment() -> String? {
        guard let value = getenv(socketEnvironmentVariable) else { return nil }
        return String(cString: value)
    }
}
