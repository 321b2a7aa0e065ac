#if canImport(Glibc)
import Glibc
#endif

/// The few socket calls the client makes, with errors a user can act on.
enum UnixStream {
    /// Connects a non-blocking, close-on-exec stream socket to `path`.
    static func connect(path: String) -> Result<Int32, OrientClientError> {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else {
            return .failure(.unavailable("socket path '\(path)' must be 1 to \(capacity - 1) bytes without NUL"))
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let size = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { return .failure(.unavailable("cannot create a socket: \(errorText(errno))")) }
        var result: Int32
        repeat {
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) }
            }
        } while result != 0 && errno == EINTR
        guard result == 0 else {
            let code = errno
            close(fd)
            return .failure(.unavailable(connectFailure(path: path, errno: code)))
        }
        return .success(fd)
    }

    /// What a failed connect means, in words.
    static func connectFailure(path: String, errno code: Int32) -> String {
        switch code {
        case ENOENT: return "no socket at \(path) (is orientd running?)"
        case ECONNREFUSED:
            // connect(2) says ECONNREFUSED for a file that is not a socket at all.
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFSOCK {
                return "\(path) is not a socket (a \(fileKind(info.st_mode)); is --socket or $ORIENTD_SOCKET right?)"
            }
            return "nothing is listening on \(path) (is orientd running?)"
        case EACCES, EPERM: return "permission denied connecting to \(path)"
        case EAGAIN: return "orientd at \(path) is not accepting connections (its backlog is full)"
        case ENOTSOCK: return "\(path) is not a socket"
        default: return "cannot connect to \(path): \(errorText(code))"
        }
    }

    /// Writes as much of `bytes[offset...]` as the socket takes now. Returns the
    /// bytes written (0 when it would block), or nil with `errno` set on failure.
    static func send(_ fd: Int32, _ bytes: [UInt8], from offset: Int) -> Int? {
        while true {
            let n = bytes.withUnsafeBytes { buffer in
                Glibc.send(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n >= 0 { return n }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            return nil
        }
    }

    /// What kind of file a mode says, in words.
    static func fileKind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "regular file"
        case S_IFDIR: return "directory"
        case S_IFLNK: return "symbolic link"
        case S_IFIFO: return "FIFO"
        case S_IFCHR, S_IFBLK: return "device"
        default: return "file of another kind"
        }
    }

    /// The text of a system error number.
    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
