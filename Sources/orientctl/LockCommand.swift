import OrientClient
import OrientProtocol

/// `orientctl lock [ORIENTATION|current]`: locks the rotation.
enum LockCommand {
    static func run(_ client: OrientClient, target: LockTarget) async -> Int32 {
        do {
            try await client.lock(target)
            return ExitStatus.success
        } catch {
            return ExitStatus.report(error)
        }
    }
}
