import OrientClient

/// `orientctl unlock`: unlocks the rotation, and says what changed.
enum UnlockCommand {
    static func run(_ client: OrientClient) async -> Int32 {
        do {
            let before = try await client.get()
            try await client.unlock()
            let line = before.locked.map { "rotation unlocked (was locked at \($0.rawValue))" } ?? "rotation was not locked"
            return LockCommand.say(line)
        } catch {
            return ExitStatus.report(error)
        }
    }
}
