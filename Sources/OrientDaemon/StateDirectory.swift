#if canImport(Glibc)
import Glibc
#endif
import OrientSense
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
    package func loadLockRecord(warn: (String) -> Void) -> (orientation: Orientation, owner: UInt32?)? {
        let file = path + "/lock"
        let bytes: [UInt8]
        do {
            bytes = try readFile(file, limit: 256)
        } catch {
            if errno != ENOENT { warn("\(file): cannot read the rotation lock (\(error.reason)); starting unlocked") }
            return nil
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let text = String(lines.first ?? "").trimmingWhitespace()
        guard let orientation = Orientation(name: text), orientation != .undefined else {
            warn("\(file):1: not an orientation name ('\(text.prefix(32))'); starting unlocked")
            return nil
        }
        var owner: UInt32?
        if lines.count > 1 {
            let second = String(lines[1]).trimmingWhitespace()
            if second.hasPrefix("owner=") { owner = UInt32(second.dropFirst(6)) }
        }
        return (orientation, owner)
    }
}

extension StateDirectory {
    /// Persists the lock atomically: write a temp file, fsync it, rename it over
    /// `lock`, fsync the directory. nil removes the file. Creates the directory
    /// if needed. Throws with the system's reason.
    package func saveLock(_ orientation: Orientation?, owner: UInt32? = nil) throws(FileReadError) {
        let file = path + "/lock"
        var info = stat()
        if stat(path, &info) != 0 {
            guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
                throw FileReadError(reason: "cannot create \(path): \(String(cString: strerror(errno)))")
            }
        }
        if let orientation {
            let temp = path + "/.lock.tmp"
            let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw FileReadError(reason: "cannot write \(temp): \(String(cString: strerror(errno)))") }
            let text = orientation.rawValue + "\n" + (owner.map { "owner=\($0)\n" } ?? "")
            let ok = writeAll(fd: fd, Array(text.utf8)) && fsync(fd) == 0
            close(fd)
            guard ok, rename(temp, file) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temp)
                throw FileReadError(reason: "cannot write \(file): \(reason)")
            }
        } else if unlink(file) != 0, errno != ENOENT {
            throw FileReadError(reason: "cannot remove \(file): \(String(cString: strerror(errno)))")
        }
        let dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            close(dir)
        }
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
