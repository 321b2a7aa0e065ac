#if canImport(Glibc)
import Glibc
#endif
package import OrientProtocol

/// The persisted rotation lock in the state directory (`DIR/lock`: an
/// orientation name and a newline, or no file when unlocked).
package struct StateDirectory: Sendable {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// The default: `$STATE_DIRECTORY` under systemd, else /var/lib/orientd.
    package static func defaultPath(environment: [String: String]) -> String {
        if let dir = environment["STATE_DIRECTORY"], !dir.isEmpty {
            // systemd passes a colon-separated list when several are configured.
            return String(dir.split(separator: ":").first ?? Substring(dir))
        }
        return "/var/lib/orientd"
    }

    /// The persisted lock; nil when there is none. A corrupt file is reported
    /// through `warn` and treated as unlocked, never as an error.
    package func loadLock(warn: (String) -> Void) -> Orientation? {
        loadLockRecord(warn: warn)?.orientation
    }

    /// The persisted lock and the uid that set it (for `lock-permission =
    /// same-user`). The file is the orientation name on the first line and,
    /// optionally, `owner=UID` on the second.
    ///
    /// Read without following a symlink and without blocking (a FIFO planted
    /// as the lock must not hang the start), from a directory that passed
    /// `open()`'s checks. What the file holds is never logged.
    package func loadLockRecord(warn: (String) -> Void) -> (orientation: Orientation, owner: UInt32?)? {
        let file = path + "/lock"
        let bytes: [UInt8]
        do {
            guard let dir = try open(create: false) else { return nil }
            defer { close(dir) }
            guard let read = try readLock(in: dir) else { return nil }
            bytes = read
        } catch {
            warn("\(error.reason); starting unlocked")
            return nil
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let text = String(lines.first ?? "").trimmingWhitespace()
        guard let orientation = Orientation(name: text), orientation != .undefined else {
            warn("\(file):1: not an orientation name; starting unlocked")
            return nil
        }
        var owner: UInt32?
        if lines.count > 1 {
            let second = String(lines[1]).trimmingWhitespace()
            if second.hasPrefix("owner=") { owner = UInt32(second.dropFirst(6)) }
        }
        return (orientation, owner)
    }

    /// The lock file's bytes (at most 256), nil when there is none: opened
    /// with O_NOFOLLOW and O_NONBLOCK, and read only if it is a regular file.
    private func readLock(in dir: Int32) throws(FileReadError) -> [UInt8]? {
        func failure(_ reason: String) -> FileReadError {
            FileReadError(reason: "\(path)/lock: cannot read the rotation lock (\(reason))")
        }
        let fd = openat(dir, "lock", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0, errno == ENOENT { return nil }
        guard fd >= 0 else { throw failure(errno == ELOOP ? "it is a symlink" : String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw failure("not a regular file") }
        var bytes = [UInt8](repeating: 0, count: 257)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n >= 0 else { throw failure(String(cString: strerror(errno))) }
        guard n <= 256 else { throw failure("larger than 256 bytes") }
        return Array(bytes[0..<n])
    }

    /// Opens the directory (O_NOFOLLOW: not through a symlink) and checks it
    /// is one only the daemon can write to: owned by the daemon's uid, and not
    /// writable by group or others. A missing directory is created 0700 when
    /// `create`, else nil is returned.
    func open(create: Bool) throws(FileReadError) -> Int32? {
        var fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0, errno == ENOENT {
            guard create else { return nil }
            guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
                throw FileReadError(reason: "cannot create the state directory \(path): \(String(cString: strerror(errno)))")
            }
            fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard fd >= 0 else {
            let reason = errno == ELOOP || errno == ENOTDIR ? "is a symlink or not a directory" : String(cString: strerror(errno))
            throw FileReadError(reason: "state directory \(path) \(reason)")
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw FileReadError(reason: "state directory \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_uid == geteuid() else {
            close(fd)
            throw FileReadError(
                reason: "state directory \(path) is owned by uid \(info.st_uid), not the daemon's uid \(geteuid()) "
                    + "(chown it, or use a directory of the daemon's own)")
        }
        guard info.st_mode & 0o022 == 0 else {
            close(fd)
            throw FileReadError(
                reason: "state directory \(path) is writable by group or others (mode \(String(info.st_mode & 0o7777, radix: 8)); "
                    + "it should be 0700)")
        }
        return fd
    }
}

extension StateDirectory {
    /// Persists the lock atomically: write a temp file, fsync it, rename it over
    /// `lock`, fsync the directory. nil removes the file. Creates the directory
    /// (0700) if needed. Every file is reached through the checked directory's
    /// fd; the temp file is created fresh (a stale one, or a symlink planted in
    /// its place, is removed first; O_EXCL|O_NOFOLLOW, 0600). Throws with the
    /// system's reason.
    package func saveLock(_ orientation: Orientation?, owner: UInt32? = nil) throws(FileReadError) {
        let file = path + "/lock"
        guard let dir = try open(create: true) else { return }
        defer { close(dir) }
        if let orientation {
            let temp = ".lock.tmp"
            unlinkat(dir, temp, 0)
            let fd = openat(dir, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw FileReadError(reason: "cannot write \(path)/\(temp): \(String(cString: strerror(errno)))") }
            let text = orientation.rawValue + "\n" + (owner.map { "owner=\($0)\n" } ?? "")
            let ok = writeAll(fd: fd, Array(text.utf8)) && fsync(fd) == 0
            close(fd)
            guard ok, renameat(dir, temp, dir, "lock") == 0 else {
                let reason = String(cString: strerror(errno))
                unlinkat(dir, temp, 0)
                throw FileReadError(reason: "cannot write \(file): \(reason)")
            }
        } else if unlinkat(dir, "lock", 0) != 0, errno != ENOENT {
            throw FileReadError(reason: "cannot remove \(file): \(String(cString: strerror(errno)))")
        }
        fsync(dir)
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
