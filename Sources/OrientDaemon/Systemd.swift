#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// systemd's side of the daemon: readiness and status notifications, the
/// watchdog, and socket activation. Without systemd (no NOTIFY_SOCKET, no
/// LISTEN_FDS) each call is a cheap no-op.
///
/// These are the documented environment protocols of sd_notify(3),
/// sd_listen_fds(3) and sd_watchdog_enabled(3), spoken directly rather than
/// through libsystemd: linking libsystemd maps it and five compression and
/// crypto libraries into the daemon (about 1 MiB resident) for four calls.
public enum Systemd {
    /// The first fd systemd passes (`SD_LISTEN_FDS_START`).
    static let listenFdsStart: Int32 = 3

    /// The listening socket systemd passed (socket activation), if the first
    /// fd it passed is a Unix stream socket in listening state. Unsets LISTEN_PID,
    /// LISTEN_FDS and LISTEN_FDNAMES so children do not inherit them.
    public static func activationSocket() -> Int32? {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        // The fds are for this process only when LISTEN_PID names it.
        guard let pid = environmentInteger("LISTEN_PID"), pid == UInt64(getpid()),
            let count = environmentInteger("LISTEN_FDS"), count >= 1, count < 1 << 16
        else { return nil }
        for fd in listenFdsStart..<listenFdsStart + Int32(count) { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return isListeningUnixStream(listenFdsStart) ? listenFdsStart : nil
    }

    /// Whether `fd` is a Unix stream socket in listening state.
    static func isListeningUnixStream(_ fd: Int32) -> Bool {
        var type: Int32 = 0, listening: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) == 0, type == Int32(SOCK_STREAM.rawValue) else { return false }
        size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) == 0, listening != 0 else { return false }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return ok == 0 && address.ss_family == sa_family_t(AF_UNIX)
    }

    /// The path a Unix socket is bound to (for logs), or nil.
    public static func socketPath(of fd: Int32) -> String? {
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

    /// Sends a notification (`READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`)
    /// as one datagram to NOTIFY_SOCKET (a path, or `@name` in the abstract
    /// namespace). Returns false without NOTIFY_SOCKET or when the send fails.
    @discardableResult
    public static func notify(_ state: String) -> Bool {
        guard let target = getenv("NOTIFY_SOCKET").map({ Array(String(cString: $0).utf8) }), !target.isEmpty,
            target[0] == UInt8(ascii: "/") || target[0] == UInt8(ascii: "@")
        else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // A path keeps its terminating NUL; an abstract name starts with NUL and has none.
        guard target.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (i, byte) in target.enumerated() { path[i] = byte }
            if target[0] == UInt8(ascii: "@") { path[0] = 0 }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        let length = socklen_t(pathOffset + target.count + (target[0] == UInt8(ascii: "@") ? 0 : 1))
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let message = Array(state.utf8)
        let sent = message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
        return sent == message.count
    }

    /// The watchdog interval in ms when systemd expects pings from this process
    /// (WATCHDOG_USEC, and WATCHDOG_PID naming this process when it is set).
    public static func watchdogIntervalMs() -> Double? {
        guard let usec = environmentInteger("WATCHDOG_USEC"), usec > 0 else { return nil }
        if getenv("WATCHDOG_PID") != nil {
            guard let pid = environmentInteger("WATCHDOG_PID"), pid == UInt64(getpid()) else { return nil }
        }
        return Double(usec) / 1000
    }

    /// True when stderr is connected to the journal (JOURNAL_STREAM names its
    /// device and inode), so log lines carry `<N>` priority prefixes.
    public static func stderrIsJournal() -> Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// An environment variable holding a decimal unsigned integer, or nil.
    private static func environmentInteger(_ name: String) -> UInt64? {
        getenv(name).flatMap { UInt64(String(cString: $0)) }
    }
}
