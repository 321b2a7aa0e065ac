#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Watches for a compositor's (or X server's) socket to vanish and to appear
/// again, with inotify on its directory: no polling.
enum SocketWatch {
    enum Event: Sendable {
        case vanished
        case appeared
    }

    /// The events for `path`; an empty stream, with the reason, when its
    /// directory cannot be watched.
    static func events(of path: String) -> (stream: AsyncStream<Event>, failure: String?) {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self)
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else {
            continuation.finish()
            return (stream, "inotify: \(String(cString: strerror(errno)))")
        }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let reason = "cannot watch \(directory): \(String(cString: strerror(errno)))"
            close(fd)
            continuation.finish()
            return (stream, reason)
        }
        DispatchQueue.global().async {
            defer { close(fd) }
            let headerSize = MemoryLayout<inotify_event>.size
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                var offset = 0
                while offset + headerSize <= n {
                    let (eventMask, length) = buffer.withUnsafeBytes { raw in
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        return (event.mask, Int(event.len))
                    }
                    let nameBytes = buffer[(offset + headerSize)..<min(n, offset + headerSize + length)].prefix { $0 != 0 }
                    if String(decoding: nameBytes, as: UTF8.self) == name {
                        let appeared = eventMask & UInt32(IN_CREATE | IN_MOVED_TO) != 0
                        if case .terminated = continuation.yield(appeared ? .appeared : .vanished) { return }
                    }
                    offset += headerSize + length
                }
            }
            continuation.finish()
        }
        return (stream, nil)
    }
}
