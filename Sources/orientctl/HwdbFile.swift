#if canImport(Glibc)
import Glibc
#endif
import OrientCalibration

/// Writing an entry into a local hwdb file: read what is there, merge, write a
/// temporary file beside it, rename it over the old one. The file is never
/// left half written.
enum HwdbFile {
    /// Adds `entry` to the file at `path` (created if missing). Success carries
    /// whether an entry with the same key was there and had its matrix replaced.
    static func add(_ entry: HwdbEntry, to path: String) -> Result<Bool, CommandFailure> {
        var existing = ""
        switch FileBytes.read(path, limit: 1 << 20) {
        case .success(let bytes): existing = bytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
        case .failure(let failure): return .failure(failure)
        }
        let (merged, replaced) = entry.merged(into: existing)
        switch RecordingFile.create(path) {
        case .failure(let message):
            return .failure(CommandFailure(writeRefusal(message, path: path), status: refusalStatus()))
        case .success(let file):
            guard file.write(merged) else {
                let failure = CommandFailure("cannot write \(path): \(systemError())", status: ExitStatus.ioError)
                file.discard()
                return .failure(failure)
            }
            guard file.commit() else {
                return .failure(CommandFailure("\(path) left as it was", status: ExitStatus.ioError))
            }
            return .success(replaced)
        }
    }

    /// The message for a file that could not be created, with what to do when
    /// the user may not write there.
    private static func writeRefusal(_ message: String, path: String) -> String {
        switch errno {
        case EACCES, EPERM, EROFS:
            return "\(message): you may not write \(path); run orientctl calibrate as root (sudo), or add the entry above to it yourself"
        default:
            return message
        }
    }

    private static func refusalStatus() -> Int32 {
        [EACCES, EPERM, EROFS].contains(errno) ? ExitStatus.noPermission : ExitStatus.ioError
    }
}

/// Files read whole, with a size limit.
enum FileBytes {
    /// The file's bytes; nil when it does not exist. Anything but a regular
    /// file, or one larger than `limit`, is refused with a message naming it.
    static func read(_ path: String, limit: Int) -> Result<[UInt8]?, CommandFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 && errno == ENOENT { return .success(nil) }
        guard fd >= 0 else {
            let status = [EACCES, EPERM].contains(errno) ? ExitStatus.noPermission : ExitStatus.ioError
            return .failure(CommandFailure("cannot read \(path): \(systemError())", status: status))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return .failure(CommandFailure("cannot read \(path): not a regular file", status: ExitStatus.ioError))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else {
                return .failure(CommandFailure("cannot read \(path): \(systemError())", status: ExitStatus.ioError))
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
            guard bytes.count <= limit else {
                return .failure(CommandFailure("cannot read \(path): larger than \(limit) bytes", status: ExitStatus.ioError))
            }
        }
        return .success(bytes)
    }
}
