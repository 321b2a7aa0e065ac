import OrientClient

/// `orientctl unlock`: unlocks the rotation.
enum UnlockCommand {
    static func run(_ client: OrientClient) async -> Int32 {
        do {
            try await client.unlock()
            return ExitStatus.success
        } catch {
            return ExitStatus.report(error)
        }
    }
}
