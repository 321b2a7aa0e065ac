#if canImport(Glibc)
import Glibc
#endif
import OrientClient
import OrientProtocol

/// `orientctl record FILE`: samples to a trace file (docs/traces.md), until
/// SIGINT/SIGTERM or `--duration`.
///
/// FILE is never truncated or half-written: the recording goes to a temporary
/// file beside it (`.FILE.XXXXXX`), created before connecting so an unwritable
/// place fails at once, and renamed over FILE only when the recording ends with
/// samples in it. With no daemon, no sample, or a write error, FILE is left as
/// it was. The header is written with the first sample: times start at 0, and
/// `clock_offset_ms` holds the sensor-clock time of that first sample.
/// Recording stops early (exit 69) if the sample clock goes backwards, which
/// happens when the daemon restarts: what was recorded is kept, a valid trace.
enum RecordCommand {
    enum Outcome: Sendable {
        case stop
        case finished(Int32, samples: Int)
        /// A stream ended; the recorder's outcome follows.
        case forwarded
    }

    static func run(_ client: OrientClient, path: String, duration: Double?) async -> Int32 {
        let signals = SignalPipe.stream([SIGINT, SIGTERM])
        let output: RecordingFile
        switch RecordingFile.create(path) {
        case .success(let file): output = file
        case .failure(let message):
            Output.error(message)
            return ExitStatus.ioError
        }

        // Light and proximity first, so their readings now are known when the
        // header is written: a column for each sensor the daemon has.
        var readings: AsyncStream<SensorMessage>?
        do {
            readings = try await client.sensors([.light, .proximity])
        } catch {
            if case .server(let refusal) = error, refusal.code == .notPermitted {
                Output.error("light and proximity not recorded: \(refusal.message)")
            }
        }
        let header: Trace
        let samples: AsyncStream<Sample>
        let baseSamples: AsyncStream<Sample>
        do {
            (header, samples, baseSamples) = try await client.samplesWithBase()
        } catch {
            output.discard()
            return ExitStatus.report(error)
        }
        let (events, sink) = AsyncStream.makeStream(of: RecordedEvent.self)
        let expectedReadings = readings == nil ? 0 : EnvironmentSensor.allCases.count

        let status = await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                for await sample in samples { sink.yield(.sample(sample)) }
                sink.finish()
                return .forwarded
            }
            if let readings {
                group.addTask {
                    for await reading in readings { sink.yield(.reading(reading)) }
                    return .forwarded
                }
            }
            group.addTask {
                for await sample in baseSamples { sink.yield(.base(sample)) }
                return .forwarded
            }
            group.addTask {
                var recorder = TraceRecorder(header: header, output: output, expectedReadings: expectedReadings)
                for await event in events {
                    if let outcome = recorder.take(event) { return outcome }
                }
                return recorder.finish()
            }
            group.addTask {
                for await _ in signals { return .stop }
                return .stop
            }
            if let duration {
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(Int64((duration * 1000).rounded())))
                    return .stop
                }
            }
            var status = ExitStatus.success
            while let outcome = await group.next() {
                switch outcome {
                case .forwarded:
                    continue
                case .stop:
                    group.cancelAll()  // the writer's loop ends; its result follows
                case .finished(let code, let count):
                    status = code
                    group.cancelAll()
                    if code == ExitStatus.success, count == 0 {
                        Output.error(
                            "no samples arrived (does orientd have a sensor? `orientctl status` says); \(output.keptMessage)")
                        status = ExitStatus.unavailable
                    }
                    if count == 0 || code == ExitStatus.ioError {
                        output.discard()
                    } else if !output.commit() {
                        status = ExitStatus.ioError
                    }
                }
                if case .finished = outcome { break }
            }
            return status
        }
        return status
    }
}

/// Where a recording goes: standard output, or a temporary file renamed over
/// the target when the recording is complete.
struct RecordingFile: Sendable {
    let fd: Int32
    /// The target as the user named it (or "standard output").
    let name: String
    let target: String?
    let temporary: String?

    enum Created {
        case success(RecordingFile)
        case failure(String)
    }

    /// Standard output for `-`; else a new temporary file in FILE's directory.
    static func create(_ path: String) -> Created {
        guard path != "-" else { return .success(RecordingFile(fd: 1, name: "standard output", target: nil, temporary: nil)) }
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            return .failure("cannot record to \(path): it is a directory")
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(directory).\(base).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { return .failure("cannot create \(path): \(systemError())") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // not passed on to anything orientctl starts
        fchmod(fd, 0o644)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .success(RecordingFile(fd: fd, name: path, target: path, temporary: temporary))
    }

    func write(_ text: String) -> Bool { Output.write(text, to: fd) }

    /// What became of the target when nothing is kept.
    var keptMessage: String {
        guard let target else { return "nothing written" }
        return "\(target) left as it was"
    }

    /// Makes the recording the target: fsync, close, rename. False (reported) on failure.
    func commit() -> Bool {
        guard let target, let temporary else { return true }
        defer { close(fd) }
        guard fsync(fd) == 0, rename(temporary, target) == 0 else {
            Output.error("cannot write \(target): \(systemError())")
            unlink(temporary)
            return false
        }
        return true
    }

    /// Drops the temporary file; the target stays as it was.
    func discard() {
        guard let temporary else { return }
        close(fd)
        unlink(temporary)
    }
}
