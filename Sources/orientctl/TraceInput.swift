import OrientProtocol

/// Reads recorded traces for `calibrate --non-interactive`.
enum TraceInput {
    /// Traces larger than this are refused (an hour at 100 Hz is about 15 MB).
    static let maximumBytes = 64 << 20

    /// The trace at `path`, or a message naming the file and, for a malformed
    /// one, the line and column.
    static func load(_ path: String) -> Result<Trace, CommandFailure> {
        let bytes: [UInt8]
        switch FileBytes.read(path, limit: maximumBytes) {
        case .success(let read?): bytes = read
        case .success(nil): return .failure(CommandFailure("cannot open \(path): no such file", status: ExitStatus.dataError))
        case .failure(let failure): return .failure(CommandFailure(failure.message, status: ExitStatus.dataError))
        }
        do {
            return .success(try TraceReader.parse(bytes, file: path))
        } catch {
            return .failure(CommandFailure(error.description, status: ExitStatus.dataError))
        }
    }
}
