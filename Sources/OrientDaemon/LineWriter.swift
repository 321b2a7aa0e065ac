/// A buffered writer of text lines to a file descriptor (stdout for `--print`).
///
/// Lines are collected and written in large chunks; `flush()` before any wait so
/// a reader sees each line as it happens.
package final class LineWriter {
    private let fd: Int32
    private var buffer: [UInt8] = []
    /// False once a write failed (the reader went away).
    package private(set) var isOpen = true

    package init(fd: Int32) {
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    /// Appends `line` and a newline; writes out when the buffer is large.
    package func write(_ line: String) {
        guard isOpen else { return }
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes out everything buffered.
    package func flush() {
        guard isOpen, !buffer.isEmpty else { return }
        isOpen = writeAll(fd: fd, buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
