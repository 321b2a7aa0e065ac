import OrientClient
import OrientProtocol

/// `orientctl get`: the current state, as a summary line or JSON.
enum GetCommand {
    static func run(_ client: OrientClient, json: Bool) async -> Int32 {
        let state: StateMessage
        do {
            state = try await client.get()
        } catch {
            return ExitStatus.report(error)
        }
        guard Output.line(json ? state.json() : state.summary) else {
            Output.error("cannot write the state: \(systemError())")
            return ExitStatus.ioError
        }
        return ExitStatus.success
    }
}
