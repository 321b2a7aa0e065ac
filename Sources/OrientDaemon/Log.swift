#if canImport(Glibc)
import Glibc
#endif

/// Severity of a log line, in syslog order.
package enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case error = 3, warning = 4, notice = 5, info = 6, debug = 7

    /// The name used by `--log-level` and in log lines.
    package var name: String {
        switch self {
        case .error: return "error"
        case .warning: return "warning"
        case .notice: return "notice"
        case .info: return "info"
        case .debug: return "debug"
        }
    }

    /// Parses a `--log-level` value.
    package init?(name: String) {
        guard let level = LogLevel.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    package static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue > b.rawValue }
}

/// Writes log lines to stderr (`orientd: warning: …`), one write(2) per line so
/// lines never interleave. Called only from the event loop's thread.
package struct Log: Sendable {
    /// Lines less severe than this are dropped.
    package var threshold: LogLevel
    /// Prefix lines with `<N>` (the syslog priority) for journald instead of
    /// `orientd: level:`; set when stderr is the journal (JOURNAL_STREAM).
    package var journal: Bool

    package init(threshold: LogLevel = .notice, journal: Bool = false) {
        self.threshold = threshold
        self.journal = journal
    }

    package func log(_ level: LogLevel, _ message: String) {
        guard level >= threshold else { return }
        // One line per message: a newline inside would start a line without a priority.
        let text = message.contains("\n") ? message.split(separator: "\n").joined(separator: " ") : message
        let line = journal ? "<\(level.rawValue)>\(text)\n" : "orientd: \(level.name): \(text)\n"
        writeAll(fd: 2, Array(line.utf8))
    }

    package func error(_ message: String) { log(.error, message) }
    package func warning(_ message: String) { log(.warning, message) }
    package func notice(_ message: String) { log(.notice, message) }
    package func info(_ message: String) { log(.info, message) }
    package func debug(_ message: String) { log(.debug, message) }
}

/// Writes every byte to `fd`, retrying on EINTR and short writes. Returns false on
/// any other error (EPIPE included; SIGPIPE is ignored by the daemon), and when a
/// write takes nothing (a sysfs attribute whose driver returns 0 would otherwise
/// spin the loop forever).
@discardableResult
package func writeAll(fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { buffer in
            write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
        }
        if n < 0 {
            if errno == EINTR { continue }
            return false
        }
        if n == 0 { return false }
        offset += n
    }
    return true
}
