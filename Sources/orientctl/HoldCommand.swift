#if canImport(Glibc)
import Glibc
#endif
import OrientClient
import Synchronization

/// `orientctl hold MASK -- COMMAND...`: a constraint held while COMMAND runs.
///
/// The constraint's id is `orientctl-hold-<pid>`. SIGINT, SIGTERM and SIGHUP are
/// passed on to the command, except those the terminal sent (the command, in the
/// same foreground process group, already has them). If orientctl is killed
/// outright, the daemon drops the constraint when the connection closes.
/// When the daemon cannot be reached, the command runs anyway (a launcher
/// wrapped in `hold` must not lose its app), with a warning on stderr, and the
/// constraint is registered as soon as the daemon answers.
enum HoldCommand {
    static func run(_ client: OrientClient, mask: [String], argv: [String]) async -> Int32 {
        let relay = SignalRelay()
        SignalPipe.install([SIGINT, SIGTERM, SIGHUP]) { signal, fromTerminal in
            relay.deliver(signal, fromTerminal: fromTerminal)
        }
        let id = "orientctl-hold-\(getpid())"
        let held = HeldConstraint()
        let maskText = mask.joined(separator: ",")
        var retry: Task<Void, Never>?
        do {
            let handle = try await client.constrain(id: id, allow: mask)
            held.set(handle)
            Output.error("allowing only \(maskText) while \(argv[0]) runs")
        } catch {
            // The command matters more than the constraint: run it anyway, and,
            // when the daemon is only out of reach, keep trying to register the
            // constraint while it runs (a refusal would only be repeated).
            let refused: Bool
            if case .server = error { refused = true } else { refused = false }
            Output.error(
                "warning: \(error.description); running \(argv[0]) without the constraint"
                    + (refused ? "" : " (retrying while it runs)"))
            if !refused { retry = registerWhenBack(client, id: id, mask: mask, into: held, command: argv[0]) }
        }
        let status: Int32
        switch relay.spawn(argv) {
        case .interrupted(let signal):
            status = 128 + signal
        case .failed(let code):
            Output.error("cannot run '\(argv[0])': \(String(cString: strerror(code)))")
            status = code == ENOENT ? 127 : 126
        case .spawned(let pid):
            status = await ChildProcess.wait(pid)
            relay.childExited()
        }
        retry?.cancel()
        await retry?.value
        if let handle = held.handle {
            do {
                try await handle.release()
            } catch {
                // The command's status matters more; the daemon drops the constraint
                // anyway when this process exits and the connection closes.
                Output.error("releasing the constraint: \(error)")
            }
        }
        return status
    }

    /// Tries to register the constraint again and again (250 ms, doubling to
    /// 5 s) until it is, or the task is cancelled (the command ended).
    private static func registerWhenBack(
        _ client: OrientClient, id: String, mask: [String], into held: HeldConstraint, command: String
    ) -> Task<Void, Never> {
        Task {
            var delayMs = 250
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(delayMs))
                guard !Task.isCancelled else { return }
                if let handle = try? await client.constrain(id: id, allow: mask) {
                    held.set(handle)
                    Output.error("orientd is back: allowing only \(mask.joined(separator: ",")) while \(command) runs")
                    return
                }
                delayMs = min(delayMs * 2, 5000)
            }
        }
    }
}

/// The constraint's handle once it is registered (now, or by the retry task later).
final class HeldConstraint: Sendable {
    private let slot = Mutex<ConstraintHandle?>(nil)

    func set(_ handle: ConstraintHandle) { slot.withLock { $0 = handle } }
    var handle: ConstraintHandle? { slot.withLock { $0 } }
}

/// Passes signals on to the child once it exists; remembers a signal that came
/// before, so the command is not started at all.
final class SignalRelay: Sendable {
    enum Spawn {
        case spawned(pid_t)
        case failed(Int32)
        /// A signal arrived before the command started.
        case interrupted(Int32)
    }

    private struct State {
        var child: pid_t?
        var interrupted: Int32?
    }

    private let state = Mutex(State())

    /// Spawns `argv` unless a signal came first. Holding the lock across the
    /// spawn means every signal either stops the spawn or reaches the child.
    func spawn(_ argv: [String]) -> Spawn {
        state.withLock { state in
            if let signal = state.interrupted { return .interrupted(signal) }
            switch ChildProcess.spawn(argv) {
            case .pid(let pid):
                state.child = pid
                return .spawned(pid)
            case .failed(let code):
                return .failed(code)
            }
        }
    }

    func childExited() {
        state.withLock { $0.child = nil }
    }

    func deliver(_ signal: Int32, fromTerminal: Bool) {
        state.withLock { state in
            if let child = state.child {
                if !fromTerminal { kill(child, signal) }
            } else if state.interrupted == nil {
                state.interrupted = signal
            }
        }
    }
}
