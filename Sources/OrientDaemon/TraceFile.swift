#if canImport(Glibc)
import Glibc
#endif
package import OrientProtocol

/// Why a trace file could not be loaded.
package enum TraceFileError: Error, Sendable, CustomStringConvertible {
    /// The file could not be opened or read (sysexits 66).
    case unreadable(path: String, reason: String)
    /// The file's content is malformed (sysexits 65).
    case malformed(TraceError)

    package var description: String {
        switch self {
        case .unreadable(let path, let reason): return "\(path): cannot read trace: \(reason)"
        case .malformed(let error): return error.description
        }
    }
}

/// Loads trace files: the only place the mock path touches the file system.
package enum TraceFile {
    /// Largest trace accepted, bytes (a day at 100 Hz is about 250 MiB).
    package static let maximumSize = 512 << 20

    /// Reads and parses `path`; nothing is returned unless the whole file is valid.
    package static func load(_ path: String) throws(TraceFileError) -> Trace {
        let bytes: [UInt8]
        do {
            bytes = try readFile(path, limit: maximumSize)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        do {
            return try TraceReader.parse(bytes, file: path)
        } catch {
            throw .malformed(error)
        }
    }
}

/// A failed file read, with the system's reason.
package struct FileReadError: Error, Sendable {
    package var reason: String
}

/// Reads a whole regular file, refusing anything larger than `limit` bytes.
package func readFile(_ path: String, limit: Int) throws(FileReadError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw FileReadError(reason: String(cString: strerror(errno))) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw FileReadError(reason: String(cString: strerror(errno))) }
    guard (info.st_mode & S_IFMT) == S_IFREG else { throw FileReadError(reason: "not a regular file") }
    guard Int(info.st_size) <= limit else {
        throw FileReadError(reason: "file is \(info.st_size) bytes, larger than the limit of \(limit)")
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(info.st_size))
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw FileReadError(reason: String(cString: strerror(errno)))
        }
        if n == 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
        guard bytes.count <= limit else { throw FileReadError(reason: "file grew past the limit of \(limit) bytes") }
    }
    return bytes
}
