#if canImport(Glibc)
import Glibc
#endif
import OrientClient
import OrientProtocol

/// `orientctl watch`: the current state, then a line per change, until
/// SIGINT/SIGTERM (exit 0). Survives daemon restarts (the client reconnects).
enum WatchCommand {
    static func run(_ client: OrientClient, json: Bool) async -> Int32 {
        let signals = SignalPipe.stream([SIGINT, SIGTERM])
        // Fail fast when the daemon is not there at all; after that, wait out restarts.
        do {
            _ = try await client.get()
        } catch {
            return ExitStatus.report(error)
        }
        return await withTaskGroup(of: Int32.self) { group in
            group.addTask {
                for await state in client.states() {
                    guard Output.line(json ? state.json() : state.summary) else {
                        Output.error("cannot write the state: \(systemError())")
                        return ExitStatus.ioError
                    }
                }
                return ExitStatus.success
            }
            group.addTask {
                for await _ in signals { return ExitStatus.success }
                return ExitStatus.success
            }
            let status = await group.next() ?? ExitStatus.success
            group.cancelAll()
            return status
        }
    }
}

/// The current `errno` in words.
func systemError() -> String {
    String(cString: strerror(errno))
}
