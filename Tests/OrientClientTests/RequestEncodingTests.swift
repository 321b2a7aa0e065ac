@testable import OrientClient
import OrientProtocol
import Testing

@Suite("Request encoding")
struct RequestEncodingTests {
    static let requests: [Request] = [
        .get, .subscribe, .unsubscribe, .unlock, .samples,
        .constrain(id: "player", allow: ["landscape"]),
        .constrain(id: "quote\" back\\slash ünïcode", allow: ["normal", "all-but-upside-down"]),
        .release(id: "player"),
        .lock(.current),
        .lock(.orientation(.rightUp)),
        .watchSensors([.light, .proximity]), .watchSensors([.proximity]), .watchSensors([]),
    ]

    @Test("every request reads back through the daemon's decoder with its seq", arguments: requests)
    func roundTrip(_ request: Request) {
        let line = request.jsonLine(seq: 42)
        #expect(RequestDecoder.decode(Array(line.utf8)) == .success(RequestLine(seq: 42, request: request)))
        #expect(!line.contains("\n"))
    }

    @Test("requests are written in the documented shape")
    func shapes() {
        #expect(Request.get.jsonLine(seq: 1) == #"{"op":"get","seq":1}"#)
        #expect(Request.constrain(id: "player", allow: ["landscape"]).jsonLine(seq: 2)
            == #"{"op":"constrain","id":"player","allow":["landscape"],"seq":2}"#)
        #expect(Request.lock(.current).jsonLine(seq: 3) == #"{"op":"lock","orientation":"current","seq":3}"#)
        #expect(Request.release(id: "a").jsonLine(seq: 4) == #"{"op":"release","id":"a","seq":4}"#)
        #expect(Request.watchSensors([.proximity, .light]).jsonLine(seq: 5)
            == #"{"op":"watch-sensors","sensors":["light","proximity"],"seq":5}"#)
        #expect(Request.watchSensors([]).jsonLine(seq: 6) == #"{"op":"watch-sensors","sensors":[],"seq":6}"#)
    }
}

@Suite("Socket path")
struct SocketPathTests {
    @Test("an explicit path wins, then ORIENTD_SOCKET, then the default", arguments: [
        ("/tmp/a.sock", "/tmp/env.sock", "/tmp/a.sock"),
        (nil, "/tmp/env.sock", "/tmp/env.sock"),
        ("", "/tmp/env.sock", "/tmp/env.sock"),
        (nil, nil, "/run/orientd/orientd.sock"),
        (nil, "", "/run/orientd/orientd.sock"),
    ] as [(String?, String?, String)])
    func resolution(explicit: String?, environment: String?, expected: String) {
        #expect(OrientClient.resolveSocketPath(explicit, environment: environment) == expected)
    }

    @Test("a client keeps the path it was given")
    func keepsPath() {
        #expect(OrientClient(socketPath: "/tmp/x.sock").socketPath == "/tmp/x.sock")
    }
}

@Suite("State summary and trace lines")
struct FormattingTests {
    @Test("the summary names every field of the state")
    func summary() {
        let state = StateMessage(
            orientation: .leftUp, physical: .leftUp, tilt: .vertical, rotation: 90, layout: .landscape,
            axis: .horizontal, allowed: .allButUpsideDown(natural: .portrait), locked: nil, sensor: .active, tMs: 12)
        #expect(state.summary
            == "left-up (physical left-up, tilt vertical, rotation 90, landscape, allowed normal,left-up,right-up, unlocked, sensor active)")
        var locked = state
        locked.locked = .leftUp
        locked.allowed = []
        #expect(locked.summary.contains("allowed none, locked left-up,"))
    }

    @Test("a recorded header and sample lines read back as the same trace")
    func traceRoundTrip() throws {
        let matrix = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        let samples = [
            Sample(tMs: 0, x: 0, y: -9.81, z: 0.25),
            Sample(tMs: 50.5, x: 1e-7, y: -9.806650000000001, z: -0.0),
            Sample(tMs: 100, x: .nan, y: .infinity, z: -.infinity),
        ]
        let header = Trace(mountMatrix: matrix, rateHz: 20, onChange: false, extraHeaders: [("recorded-by", "orientctl record")])
        let text = header.serialized() + samples.map(\.traceLine).joined()
        let trace = try TraceReader.parse(Array(text.utf8), file: "recorded.trace")
        #expect(trace.mountMatrix == matrix)
        #expect(trace.rateHz == 20)
        #expect(trace.samples.count == 3)
        #expect(Array(trace.samples.prefix(2)) == Array(samples.prefix(2)))
        #expect(trace.samples[2].vector.x.isNaN && trace.samples[2].vector.y == .infinity)
        #expect(samples[0].traceLine == "0,0,-9.81,0.25\n")
    }

    @Test("the samples reply gives the trace header")
    func samplesHeader() throws {
        let line = Reply.samplesOK(seq: 3, mountMatrix: try MountMatrix(parsing: "-1, 0, 0; 0, 1, 0; 0, 0, 1"), rateHz: 50, onChange: true)
        guard case .ok(_, let fields) = try ServerMessage.decode(Array(line.utf8)) else {
            Issue.record("not an ok message: \(line)")
            return
        }
        let trace = try Trace(samplesReply: fields)
        let mirrored = try MountMatrix(parsing: "-1, 0, 0; 0, 1, 0; 0, 0, 1")
        #expect(trace.mountMatrix == mirrored)
        #expect(trace.rateHz == 50)
        #expect(trace.onChange)
        #expect(trace.samples.isEmpty)
    }

    @Test("a samples reply without a usable mount matrix is a protocol error", arguments: [
        #"{"type":"ok","seq":1}"#,
        #"{"type":"ok","seq":1,"mount_matrix":5}"#,
        #"{"type":"ok","seq":1,"mount_matrix":"1, 0, 0; 0, 0, 0; 0, 0, 1"}"#,
        #"{"type":"ok","seq":1,"mount_matrix":"1, 0, 0; 0, 1, 0; 0, 0, 1","rate_hz":-3}"#,
        #"{"type":"ok","seq":1,"mount_matrix":"1, 0, 0; 0, 1, 0; 0, 0, 1","on_change":"yes"}"#,
    ])
    func badSamplesHeader(_ line: String) throws {
        guard case .ok(_, let fields) = try ServerMessage.decode(Array(line.utf8)) else {
            Issue.record("not an ok message: \(line)")
            return
        }
        #expect(throws: OrientClientError.self) { try Trace(samplesReply: fields) }
    }
}
