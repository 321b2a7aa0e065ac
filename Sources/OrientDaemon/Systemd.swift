#if canImport(Glibc)
import Glibc
#endif
import CLinux
import CSystemd

/// Every libsystemd call of the daemon: readiness and status notifications,
/// the watchdog, and socket activation. Without systemd (no NOTIFY_SOCKET, no
/// LISTEN_FDS) each call is a cheap no-op.
package enum Systemd {
    /// The listening socket systemd passed (socket activation), if it passed
    /// exactly one Unix stream socket in listening state. Unsets LISTEN_FDS so
    /// children do not inherit it.
    package static func activationSocket() -> Int32? {
        let count = sd_listen_fds(1)
        guard count >= 1 else { return nil }
        let fd = SD_LISTEN_FDS_START
        guard sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else { return nil }
        return fd
    }

    /// The path a Unix socket is bound to (for logs), or nil.
    package static func socketPath(of fd: Int32) -> String? {
        var address = sockaddr_un()
        var size = socklen_t(MemoryLayout<sockaddr_un>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
        }
        guard ok == 0 else { return nil }
        return withUnsafeBytes(of: address.sun_path) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Sends a notification (`READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`).
    @discardableResult
    package static func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// The watchdog interval in ms when systemd expects pings from this process.
    package static func watchdogIntervalMs() -> Double? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return Double(usec) / 1000
    }

    /// True when stderr is connected to the journal (JOURNAL_STREAM names its
    /// device and inode), so log lines carry `<N>` priority prefixes.
    package static func stderrIsJournal() -> Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
