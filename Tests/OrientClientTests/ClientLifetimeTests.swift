@testable import OrientClient
import OrientProtocol
import Testing

@Suite("Client lifetime", .timeLimit(.minutes(1)))
struct ClientLifetimeTests {
    @Test("dropping the client closes its connection")
    func dropClosesConnection() async throws {
        let server = try FakeServer()
        var client: OrientClient? = OrientClient(socketPath: server.path, options: fastOptions())
        let connection: FakeConnection
        do {
            let reply = Task { [client] in try await client?.get() }
            connection = try await server.acceptAndGreet()
            let request = try await connection.readRequest()
            try await connection.send(testState().json(seq: request.seq))
            _ = try await within(15) { try await reply.value }
        }
        client = nil
        do {
            let line = try await connection.readLine(timeout: 3)
            Issue.record("expected the connection to close, got \(line)")
        } catch let failure as TestFailure {
            #expect(failure.description.contains("closed the connection"))
        }
    }

    @Test("a state stream keeps its client alive")
    func streamKeepsClient() async throws {
        let server = try FakeServer()
        let states = AsyncStreamBox(OrientClient(socketPath: server.path, options: fastOptions()).states())
        let connection = try await server.acceptAndGreet()
        let subscribe = try await connection.readRequest()
        try await connection.send(testState(.bottomUp).json(seq: subscribe.seq))
        try await Task.sleep(for: .milliseconds(50))
        try await connection.send(testState(.rightUp).json())
        #expect(try await within(15) { await states.next() }?.orientation == .bottomUp)
        #expect(try await within(15) { await states.next() }?.orientation == .rightUp)
    }

    @Test("a daemon that accepts but never says hello gives .unavailable after the timeout")
    func noHello() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions(timeout: .milliseconds(200)))
        let reply = Task { try await client.get() }
        let connection = try await server.accept()
        let error = try await clientError(15) { try await reply.value }
        guard case .unavailable(let reason) = error else {
            Issue.record("expected .unavailable, got \(error)")
            return
        }
        #expect(reason.contains("hello"))
        withExtendedLifetime(connection) {}
    }

    @Test("a state stream waits while the daemon is down and starts when it comes up")
    func streamWaitsForDaemon() async throws {
        let server = try FakeServer()
        server.stopListening()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let states = AsyncStreamBox(client.states())
        try await Task.sleep(for: .milliseconds(150))
        try server.listen()
        let connection = try await server.acceptAndGreet()
        let subscribe = try await connection.readRequest()
        #expect(subscribe.request == .subscribe)
        try await connection.send(testState(.leftUp).json(seq: subscribe.seq))
        #expect(try await within(15) { await states.next() }?.orientation == .leftUp)
    }
}
