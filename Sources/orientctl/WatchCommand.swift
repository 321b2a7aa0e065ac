#if canImport(Glibc)
import Glibc
#endif
import OrientClient
import OrientProtocol

/// `orientctl watch`: the current state, then a line per change, until
/// SIGINT/SIGTERM (exit 0). Survives daemon restarts (the client reconnects),
/// and says on stderr when the daemon goes away and comes back. With no daemon
/// at start it waits for one, unless `noWait` (then exit 69 at once).
enum WatchCommand {
    static func run(_ client: OrientClient, json: Bool, noWait: Bool) async -> Int32 {
        let signals = SignalPipe.stream([SIGINT, SIGTERM])
        var unreachableAtStart = false
        do {
            _ = try await client.get()
        } catch {
            guard !noWait, case .unavailable(let reason) = error else { return ExitStatus.report(error) }
            Output.error("waiting for orientd: \(reason)")
            unreachableAtStart = true
        }
        let waiting = unreachableAtStart
        let events = client.connectionEvents()
        return await withTaskGroup(of: Int32?.self) { group in
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
                var away = false
                var first = waiting
                for await event in events {
                    switch event {
                    case .lost(let error):
                        let reason: String
                        if case .unavailable(let text) = error { reason = text } else { reason = error.description }
                        Output.error("orientd went away (\(reason)); waiting for it to come back")
                        away = true
                    case .connected:
                        if away { Output.error("orientd is back") }
                        if first { Output.error("connected to orientd") }
                        away = false
                        first = false
                    }
                }
                return nil
            }
            group.addTask {
                for await _ in signals { return ExitStatus.success }
                return ExitStatus.success
            }
            var status = ExitStatus.success
            while let result = await group.next() {
                guard let result else { continue }
                status = result
                break
            }
            group.cancelAll()
            return status
        }
    }
}

/// The current `errno` in words.
func systemError() -> String {
    String(cString: strerror(errno))
}
