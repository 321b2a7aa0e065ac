package import OrientConfig

/// Loads the configuration file: the only place the config touches the file system.
package enum ConfigFile {
    /// Why a config file could not be used.
    package enum Failure: Error, Sendable, CustomStringConvertible {
        /// Missing or unreadable (sysexits 66).
        case unreadable(path: String, reason: String)
        /// Malformed (sysexits 78), with `file:line: message`.
        case invalid(ConfigError)

        package var description: String {
            switch self {
            case .unreadable(let path, let reason): return "\(path): cannot read configuration: \(reason)"
            case .invalid(let error): return error.description
            }
        }

        /// The sysexits code to exit with.
        package var exitCode: Int32 {
            switch self {
            case .unreadable: return 66
            case .invalid: return 78
            }
        }
    }

    /// Largest config file accepted, bytes.
    package static let maximumSize = 1 << 20

    /// Reads and parses `path`.
    package static func load(_ path: String) throws(Failure) -> (config: DaemonConfig, warnings: [String]) {
        let bytes: [UInt8]
        do {
            bytes = try readFile(path, limit: maximumSize)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        do {
            return try ConfigParser.parse(bytes, file: path)
        } catch {
            throw .invalid(error)
        }
    }
}

extension LogLevel {
    /// The daemon's log level for a config `log-level` value.
    package init(config level: DaemonConfig.LogLevel) {
        self = LogLevel(name: level.rawValue) ?? .notice
    }
}
