import OrientClient
import OrientProtocol

/// `orientctl lock [ORIENTATION|current]`: locks the rotation, and says what changed.
enum LockCommand {
    static func run(_ client: OrientClient, target: LockTarget) async -> Int32 {
        do {
            let before = try await client.get()
            try await client.lock(target)
            let after = try await client.get()
            return LockCommand.say(lockChange(before: before, after: after))
        } catch {
            return ExitStatus.report(error)
        }
    }

    /// `rotation locked at left-up (was unlocked)`, and what the screen shows
    /// when an app's constraint wins over the lock.
    static func lockChange(before: StateMessage, after: StateMessage) -> String {
        guard let locked = after.locked else { return "rotation not locked" }
        var text: String
        if before.locked == locked {
            text = "rotation already locked at \(locked.rawValue)"
        } else {
            text = "rotation locked at \(locked.rawValue) (was \(before.locked.map { "locked at \($0.rawValue)" } ?? "unlocked"))"
        }
        if after.orientation != locked {
            text += "; an app's constraint excludes it, so the screen shows \(after.orientation.rawValue)"
        }
        return text
    }

    /// Prints `line` on standard output; the exit status.
    static func say(_ line: String) -> Int32 {
        guard Output.line(line) else {
            Output.error("cannot write: \(systemError())")
            return ExitStatus.ioError
        }
        return ExitStatus.success
    }
}
