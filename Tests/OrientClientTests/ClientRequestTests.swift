#if canImport(Glibc)
import Glibc
#endif
@testable import OrientClient
import OrientProtocol
import Testing

@Suite("Requests and replies", .timeLimit(.minutes(1)))
struct ClientRequestTests {
    @Test("get waits for the hello, sends a seq and returns the state that echoes it")
    func getMatchesSeq() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let reply = Task { try await client.get() }
        let connection = try await server.accept()
        // Nothing before the greeting.
        #expect(await connection.lineIfAny(within: 0.1) == nil)
        try await connection.send(Reply.hello(version: "fake"))
        let request = try await connection.readRequest()
        #expect(request.request == .get)
        let seq = try #require(request.seq)
        try await connection.send(testState(.rightUp, tMs: 5).json(seq: seq))
        let state = try await within(15) { try await reply.value }
        #expect(state == testState(.rightUp, tMs: 5))
    }

    @Test("replies are matched by seq, not by order, and pushes are not replies")
    func outOfOrderReplies() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let first = Task { try await client.get() }
        let connection = try await server.acceptAndGreet()
        let a = try await connection.readRequest()
        let second = Task { try await client.lock(.orientation(.bottomUp)) }
        let b = try await connection.readRequest()
        let third = Task { try await client.get() }
        let c = try await connection.readRequest()
        let seqs = [a.seq, b.seq, c.seq].compactMap { $0 }
        #expect(seqs.count == 3 && Set(seqs).count == 3)
        #expect(seqs == seqs.sorted())
        #expect(b.request == .lock(.orientation(.bottomUp)))
        // A push (no seq) first, then the replies backwards.
        try await connection.send(testState(.bottomUp).json())
        try await connection.send(testState(.leftUp).json(seq: c.seq))
        try await connection.send(Reply.ok(seq: b.seq))
        try await connection.send(testState(.normal).json(seq: a.seq))
        #expect(try await within(15) { try await first.value }.orientation == .normal)
        try await within(15) { try await second.value }
        #expect(try await within(15) { try await third.value }.orientation == .leftUp)
    }

    @Test("an error reply becomes .server with the daemon's code and message")
    func errorReply() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let locking = Task { try await client.lock() }
        let connection = try await server.acceptAndGreet()
        let request = try await connection.readRequest()
        #expect(request.request == .lock(.current))
        let refusal = ProtocolError(code: .notPermitted, message: "lock-permission is root", seq: request.seq)
        try await connection.send(refusal.json())
        let error = try await clientError { try await locking.value }
        #expect(error == .server(refusal))
    }

    @Test("unlock sends unlock and returns on ok")
    func unlock() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let unlocking = Task { try await client.unlock() }
        let connection = try await server.acceptAndGreet()
        let request = try await connection.readRequest()
        #expect(request.request == .unlock)
        try await connection.send(Reply.ok(seq: request.seq))
        try await within(15) { try await unlocking.value }
    }

    @Test("nothing listening gives .unavailable at once", arguments: ["missing", "stale"])
    func nothingListening(kind: String) async throws {
        let server = try FakeServer()
        if kind == "missing" {
            server.stopListening()
        } else {
            // A socket file nobody listens on, as a crashed daemon leaves it.
            server.stopListening()
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(server.path.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let size = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
            close(fd)
        }
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let error = try await clientError(2) { try await client.get() }
        guard case .unavailable(let reason) = error else {
            Issue.record("expected .unavailable, got \(error)")
            return
        }
        #expect(reason.contains(server.path))
        let constrainError = try await clientError(2) { try await client.constrain(id: "a", allow: ["all"]) }
        #expect(constrainError.isUnavailable)
        let samplesError = try await clientError(2) { try await client.samples() }
        #expect(samplesError.isUnavailable)
    }

    @Test("a socket path too long for sockaddr_un is .unavailable")
    func pathTooLong() async throws {
        let client = OrientClient(socketPath: "/tmp/" + String(repeating: "x", count: 200), options: fastOptions())
        #expect(try await clientError(2) { try await client.get() }.isUnavailable)
    }

    @Test("a request in flight fails with .unavailable when the connection drops")
    func inFlightFailsOnDrop() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions(timeout: .seconds(30)))
        let reply = Task { try await client.get() }
        let connection = try await server.acceptAndGreet()
        _ = try await connection.readRequest()
        connection.close()
        #expect(try await clientError(3) { try await reply.value }.isUnavailable)
        // The next request connects again on demand.
        let again = Task { try await client.get() }
        let second = try await server.acceptAndGreet()
        let request = try await second.readRequest()
        try await second.send(testState(.leftUp).json(seq: request.seq))
        #expect(try await within(15) { try await again.value }.orientation == .leftUp)
    }

    @Test("no reply within the request timeout gives .timedOut")
    func timeout() async throws {
        let server = try FakeServer()
        // Long enough that a loaded machine still answers the second request in
        // time; the first is never answered, so it times out whatever the load.
        let client = OrientClient(socketPath: server.path, options: fastOptions(timeout: .seconds(2)))
        let reply = Task { try await client.get() }
        let connection = try await server.acceptAndGreet()
        _ = try await connection.readRequest()
        let error = try await clientError(15) { try await reply.value }
        guard case .timedOut = error else {
            Issue.record("expected .timedOut, got \(error)")
            return
        }
        // A late reply is ignored and the connection stays usable.
        let late = Task { try await client.get() }
        let next = try await connection.readRequest()
        try await connection.send(testState(.normal).json(seq: 1))
        try await connection.send(testState(.rightUp).json(seq: next.seq))
        #expect(try await within(15) { try await late.value }.orientation == .rightUp)
    }

    @Test("a daemon that greets with another protocol version is a protocol error")
    func wrongProtocol() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let reply = Task { try await client.get() }
        let connection = try await server.accept()
        try await connection.send(#"{"type":"hello","server":"orientd","version":"9","protocol":2}"#)
        let error = try await clientError { try await reply.value }
        guard case .protocol(let message) = error else {
            Issue.record("expected .protocol, got \(error)")
            return
        }
        #expect(message.contains("protocol 2"))
    }

    @Test("a daemon at its client limit refuses with .server(limit)")
    func refusedAtLimit() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let reply = Task { try await client.get() }
        let connection = try await server.accept()
        let refusal = ProtocolError(code: .limit, message: "too many clients (limit 1)")
        try await connection.send(refusal.json())
        connection.close()
        #expect(try await clientError { try await reply.value } == .server(refusal))
    }

    @Test("a reply that does not decode fails its request with .protocol")
    func undecodableReply() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let reply = Task { try await client.get() }
        let connection = try await server.acceptAndGreet()
        let request = try await connection.readRequest()
        try await connection.send(#"{"type":"state","seq":\#(request.seq ?? 0),"orientation":"sideways"}"#)
        let error = try await clientError { try await reply.value }
        guard case .protocol = error else {
            Issue.record("expected .protocol, got \(error)")
            return
        }
    }
}

extension OrientClientError {
    var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }
}

@Suite("The status request", .timeLimit(.minutes(1)))
struct ClientStatusTests {
    static let status = DaemonStatus(
        version: "9.9", sensorState: .idle,
        sensor: DaemonStatus.Sensor(device: "iio:device0", syspath: "/sys/x/iio:device0", name: "accel_3d"),
        mountMatrix: DaemonStatus.Decision(.identity, reason: "ACCEL_MOUNT_MATRIX"),
        natural: DaemonStatus.Decision(.portrait, reason: "config"), zSign: DaemonStatus.Decision(1, reason: "default"))

    @Test("status sends op status and returns the decoded reply")
    func status() async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let reply = Task { try await client.status() }
        let connection = try await server.acceptAndGreet()
        let request = try await connection.readRequest()
        #expect(request.request == .status)
        try await connection.send(Self.status.json(seq: request.seq))
        #expect(try await within(15) { try await reply.value } == Self.status)
    }

    @Test("a malformed status reply fails with .protocol naming the member; another type too", arguments: [
        (#"{"type":"status","seq":SEQ,"version":"1","sensor":{"state":"idle"}}"#, "status is missing 'mount_matrix'"),
        (#"{"type":"ok","seq":SEQ}"#, "expected a status in reply to status, got ok"),
        (#"{"type":"status","seq":SEQ,"version":7}"#, "'status.version' must be a string"),
    ])
    func malformed(line: String, expected: String) async throws {
        let server = try FakeServer()
        let client = OrientClient(socketPath: server.path, options: fastOptions())
        let reply = Task { try await client.status() }
        let connection = try await server.acceptAndGreet()
        let request = try await connection.readRequest()
        try await connection.send(line.replacing("SEQ", with: "\(request.seq ?? 0)"))
        let error = try await clientError { try await reply.value }
        guard case .protocol(let message) = error else {
            Issue.record("expected .protocol, got \(error)")
            return
        }
        #expect(message.contains(expected), "\(message)")
    }
}
