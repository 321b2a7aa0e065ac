#if canImport(Glibc)
import Glibc
#endif
import OrientClient
import OrientProtocol

/// `orientctl record FILE`: samples to a trace file (SPEC §8), until
/// SIGINT/SIGTERM or `--duration`.
///
/// The header comes from the `samples` reply; every sample line is written
/// with write(2) as it arrives, so the file is complete up to the last sample
/// whenever the recording stops. Recording stops early (exit 69) if the
/// sample clock goes backwards, which happens when the daemon restarts: the
/// file stays a valid trace.
enum RecordCommand {
    private enum Outcome: Sendable {
        case stop
        case finished(Int32, samples: Int)
    }

    static func run(_ client: OrientClient, path: String, duration: Double?) async -> Int32 {
        let signals = SignalPipe.stream([SIGINT, SIGTERM])
        let name = path == "-" ? "standard output" : path
        let fd: Int32
        if path == "-" {
            fd = 1
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                Output.error("cannot create \(path): \(systemError())")
                return ExitStatus.ioError
            }
        }
        defer { if fd != 1 { close(fd) } }

        let header: Trace
        let samples: AsyncStream<Sample>
        do {
            (header, samples) = try await client.samples()
        } catch {
            return ExitStatus.report(error)
        }
        var trace = header
        trace.extraHeaders = [(key: "recorded-by", value: "orientctl record")]
        guard Output.write(trace.serialized(), to: fd) else {
            Output.error("cannot write \(name): \(systemError())")
            return ExitStatus.ioError
        }

        return await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                var last = -Double.infinity
                var count = 0
                for await sample in samples {
                    if sample.tMs < last {
                        Output.error(
                            "the sample clock went back from \(last) to \(sample.tMs) ms (orientd restarted?); stopping")
                        return .finished(ExitStatus.unavailable, samples: count)
                    }
                    last = sample.tMs
                    guard Output.write(sample.traceLine, to: fd) else {
                        Output.error("cannot write \(name): \(systemError())")
                        return .finished(ExitStatus.ioError, samples: count)
                    }
                    count += 1
                }
                return .finished(ExitStatus.success, samples: count)
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
                case .stop:
                    group.cancelAll()  // the writer's loop ends; its result follows
                case .finished(let code, let count):
                    status = code
                    group.cancelAll()
                    if code == ExitStatus.success, count == 0 {
                        // A trace without samples would not replay: say why instead.
                        Output.error("no samples arrived (does orientd have a sensor? `orientctl get` shows \"sensor\"); \(name) holds only the header")
                        status = ExitStatus.unavailable
                    }
                }
                if case .finished = outcome { break }
            }
            return status
        }
    }
}
