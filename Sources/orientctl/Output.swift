#if canImport(Glibc)
import Glibc
#endif

/// Writes with write(2): unbuffered, so every line is out when the call returns
/// (no C `stdout`/`stderr` globals, which Swift 6 forbids).
enum Output {
    /// Writes all of `text` to `fd`; false with `errno` set when the write fails.
    @discardableResult
    static func write(_ text: String, to fd: Int32) -> Bool {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        bytes.removeAll()
        return true
    }

    /// `text` and a newline on standard output; false when the write failed.
    @discardableResult
    static func line(_ text: String) -> Bool {
        write(text + "\n", to: 1)
    }

    /// `orientctl: ` + `text` and a newline on standard error.
    static func error(_ text: String) {
        write("orientctl: " + text + "\n", to: 2)
    }
}
