#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Setting up the listening socket at a path: the parent directory checked (or
/// created), a stale socket file from a dead daemon replaced but a live
/// server's left alone, the socket made 0666 by the umask at bind(2); and the
/// error when it cannot be.
extension SocketServer {
    /// The non-blocking listening fd for `path` (what `init(path:limits:loop:log:)` serves).
    static func listen(path: String, log: Log) throws(ServerError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else {
            throw ServerError("socket path '\(path)' must be 1 to \(capacity - 1) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let size = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        func bindable() throws(ServerError) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return }
            guard (info.st_mode & S_IFMT) == S_IFSOCK else {
                throw ServerError("\(path) exists and is not a socket; not replacing it")
            }
            // A socket file: live server, or stale from a daemon that died?
            let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            defer { close(probe) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, size) }
            }
            if connected == 0 { throw ServerError("another server is already listening on \(path)", exitCode: 69) }
            log.notice("removing stale socket \(path)")
            unlink(path)
        }
        try checkParentDirectory(of: path)
        try bindable()
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw ServerError("socket: \(String(cString: strerror(errno)))") }
        // Apps of any user connect (what each may do is checked per request), so
        // the socket is created 0666: by the umask in force at bind(2), never by
        // a chmod on the path, which would follow a symlink swapped in after it.
        let previousMask = umask(0o111)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        let bindErrno = errno
        umask(previousMask)
        guard bound == 0 else {
            close(fd)
            throw ServerError("cannot listen on \(path): \(String(cString: strerror(bindErrno)))")
        }
        guard Glibc.listen(fd, 128) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            unlink(path)
            throw ServerError("listen on \(path): \(message)")
        }
        return fd
    }

    /// Creates the socket's parent directory (0755) when it is missing, and
    /// refuses one that another user could swap the socket in: owned by neither
    /// root nor the daemon's uid, or writable by group or others without the
    /// sticky bit (/tmp is fine, a directory anyone may rename entries in is not).
    static func checkParentDirectory(of path: String) throws(ServerError) {
        guard let slash = path.lastIndex(of: "/") else { return }
        let dir = slash == path.startIndex ? "/" : String(path[..<slash])
        var info = stat()
        if stat(dir, &info) != 0 {
            guard errno == ENOENT else {
                throw ServerError("socket directory \(dir): \(String(cString: strerror(errno)))")
            }
            // Created 0755 whatever the umask (the socket must be reachable).
            let previousMask = umask(0o022)
            let made = mkdir(dir, 0o755)
            umask(previousMask)
            guard made == 0 || errno == EEXIST, stat(dir, &info) == 0 else {
                throw ServerError("cannot create the socket directory \(dir): \(String(cString: strerror(errno)))")
            }
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw ServerError("socket directory \(dir) is not a directory") }
        let owner = info.st_uid
        guard owner == 0 || owner == geteuid() else {
            throw ServerError(
                "socket directory \(dir) is owned by uid \(owner), neither root nor the daemon's uid \(geteuid()); "
                    + "not listening where another user could replace the socket")
        }
        let shared = info.st_mode & 0o022 != 0
        guard !shared || info.st_mode & S_ISVTX != 0 else {
            throw ServerError(
                "socket directory \(dir) is writable by \(info.st_mode & 0o002 != 0 ? "others" : "its group") without the sticky bit "
                    + "(mode \(String(info.st_mode & 0o7777, radix: 8))); not listening where another user could replace the socket")
        }
    }
}

/// The socket could not be set up.
package struct ServerError: Error, Sendable, CustomStringConvertible {
    package var description: String
    /// sysexits code for the daemon to exit with (69 unavailable, 73 cannot create).
    package var exitCode: Int32
    init(_ description: String, exitCode: Int32 = 73) {
        self.description = description
        self.exitCode = exitCode
    }
}
