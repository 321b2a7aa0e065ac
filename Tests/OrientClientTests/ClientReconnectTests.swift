@testable import OrientClient
import OrientProtocol
import Testing

/// Registers a constraint through `connection`, answering ok. The registering
/// task is gone when this returns, so the caller holds the only reference.
private func register(
    _ client: OrientClient, on connection: FakeConnection, id: String, allow: [String]
) async throws -> ConstraintHandle {
    let registering = Task { try await client.constrain(id: id, allow: allow) }
    let request = try await connection.readRequest()
    #expect(request.request == .constrain(id: id, allow: allow))
    try await connection.send(Reply.ok(seq: request.seq))
    return try await within(15) { try await registering.value }
}

/// Takes the next element of a stream within `seconds`.
private func next<T: Sendable>(_ iterator: AsyncStreamBox<T>, within seconds: Double = 5) async throws -> T {
    try await within(seconds, "the stream's next element") {
        guard let value = await iterator.next() else { throw TestFailure("the stream ended") }
        return value
    }
}

@Suite("Subscriptions, constraints and reconnection", .timeLimit(.minutes(1)))
struct ClientReconnectTests {
    @Test("states() subscribes, yields the current state, then each change once")
    func statesStream() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let states = AsyncStreamBox(client.states())
        let connection = try await server.acceptAndGreet()
        let subscribe = try await connection.readRequest()
        #expect(subscribe.request == .subscribe)
        try await connection.send(testState(.normal, tMs: 1).json(seq: subscribe.seq))
        #expect(try await next(states).orientation == .normal)
        // Same content at a later time is not a change; a new orientation is.
        try await connection.send(testState(.normal, tMs: 2).json())
        try await connection.send(testState(.leftUp, tMs: 3).json())
        #expect(try await next(states) == testState(.leftUp, tMs: 3))
        // A second subscriber gets the current state at once, without a new subscribe.
        let second = AsyncStreamBox(client.states())
        #expect(try await next(second).orientation == .leftUp)
        #expect(await connection.lineIfAny(within: 0.1) == nil)
    }

    @Test("ending the last state stream unsubscribes")
    func unsubscribeOnEnd() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let consumer = Task {
            for await state in client.states() where state.orientation == .rightUp { return }
        }
        let connection = try await server.acceptAndGreet()
        let subscribe = try await connection.readRequest()
        try await connection.send(testState(.rightUp).json(seq: subscribe.seq))
        try await within(15) { await consumer.value }
        #expect(try await connection.readRequest().request == .unsubscribe)
    }

    @Test("after the daemon restarts, the client re-registers its constraints with the same ids and subscribes again")
    func reconnectReRegisters() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let states = AsyncStreamBox(client.states())
        let first = try await server.acceptAndGreet()
        let subscribe = try await first.readRequest()
        #expect(subscribe.request == .subscribe)
        try await first.send(testState(.normal).json(seq: subscribe.seq))
        #expect(try await next(states).orientation == .normal)

        let registering = Task {
            let player = try await client.constrain(id: "player", allow: [MaskName.landscape])
            let camera = try await client.constrain(id: "camera", allow: [.normal, .bottomUp] as OrientationMask)
            return [player, camera]
        }
        let c1 = try await first.readRequest()
        try await first.send(Reply.ok(seq: c1.seq))
        let c2 = try await first.readRequest()
        try await first.send(Reply.ok(seq: c2.seq))
        let handles = try await within(15) { try await registering.value }
        #expect(c1.request == .constrain(id: "player", allow: ["landscape"]))
        #expect(c2.request == .constrain(id: "camera", allow: ["normal", "bottom-up"]))

        // The daemon goes away and comes back.
        first.close()
        server.stopListening()
        try await Task.sleep(for: .milliseconds(100))  // a few failed attempts with backoff
        try server.listen()
        let second = try await server.acceptAndGreet()
        let again = [try await second.readRequest(), try await second.readRequest(), try await second.readRequest()]
        #expect(again.map(\.request) == [
            .constrain(id: "player", allow: ["landscape"]),
            .constrain(id: "camera", allow: ["normal", "bottom-up"]),
            .subscribe,
        ])
        try await second.send(Reply.ok(seq: again[0].seq))
        try await second.send(Reply.ok(seq: again[1].seq))
        try await second.send(testState(.leftUp).json(seq: again[2].seq))
        // The same stream goes on with the new connection's state.
        #expect(try await next(states).orientation == .leftUp)
        withExtendedLifetime(handles) {}
    }

    @Test("with nothing to re-register, a dropped connection is not reopened until needed")
    func noIdleReconnect() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let reply = Task { try await client.get() }
        let connection = try await server.acceptAndGreet()
        let request = try await connection.readRequest()
        try await connection.send(testState().json(seq: request.seq))
        _ = try await within(15) { try await reply.value }
        connection.close()
        #expect(try await server.anyConnection(within: 0.3) == false)
        withExtendedLifetime(client) {}
    }

    @Test("dropping a handle sends release for its id")
    func deinitReleases() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let started = Task { try await client.get() }
        let connection = try await server.acceptAndGreet()
        let get = try await connection.readRequest()
        try await connection.send(testState().json(seq: get.seq))
        _ = try await within(15) { try await started.value }
        var handle: ConstraintHandle? = try await register(client, on: connection, id: "video", allow: ["landscape"])
        #expect(handle?.id == "video")
        handle = nil
        let release = try await connection.readRequest()
        #expect(release.request == .release(id: "video"))
        try await connection.send(Reply.ok(seq: release.seq))
        // Released constraints are not re-registered after a drop.
        connection.close()
        #expect(try await server.anyConnection(within: 0.3) == false)
        withExtendedLifetime(client) {}
    }

    @Test("release() waits for ok; a handle superseded by the same id releases nothing")
    func releaseAndSupersede() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let started = Task { try await client.get() }
        let connection = try await server.acceptAndGreet()
        let get = try await connection.readRequest()
        try await connection.send(testState().json(seq: get.seq))
        _ = try await within(15) { try await started.value }
        var old: ConstraintHandle? = try await register(client, on: connection, id: "x", allow: ["portrait"])
        let current = try await register(client, on: connection, id: "x", allow: ["landscape"])
        #expect(old?.isReleased == false)
        old = nil  // superseded: its deinit must not release "x"
        let releasing = Task { try await current.release() }
        let release = try await connection.readRequest()
        #expect(release.request == .release(id: "x"))
        #expect(await connection.lineIfAny(within: 0.05) == nil)
        try await connection.send(Reply.ok(seq: release.seq))
        try await within(15) { try await releasing.value }
        #expect(current.isReleased)
        // Releasing again does nothing.
        try await within(15) { try await current.release() }
        #expect(await connection.lineIfAny(within: 0.1) == nil)
        _ = old
    }

    @Test("release while the daemon is down succeeds and is not re-registered")
    func releaseWhileDown() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let registering = Task { try await client.constrain(id: "a", allow: ["all"]) }
        let connection = try await server.acceptAndGreet()
        let constrain = try await connection.readRequest()
        try await connection.send(Reply.ok(seq: constrain.seq))
        let handle = try await within(15) { try await registering.value }
        server.stopListening()
        connection.close()
        try await Task.sleep(for: .milliseconds(50))
        try await within(15) { try await handle.release() }
        try server.listen()
        #expect(try await server.anyConnection(within: 0.4) == false)
        withExtendedLifetime(client) {}
    }

    @Test("a constraint in flight when the connection drops fails with .unavailable")
    func constrainInFlight() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions(timeout: .seconds(30)))
        let registering = Task { try await client.constrain(id: "a", allow: ["all"]) }
        let connection = try await server.acceptAndGreet()
        _ = try await connection.readRequest()
        connection.close()
        #expect(try await clientError(3) { try await registering.value }.isUnavailable)
    }

    @Test("samples() returns the reply's header, streams samples, and asks again after a reconnect")
    func samples() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let starting = Task { try await client.samples() }
        let connection = try await server.acceptAndGreet()
        let request = try await connection.readRequest()
        #expect(request.request == .samples)
        let matrix = try MountMatrix(parsing: "0, -1, 0; 1, 0, 0; 0, 0, 1")
        try await connection.send(Reply.samplesOK(seq: request.seq, mountMatrix: matrix, rateHz: 50, onChange: false))
        try await connection.send(Reply.sample(tMs: 10, vector: Vector3(0.5, -9.8, 0.25)))
        let (header, stream) = try await within(15) { try await starting.value }
        #expect(header.mountMatrix == matrix)
        #expect(header.rateHz == 50)
        #expect(header.onChange == false)
        let samples = AsyncStreamBox(stream)
        #expect(try await next(samples) == Sample(tMs: 10, x: 0.5, y: -9.8, z: 0.25))
        try await connection.send(Reply.sample(tMs: 60, vector: Vector3(.nan, 0, 9.8)))
        let odd = try await next(samples)
        #expect(odd.tMs == 60 && odd.vector.x.isNaN)

        connection.close()
        let second = try await server.acceptAndGreet()
        let again = try await second.readRequest()
        #expect(again.request == .samples)
        try await second.send(Reply.samplesOK(seq: again.seq, mountMatrix: matrix, rateHz: 50, onChange: false))
        try await second.send(Reply.sample(tMs: 110, vector: Vector3(0, -9.8, 0)))
        #expect(try await next(samples).tMs == 110)
    }

    @Test("stopping samples while states are wanted unsubscribes and subscribes again")
    func stopSamplesKeepsStates() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let states = AsyncStreamBox(client.states())
        let connection = try await server.acceptAndGreet()
        let subscribe = try await connection.readRequest()
        try await connection.send(testState(.normal).json(seq: subscribe.seq))
        #expect(try await next(states).orientation == .normal)
        let starting = Task { () -> Bool in
            let (_, stream) = try await client.samples()
            for await _ in stream { return true }  // one sample, then stop
            return false
        }
        let request = try await connection.readRequest()
        #expect(request.request == .samples)
        try await connection.send(Reply.samplesOK(seq: request.seq, mountMatrix: .identity, rateHz: 20, onChange: false))
        try await connection.send(Reply.sample(tMs: 1, vector: Vector3(0, -9.8, 0)))
        #expect(try await within(15) { try await starting.value })
        let stop = try await connection.readRequest()
        #expect(stop.request == .unsubscribe)
        let resubscribe = try await connection.readRequest()
        #expect(resubscribe.request == .subscribe)
        try await connection.send(Reply.ok(seq: stop.seq))
        try await connection.send(testState(.normal).json(seq: resubscribe.seq))
        try await connection.send(testState(.rightUp).json())
        // The unchanged state is not repeated; the change comes through.
        #expect(try await next(states).orientation == .rightUp)
    }
}

@Suite("Connection events", .timeLimit(.minutes(1)))
struct ConnectionEventTests {
    @Test("connectionEvents() says when the connection comes up, goes down, and comes back")
    func upDownUp() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let events = AsyncStreamBox(client.connectionEvents())
        let states = client.states()  // something that needs the daemon, so the client reconnects
        _ = states
        let first = try await server.acceptAndGreet()
        #expect(try await next(events) == .connected)
        first.close()
        guard case .lost(.unavailable) = try await next(events) else {
            Issue.record("expected .lost(.unavailable)")
            return
        }
        _ = try await server.acceptAndGreet()
        #expect(try await next(events) == .connected)
    }
}
