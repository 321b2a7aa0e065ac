#if canImport(Glibc)
import Glibc
#endif
public import OrientSense

/// The persisted rotation lock in the state directory (`DIR/lock`: an
/// orientation name and a newline, or no file when unlocked).
public struct StateDirectory: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The default: `$STATE_DIRECTORY` under systemd, else /var/lib/orientd.
    public static func defaultPath(environment: [String: String]) -> String {
        if let dir = environment["STATE_DIRECTORY"], !dir.isEmpty {
            // systemd passes a colon-separated list when several are configured.
            return String(dir.split(separator: ":").first ?? Substring(dir))
        }
        return "/var/lib/orientd"
    }

    /// The persisted lock; nil when there is none. A corrupt file is reported
    /// through `warn` and treated as unlocked, never as an error.
    public func loadLock(warn: (String) -> Void) -> Orientation? {
        let file = path + "/lock"
        let bytes: [UInt8]
        do {
            bytes = try readFile(file, limit: 256)
        } catch {
            if errno != ENOENT { warn("\(file): cannot read the rotation lock (\(error.reason)); starting unlocked") }
            return nil
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
        guard let orientation = Orientation(name: text), orientation != .undefined else {
            warn("\(file):1: not an orientation name ('\(text.prefix(32))'); starting unlocked")
            return nil
        }
        return orientation
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }
}
