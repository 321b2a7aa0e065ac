import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol

/// The socket protocol (docs/protocol.md, docs/behaviour.md) spoken to the real daemon over a real
/// Unix socket. Without `--mock` the daemon publishes sensor `absent` and never
/// changes state by itself, so every state change here comes from a request.
@Suite("Socket protocol")
struct ProtocolTests {
    typealias Message = DaemonHarness.Message

    /// The keys of a `state` message, in the order docs/protocol.md gives (`seq` follows `type` in a reply).
    static let stateKeys = [
        "type", "orientation", "physical", "tilt", "rotation", "layout", "axis", "allowed", "locked", "sensor", "tablet_mode", "auto_rotate", "t_ms",
    ]
    static let all = DaemonHarness.all

    // MARK: Hello and the requests

    @Test("the server speaks first: a hello banner naming orientd, its --version and protocol 1")
    func helloBanner() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        let hello = try #require(client.hello)
        #expect(hello.keys == ["type", "server", "version", "protocol"], "\(hello)")
        #expect(hello.type == "hello")
        #expect(hello.string("server") == "orientd")
        #expect(hello.raw.hasSuffix(#","protocol":1}"#), "\(hello)")

        let version = try DaemonHarness(["--version"], waitForSocket: false)
        #expect(version.waitForExit())
        #expect(version.exitStatus == 0)
        let reported = try #require(hello.string("version"))
        #expect(version.stdout.hasPrefix("orientd \(reported)\n"), "hello says \(reported); --version says \(version.stdout)")
        try daemon.stopCleanly()
    }

    @Test("get answers with a state message: the documented fields in the documented order, seq right after type")
    func getAnswersState() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        let reply = try client.request(#"{"op":"get","seq":1}"#)
        #expect(reply.keys == ["type", "seq"] + Self.stateKeys.dropFirst(), "\(reply)")
        #expect(reply.type == "state")
        #expect(reply.seq == 1)
        // No sensor: physical undefined, effective the first allowed in preference order.
        #expect(reply.orientation == "normal")
        #expect(reply.physical == "undefined")
        #expect(reply.number("rotation") == 0)
        #expect(reply.string("layout") == "portrait")
        #expect(reply.string("axis") == "vertical")
        #expect(reply.allowed == Self.all)
        #expect(reply.hasNullLock)
        #expect(reply.sensor == "absent")
        #expect(reply.tMs?.isFinite == true)

        let bare = try client.request(#"{"op":"get"}"#)
        #expect(bare.keys == Self.stateKeys, "without seq the reply has no seq: \(bare)")
        try daemon.stopCleanly()
    }

    @Test("subscribe sends the state at once, then one state per change and nothing else")
    func subscribeThenChanges() throws {
        let daemon = try DaemonHarness()
        let subscriber = try daemon.connect()
        let now = try subscriber.request(#"{"op":"subscribe","seq":2}"#)
        #expect(now.type == "state" && now.seq == 2, "\(now)")
        #expect(now.allowed == Self.all)

        let controller = try daemon.connect()
        let steps: [(request: String, orientation: String, allowed: [String])] = [
            (#"{"op":"constrain","id":"player","allow":["left-up"]}"#, "left-up", ["left-up"]),
            (#"{"op":"constrain","id":"player","allow":["right-up"]}"#, "right-up", ["right-up"]),
            // Unconstrained again, nothing moved physically: the current one is kept.
            (#"{"op":"release","id":"player"}"#, "right-up", Self.all),
        ]
        for step in steps {
            let ok = try controller.request(step.request)
            #expect(ok.raw == #"{"type":"ok"}"#, "\(ok)")
            let pushed = try subscriber.read()
            #expect(pushed.keys == Self.stateKeys, "a pushed state carries no seq: \(pushed)")
            #expect(pushed.orientation == step.orientation, "after \(step.request): \(pushed)")
            #expect(pushed.allowed == step.allowed, "after \(step.request): \(pushed)")
        }
        // Nothing more is queued: the next line is the reply to this get.
        let reply = try subscriber.request(#"{"op":"get","seq":3}"#)
        #expect(reply.seq == 3, "an unexpected message before the reply: \(reply)")
        try daemon.stopCleanly()
    }

    @Test("a subscriber that changes the state gets its ok first, then the pushed state")
    func okBeforePush() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.subscriber()
        try client.send(#"{"op":"constrain","id":"a","allow":["landscape"],"seq":1}"#)
        let first = try client.read()
        let second = try client.read()
        #expect(first.raw == #"{"type":"ok","seq":1}"#, "\(first)")
        #expect(second.type == "state" && !second.hasSeq && second.allowed == ["left-up", "right-up"], "\(second)")
        try daemon.stopCleanly()
    }

    @Test("a request that changes nothing visible pushes no state")
    func noChangeNoPush() throws {
        let daemon = try DaemonHarness()
        let watcher = try daemon.subscriber()
        let client = try daemon.connect()
        // An "all" constraint, and the same lock twice: the second changes nothing.
        #expect(try client.request(#"{"op":"constrain","id":"a","allow":["all"]}"#).type == "ok")
        #expect(try client.request(#"{"op":"lock","orientation":"normal"}"#).type == "ok")
        #expect(try watcher.read().locked == "normal")
        #expect(try client.request(#"{"op":"lock","orientation":"normal"}"#).type == "ok")
        #expect(try client.request(#"{"op":"release","id":"a"}"#).type == "ok")
        let reply = try watcher.request(#"{"op":"get","seq":2}"#)
        #expect(reply.seq == 2, "a state was pushed although nothing changed: \(reply)")
        try daemon.stopCleanly()
    }

    @Test("unsubscribe answers ok, and no state is pushed after it")
    func unsubscribeStops() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.subscriber()
        let ok = try client.request(#"{"op":"unsubscribe","seq":3}"#)
        #expect(ok.raw == #"{"type":"ok","seq":3}"#)

        let controller = try daemon.connect()
        #expect(try controller.request(#"{"op":"constrain","id":"a","allow":["left-up"]}"#).type == "ok")
        // The change was published before the controller read its ok; had it
        // reached `client`, it would come before this reply.
        let reply = try client.request(#"{"op":"get","seq":4}"#)
        #expect(reply.seq == 4, "a state was pushed after unsubscribe: \(reply)")
        #expect(reply.orientation == "left-up")
        try daemon.stopCleanly()
    }

    @Test("constrain answers ok; the same id again replaces that constraint instead of adding one")
    func constrainUpdatesByID() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        let ok = try client.request(#"{"op":"constrain","id":"player","allow":["normal","left-up"],"seq":5}"#)
        #expect(ok.raw == #"{"type":"ok","seq":5}"#)
        #expect(try client.request(#"{"op":"get"}"#).allowed == ["normal", "left-up"])

        // Were it added, {normal,left-up} ∩ {right-up} would be a conflict (all).
        #expect(try client.request(#"{"op":"constrain","id":"player","allow":["right-up"],"seq":6}"#).seq == 6)
        let state = try client.request(#"{"op":"get"}"#)
        #expect(state.allowed == ["right-up"])
        #expect(state.orientation == "right-up")
        #expect(state.number("rotation") == 270)
        #expect(state.string("layout") == "landscape")
        #expect(state.string("axis") == "horizontal")

        // Mask names resolve against the natural geometry (portrait here).
        #expect(try client.request(#"{"op":"constrain","id":"player","allow":["landscape"]}"#).type == "ok")
        #expect(try client.request(#"{"op":"get"}"#).allowed == ["left-up", "right-up"])
        #expect(try client.request(#"{"op":"constrain","id":"player","allow":["all-but-upside-down"]}"#).type == "ok")
        #expect(try client.request(#"{"op":"get"}"#).allowed == ["normal", "left-up", "right-up"])
        try daemon.stopCleanly()
    }

    @Test(
        "on a landscape-native panel portrait is right-up, or what portrait-on-landscape names, and all-but-upside-down leaves out its opposite",
        arguments: [("", "right-up", "left-up"), ("portrait-on-landscape = left-up\n", "left-up", "right-up")])
    func masksOnLandscapePanel(setting: String, portrait: String, upsideDown: String) throws {
        let daemon = try DaemonHarness(config: "[orientation]\nnatural = landscape\n" + setting)
        let client = try daemon.connect()
        #expect(try client.request(#"{"op":"constrain","id":"reader","allow":["portrait"]}"#).type == "ok")
        #expect(try client.request(#"{"op":"get"}"#).allowed == [portrait])
        #expect(try client.request(#"{"op":"constrain","id":"reader","allow":["landscape"]}"#).type == "ok")
        #expect(try client.request(#"{"op":"get"}"#).allowed == ["normal", "bottom-up"])
        #expect(try client.request(#"{"op":"constrain","id":"reader","allow":["all-but-upside-down"]}"#).type == "ok")
        let allowed = try client.request(#"{"op":"get"}"#).allowed
        #expect(allowed == ["normal", "left-up", "bottom-up", "right-up"].filter { $0 != upsideDown })
        try daemon.stopCleanly()
    }

    @Test("release answers ok, or unknown-id for an id this connection does not hold (even another client's)")
    func releaseAndUnknownID() throws {
        let daemon = try DaemonHarness()
        let owner = try daemon.connect()
        let other = try daemon.connect()
        #expect(try owner.request(#"{"op":"constrain","id":"player","allow":["left-up"]}"#).type == "ok")

        let foreign = try other.request(#"{"op":"release","id":"player","seq":7}"#)
        #expect(foreign.type == "error" && foreign.code == "unknown-id" && foreign.seq == 7, "\(foreign)")
        #expect(try other.request(#"{"op":"get"}"#).allowed == ["left-up"], "another client's release took effect")

        #expect(try owner.request(#"{"op":"release","id":"player","seq":8}"#).raw == #"{"type":"ok","seq":8}"#)
        let again = try owner.request(#"{"op":"release","id":"player","seq":9}"#)
        #expect(again.type == "error" && again.code == "unknown-id" && again.seq == 9, "\(again)")
        #expect(again.keys == ["type", "seq", "code", "message"])
        #expect(try owner.request(#"{"op":"get"}"#).allowed == Self.all)
        try daemon.stopCleanly()
    }

    @Test("lock current locks the effective orientation, lock NAME locks that one, unlock clears it")
    func lockAndUnlock() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        #expect(try client.request(#"{"op":"constrain","id":"a","allow":["left-up"]}"#).type == "ok")
        #expect(try client.request(#"{"op":"lock","orientation":"current","seq":10}"#).raw == #"{"type":"ok","seq":10}"#)
        #expect(try client.request(#"{"op":"release","id":"a"}"#).type == "ok")
        var state = try client.request(#"{"op":"get"}"#)
        #expect(state.locked == "left-up", "\(state)")
        #expect(state.orientation == "left-up")

        #expect(try client.request(#"{"op":"lock","orientation":"right-up","seq":11}"#).raw == #"{"type":"ok","seq":11}"#)
        state = try client.request(#"{"op":"get"}"#)
        #expect(state.locked == "right-up" && state.orientation == "right-up", "\(state)")

        // Without an orientation, lock means current.
        #expect(try client.request(#"{"op":"lock"}"#).type == "ok")
        #expect(try client.request(#"{"op":"get"}"#).locked == "right-up")

        #expect(try client.request(#"{"op":"unlock","seq":12}"#).raw == #"{"type":"ok","seq":12}"#)
        state = try client.request(#"{"op":"get"}"#)
        #expect(state.hasNullLock, "\(state)")
        try daemon.stopCleanly()
    }

    @Test("an app constraint that excludes the locked orientation wins over the lock, which comes back on release")
    func constraintBeatsLock() throws {
        let daemon = try DaemonHarness()
        let watcher = try daemon.subscriber()
        let client = try daemon.connect()
        #expect(try client.request(#"{"op":"lock","orientation":"left-up"}"#).type == "ok")
        var state = try watcher.read()
        #expect(state.orientation == "left-up" && state.locked == "left-up", "\(state)")

        #expect(try client.request(#"{"op":"constrain","id":"video","allow":["normal"]}"#).type == "ok")
        state = try watcher.read()
        #expect(state.orientation == "normal", "the constraint must win: \(state)")
        #expect(state.locked == "left-up", "the lock is still reported: \(state)")
        #expect(state.allowed == ["normal"])

        #expect(try client.request(#"{"op":"release","id":"video"}"#).type == "ok")
        state = try watcher.read()
        #expect(state.orientation == "left-up" && state.locked == "left-up", "\(state)")
        try daemon.stopCleanly()
    }

    @Test("samples answers ok with mount_matrix, rate_hz, on_change and where they come from, then one sample line per sensor sample")
    func samplesStream() throws {
        let daemon = try DaemonHarness(["--mock", DaemonHarness.trace("demo.trace"), "--loop", "--speed", "5"])
        let client = try daemon.connect()
        let ok = try client.request(#"{"op":"samples","seq":11}"#)
        #expect(
            ok.keys == ["type", "seq", "mount_matrix", "rate_hz", "on_change", "orientd_version", "mount_matrix_source", "clock", "z_sign"],
            "\(ok)")
        #expect(ok.string("orientd_version") == "0.2.0" && ok.string("mount_matrix_source") == "trace")
        #expect(ok.string("clock") == "trace")
        #expect(ok.type == "ok" && ok.seq == 11)
        #expect(ok.string("mount_matrix") == "1, 0, 0; 0, 1, 0; 0, 0, 1")
        #expect(ok.number("rate_hz") == 20)
        #expect(ok.object["on_change"] as? Bool == false)

        var times: [Double] = []
        for _ in 0..<10 {
            let sample = try client.read()
            #expect(sample.keys == ["type", "t_ms", "x", "y", "z"], "\(sample)")
            #expect(sample.type == "sample")
            let x = try #require(sample.number("x")), y = try #require(sample.number("y")), z = try #require(sample.number("z"))
            let magnitude = (x * x + y * y + z * z).squareRoot()
            #expect(magnitude > 5 && magnitude < 15, "not an acceleration in m/s²: \(sample)")
            times.append(try #require(sample.tMs))
        }
        #expect(times == times.sorted(), "sample times go backwards: \(times)")

        // unsubscribe also ends the samples: none after its ok.
        try client.send(#"{"op":"unsubscribe","seq":12}"#)
        let done = try client.read(until: { $0.seq == 12 })
        #expect(done.match.raw == #"{"type":"ok","seq":12}"#)
        #expect(done.skipped.allSatisfy { $0.type == "sample" })
        let state = try client.request(#"{"op":"get","seq":13}"#)
        #expect(state.seq == 13, "a sample arrived after unsubscribe's ok: \(state)")
        #expect(state.sensor == "mock")
        try daemon.stopCleanly()
    }

    // MARK: seq and error codes

    /// One request line and the reply it must get; `line` carries `"seq":SEQ`.
    struct Exchange: Sendable, CustomTestStringConvertible {
        var line: String
        /// `state`, `ok` or `error`.
        var type: String
        /// The error code when `type` is `error`.
        var code: String?
        var testDescription: String { code.map { "\(line) → \($0)" } ?? "\(line) → \(type)" }
    }

    static let exchanges: [Exchange] = [
        Exchange(line: #"{"op":"get","seq":SEQ}"#, type: "state"),
        Exchange(line: #"{"op":"subscribe","seq":SEQ}"#, type: "state"),
        Exchange(line: #"{"op":"unsubscribe","seq":SEQ}"#, type: "ok"),
        Exchange(line: #"{"op":"constrain","id":"player","allow":["landscape"],"seq":SEQ}"#, type: "ok"),
        Exchange(line: #"{"op":"lock","orientation":"current","seq":SEQ}"#, type: "ok"),
        Exchange(line: #"{"op":"lock","orientation":"bottom-up","seq":SEQ}"#, type: "ok"),
        Exchange(line: #"{"op":"unlock","seq":SEQ}"#, type: "ok"),
        Exchange(line: #"{"op":"samples","seq":SEQ}"#, type: "ok"),
        Exchange(line: #"{"op":"release","id":"nobody","seq":SEQ}"#, type: "error", code: "unknown-id"),
        Exchange(line: #"{"op":"rotate","seq":SEQ}"#, type: "error", code: "unknown-op"),
        Exchange(line: #"{"op":"GET","seq":SEQ}"#, type: "error", code: "unknown-op"),
        Exchange(line: #"{"seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":42,"seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"constrain","id":"a","allow":["sideways"],"seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"constrain","id":"a","allow":["Portrait"],"seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"constrain","id":"a","allow":[],"seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"constrain","id":"a","allow":"all","seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"constrain","id":"a","seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"constrain","allow":["all"],"seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"constrain","id":"","allow":["all"],"seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"constrain","id":7,"allow":["all"],"seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(
            line: #"{"op":"constrain","id":"\#(String(repeating: "x", count: 65))","allow":["all"],"seq":SEQ}"#,
            type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"constrain","id":"a\u0000b","allow":["all"],"seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"release","seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"lock","orientation":"sideways","seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"lock","orientation":"undefined","seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"lock","orientation":5,"seq":SEQ}"#, type: "error", code: "bad-argument"),
        Exchange(line: #"{"op":"lock","orientation":null,"seq":SEQ}"#, type: "error", code: "bad-argument"),
    ]

    @Test("every request gets its reply with seq echoed right after type, errors included", arguments: exchanges)
    func seqEchoed(exchange: Exchange) throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        let seq = 1000 + Self.exchanges.firstIndex { $0.line == exchange.line }!
        let reply = try client.request(exchange.line.replacingOccurrences(of: "SEQ", with: String(seq)))
        #expect(reply.type == exchange.type, "\(reply)")
        #expect(reply.seq == Int64(seq), "\(reply)")
        #expect(reply.raw.hasPrefix(#"{"type":"\#(exchange.type)","seq":\#(seq)"#), "\(reply)")
        if let code = exchange.code {
            #expect(reply.code == code, "\(reply)")
            #expect(reply.keys == ["type", "seq", "code", "message"], "\(reply)")
            #expect((reply.string("message") ?? "").count > 10, "an error says what is wrong: \(reply)")
        }
        // The connection is still usable after any of them.
        #expect(try client.request(#"{"op":"get","seq":1}"#).seq == 1)
        try daemon.stopCleanly()
    }

    @Test("seq is echoed exactly, whatever Int64 it is", arguments: ["0", "-1", "9007199254740993", "9223372036854775807", "-9223372036854775808"])
    func seqEchoedExactly(seq: String) throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        let reply = try client.request(#"{"op":"get","seq":\#(seq)}"#)
        #expect(reply.raw.hasPrefix(#"{"type":"state","seq":\#(seq),"#), "\(reply)")
        try daemon.stopCleanly()
    }

    @Test("a seq that is not an Int64 is a bad-argument error without a seq", arguments: [#""1""#, "1.5", "true", "null", "[1]", "{}", "9223372036854775808"])
    func seqMustBeAnInteger(seq: String) throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        let reply = try client.request(#"{"op":"get","seq":\#(seq)}"#)
        #expect(reply.type == "error" && reply.code == "bad-argument", "\(reply)")
        #expect(!reply.hasSeq, "\(reply)")
        #expect(reply.string("message")?.contains("seq") == true, "\(reply)")
        try daemon.stopCleanly()
    }

    @Test(
        "a line that is not one JSON object is a bad-json error without a seq",
        arguments: [
            "hello there", #"{"op":"get""#, #"{"op":"get","seq":1}{"op":"get"}"#, #"[{"op":"get"}]"#, #""get""#, "42", "null",
            "", #"{"op":"get","op":"get","seq":1}"#, #"{'op':'get'}"#, #"{"op":"get","seq":1,}"#,
            String(repeating: "[", count: 100), #"{"op":"get","x":1e999,"seq":1}"#,
        ])
    func badJSON(line: String) throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        let reply = try client.request(line)
        #expect(reply.type == "error" && reply.code == "bad-json", "\(line) → \(reply)")
        #expect(!reply.hasSeq, "\(reply)")
        #expect(try client.request(#"{"op":"get","seq":2}"#).seq == 2, "the connection must stay usable")
        try daemon.stopCleanly()
    }

    @Test(
        "an error quotes only a clip of what was sent, so no reply passes the line limit",
        arguments: [
            #"{"op":"constrain","id":"a","allow":["LONG"]}"#, #"{"op":"LONG"}"#, #"{"op":"lock","orientation":"LONG"}"#,
            #"{"op":"get","seq":"LONG"}"#, #"{"op":"constrain","id":"LONG","allow":["all"]}"#,
        ])
    func errorsAreClipped(template: String) throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        let line = template.replacingOccurrences(of: "LONG", with: String(repeating: "é", count: 1950))
        #expect(line.utf8.count <= 4096)
        let reply = try client.request(line)
        #expect(reply.type == "error", "\(reply)")
        #expect(reply.raw.utf8.count < 512, "a \(reply.raw.utf8.count)-byte error line")
        try daemon.stopCleanly()
    }

    @Test("unknown fields in a request are ignored (forward compatibility), and a CRLF line end is accepted")
    func unknownFieldsIgnored() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        let reply = try client.request(#"{"v":2,"op":"constrain","id":"a","allow":["normal"],"seq":3,"why":{"app":"x","n":[1,2]}}"#)
        #expect(reply.raw == #"{"type":"ok","seq":3}"#)
        try client.sendRaw(Array(#"{"op":"get","seq":4}"#.utf8) + [0x0D, 0x0A])
        let state = try client.read()
        #expect(state.seq == 4 && state.allowed == ["normal"], "\(state)")
        try daemon.stopCleanly()
    }

    @Test("several requests in one write are answered in order; a bad one among them does not stop the rest")
    func pipelinedRequests() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        try client.sendRaw(Array(
            (#"{"op":"get","seq":1}"# + "\ngarbage\n" + #"{"op":"nope","seq":2}"# + "\n"
                + #"{"op":"constrain","id":"a","allow":["left-up"],"seq":3}"# + "\n" + #"{"op":"get","seq":4}"# + "\n").utf8))
        let replies = try (0..<5).map { _ in try client.read() }
        #expect(replies.map(\.type) == ["state", "error", "error", "ok", "state"], "\(replies)")
        #expect(replies.map(\.seq) == [1, nil, 2, 3, 4])
        #expect(replies.map(\.code) == [nil, "bad-json", "unknown-op", nil, nil])
        #expect(replies.last?.orientation == "left-up")
        try daemon.stopCleanly()
    }

    // MARK: Line length

    /// `{"op":"get","pad":"xxx…"}` padded to exactly `length` bytes.
    static func paddedGet(length: Int) -> String {
        let frame = #"{"op":"get","pad":""}"#
        return #"{"op":"get","pad":""# + String(repeating: "x", count: length - frame.utf8.count) + #""}"#
    }

    @Test("a line of exactly 4096 bytes is served; one of 4097 gets too-long and the connection is closed")
    func lineLimit() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        let longest = Self.paddedGet(length: 4096)
        #expect(longest.utf8.count == 4096)
        #expect(try client.request(longest).type == "state")

        try client.send(Self.paddedGet(length: 4097))
        let error = try client.read()
        #expect(error.type == "error" && error.code == "too-long", "\(error)")
        #expect(error.string("message")?.contains("4096") == true, "\(error)")
        #expect(try client.readUntilClosed() == [], "the connection must close after too-long")
        #expect(daemon.waitForStderr(containing: "longer than 4096 bytes"), "the daemon logs it: \(daemon.stderr)")
        #expect(try daemon.freshState().allowed == Self.all)
        try daemon.stopCleanly()
    }

    @Test("an endless line without a newline gets too-long as soon as it passes the limit")
    func endlessLine() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        try client.sendRaw(Array(repeating: UInt8(ascii: "a"), count: 5000))
        let error = try client.read()
        #expect(error.code == "too-long", "\(error)")
        #expect(try client.readUntilClosed() == [])
        #expect(try daemon.freshState().type == "state")
        try daemon.stopCleanly()
    }

    @Test("[limits] line-length sets the limit")
    func configuredLineLength() throws {
        let daemon = try DaemonHarness(config: DaemonHarness.defaultConfig + "[limits]\nline-length = 100\n")
        let client = try daemon.connect()
        #expect(try client.request(Self.paddedGet(length: 100)).type == "state")
        try client.send(Self.paddedGet(length: 101))
        let error = try client.read()
        #expect(error.code == "too-long" && error.string("message")?.contains("100") == true, "\(error)")
        #expect(try client.readUntilClosed() == [])
        try daemon.stopCleanly()
    }

    // MARK: Limits

    @Test("past [limits] constraints-per-client a constrain gets a limit error; updating a held id still works")
    func constraintLimit() throws {
        let daemon = try DaemonHarness(config: DaemonHarness.defaultConfig + "[limits]\nconstraints-per-client = 2\n")
        let client = try daemon.connect()
        #expect(try client.request(#"{"op":"constrain","id":"a","allow":["all"]}"#).type == "ok")
        #expect(try client.request(#"{"op":"constrain","id":"b","allow":["all"]}"#).type == "ok")
        let refused = try client.request(#"{"op":"constrain","id":"c","allow":["normal"],"seq":3}"#)
        #expect(refused.type == "error" && refused.code == "limit" && refused.seq == 3, "\(refused)")
        #expect(try client.request(#"{"op":"get"}"#).allowed == Self.all, "the refused constraint took effect")
        #expect(try client.request(#"{"op":"constrain","id":"a","allow":["left-up"]}"#).type == "ok")
        // The limit is per client.
        let other = try daemon.connect()
        #expect(try other.request(#"{"op":"constrain","id":"c","allow":["left-up","right-up"]}"#).type == "ok")
        // Released, a slot is free again.
        #expect(try client.request(#"{"op":"release","id":"b"}"#).type == "ok")
        #expect(try client.request(#"{"op":"constrain","id":"c","allow":["left-up"]}"#).type == "ok")
        #expect(try client.request(#"{"op":"get"}"#).allowed == ["left-up"])
        try daemon.stopCleanly()
    }

    @Test("a client past [limits] clients gets a limit error instead of hello and is closed; the others are served")
    func clientLimit() throws {
        let daemon = try DaemonHarness(config: DaemonHarness.defaultConfig + "[limits]\nclients = 3\n")
        let admitted = try (0..<3).map { _ in try daemon.connectWhenAdmitted() }
        let extra = try daemon.connect(readHello: false)
        let refused = try extra.read()
        #expect(refused.type == "error" && refused.code == "limit", "\(refused)")
        #expect(!refused.hasSeq)
        #expect(try extra.readUntilClosed() == [], "the refused client must be closed")
        #expect(daemon.waitForStderr(containing: "refused"), "the daemon logs the refusal: \(daemon.stderr)")
        for (index, client) in admitted.enumerated() {
            #expect(try client.request(#"{"op":"get","seq":\#(index)}"#).seq == Int64(index))
        }
        // One leaves: there is room again.
        admitted[0].close()
        let next = try daemon.connectWhenAdmitted()
        #expect(try next.request(#"{"op":"get","seq":9}"#).seq == 9)
        try daemon.stopCleanly()
    }

    // MARK: Arbitration (docs/protocol.md)

    @Test("the allowed set is the intersection of every client's constraints")
    func intersection() throws {
        let daemon = try DaemonHarness()
        let a = try daemon.connect()
        let b = try daemon.connect()
        #expect(try a.request(#"{"op":"constrain","id":"reader","allow":["normal","left-up"]}"#).type == "ok")
        #expect(try b.request(#"{"op":"constrain","id":"game","allow":["landscape"]}"#).type == "ok")
        var state = try a.request(#"{"op":"get"}"#)
        #expect(state.allowed == ["left-up"] && state.orientation == "left-up", "\(state)")
        #expect(try b.request(#"{"op":"constrain","id":"more","allow":["all-but-upside-down"]}"#).type == "ok")
        state = try a.request(#"{"op":"get"}"#)
        #expect(state.allowed == ["left-up"], "\(state)")
        #expect(try b.request(#"{"op":"release","id":"game"}"#).type == "ok")
        state = try a.request(#"{"op":"get"}"#)
        #expect(state.allowed == ["normal", "left-up"], "\(state)")
        try daemon.stopCleanly()
    }

    @Test("conflicting constraints fall back to default-allowed, which is all by default")
    func conflictFallsBackToAll() throws {
        let daemon = try DaemonHarness()
        let a = try daemon.connect()
        let b = try daemon.connect()
        #expect(try a.request(#"{"op":"constrain","id":"x","allow":["normal"]}"#).type == "ok")
        #expect(try b.request(#"{"op":"constrain","id":"y","allow":["right-up"]}"#).type == "ok")
        let state = try a.request(#"{"op":"get"}"#)
        #expect(state.allowed == Self.all, "\(state)")
        try daemon.stopCleanly()
    }

    @Test("a configured default-allowed is the allowed set without constraints and on a conflict")
    func configuredDefaultAllowed() throws {
        let daemon = try DaemonHarness(config: "[orientation]\nnatural = portrait\ndefault-allowed = landscape\n")
        let a = try daemon.connect()
        var state = try a.request(#"{"op":"get"}"#)
        #expect(state.allowed == ["left-up", "right-up"], "\(state)")
        #expect(state.orientation == "left-up", "\(state)")
        let b = try daemon.connect()
        #expect(try a.request(#"{"op":"constrain","id":"x","allow":["normal"]}"#).type == "ok")
        #expect(try a.request(#"{"op":"get"}"#).allowed == ["normal"], "a constraint may allow what the default does not")
        #expect(try b.request(#"{"op":"constrain","id":"y","allow":["bottom-up"]}"#).type == "ok")
        state = try a.request(#"{"op":"get"}"#)
        #expect(state.allowed == ["left-up", "right-up"], "\(state)")
        try daemon.stopCleanly()
    }

    @Test("a client's constraints vanish when it disconnects, and subscribers see the state change back")
    func constraintsVanishOnDisconnect() throws {
        let daemon = try DaemonHarness()
        let watcher = try daemon.subscriber()
        let keeper = try daemon.connect()
        #expect(try keeper.request(#"{"op":"constrain","id":"k","allow":["all-but-upside-down"]}"#).type == "ok")
        #expect(try watcher.read().allowed == ["normal", "left-up", "right-up"])

        let app = try daemon.connect()
        #expect(try app.request(#"{"op":"constrain","id":"one","allow":["landscape"]}"#).type == "ok")
        #expect(try watcher.read().allowed == ["left-up", "right-up"])
        #expect(try app.request(#"{"op":"constrain","id":"two","allow":["right-up"]}"#).type == "ok")
        let constrained = try watcher.read()
        #expect(constrained.allowed == ["right-up"] && constrained.orientation == "right-up", "\(constrained)")

        app.close()
        let back = try watcher.read()
        #expect(back.allowed == ["normal", "left-up", "right-up"], "both of its constraints go at once: \(back)")
        #expect(try daemon.freshState().allowed == ["normal", "left-up", "right-up"])
        try daemon.stopCleanly()
    }

    // MARK: Hostile input (docs/behaviour.md)

    /// Bytes a client sends, and whether it then hangs up instead of going on.
    struct HostileInput: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var bytes: [UInt8]
        /// The error code of the first reply when the client stays (nil: not checked).
        var code: String?
        var hangsUp: Bool

        static func text(_ name: String, _ text: String, code: String?, hangsUp: Bool = false) -> HostileInput {
            HostileInput(testDescription: name, bytes: Array(text.utf8), code: code, hangsUp: hangsUp)
        }
    }

    static let hostileInputs: [HostileInput] = [
        .text("garbage text", "GET / HTTP/1.1\r\nHost: orientd\r\n\r\n", code: "bad-json"),
        HostileInput(testDescription: "invalid UTF-8", bytes: [0xFF, 0xFE, 0x80, 0xC0, 0x0A], code: "bad-json", hangsUp: false),
        HostileInput(
            testDescription: "invalid UTF-8 inside a JSON string",
            bytes: Array(#"{"op":"constrain","id":""#.utf8) + [0xC3] + Array(#"","allow":["normal"],"seq":1}"#.utf8) + [0x0A],
            code: "bad-json", hangsUp: false),
        HostileInput(
            testDescription: "an overlong UTF-8 encoding",
            bytes: Array(#"{"op":"get","x":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8) + [0x0A], code: "bad-json", hangsUp: false),
        HostileInput(
            testDescription: "a UTF-16 surrogate encoded in UTF-8",
            bytes: Array(#"{"op":"get","x":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8) + [0x0A], code: "bad-json",
            hangsUp: false),
        HostileInput(testDescription: "NUL bytes", bytes: [0, 0, 0, 0x0A], code: "bad-json", hangsUp: false),
        HostileInput(
            testDescription: "a NUL byte inside a request",
            bytes: Array(#"{"op":"constrain","id":"a"#.utf8) + [0] + Array(#"b","allow":["normal"]}"#.utf8) + [0x0A],
            code: "bad-json", hangsUp: false),
        .text("JSON nested 2000 deep", String(repeating: "[", count: 2000) + "\n", code: "bad-json"),
        .text("a half-written line, then disconnect", #"{"op":"constrain","id":"x","allow":["norm"#, code: nil, hangsUp: true),
        .text(
            "a constraint, then half a line, then disconnect",
            #"{"op":"constrain","id":"x","allow":["left-up"]}"# + "\n" + #"{"op":"lock","orientation":"ri"#, code: nil,
            hangsUp: true),
        HostileInput(testDescription: "random bytes, then disconnect", bytes: noiseLines(count: 20000, seed: 7), code: nil, hangsUp: true),
        .text("nothing at all, then disconnect", "", code: nil, hangsUp: true),
    ]

    @Test("after hostile input a fresh client gets a correct state and the daemon is still alive", arguments: hostileInputs)
    func hostileInput(input: HostileInput) throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        try client.sendRaw(input.bytes)
        if input.hangsUp {
            client.close()
        } else {
            let reply = try client.read()
            if let code = input.code { #expect(reply.type == "error" && reply.code == code, "\(reply)") }
            // A bad line keeps the connection usable.
            try client.send(#"{"op":"get","seq":78}"#)
            let answer = try client.read(until: { $0.seq == 78 })
            #expect(answer.match.type == "state", "\(answer.match)")
            #expect(answer.skipped.allSatisfy { $0.type == "error" }, "\(answer.skipped)")
        }
        // The daemon may see the hang-up after the next client connects: wait for it.
        let fresh = try daemon.eventuallyState { $0.allowed == Self.all }
        #expect(daemon.isRunning)
        #expect(fresh.sensor == "absent" && fresh.hasNullLock && fresh.orientation != nil, "\(fresh)")
        #expect(fresh.allowed == Self.all, "nothing from the hostile client may stay in effect: \(fresh)")
        try daemon.stopCleanly()
    }

    @Test(
        "at the fd limit new connections are closed instead of left hanging, without a busy loop, and the daemon recovers",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs /usr/bin/prlimit"))
    func connectionFloodAtFDLimit() throws {
        let daemon = try DaemonHarness(launcher: ["/usr/bin/prlimit", "--nofile=24"])
        let watcher = try daemon.subscriber()
        var clients: [DaemonHarness.Client] = []
        for _ in 0..<40 { clients.append(try daemon.connect(readHello: false)) }
        // Each gets its hello or sees its connection closed; none is left waiting.
        var greeted = 0
        var refused = 0
        for client in clients {
            if let line = try client.readLine(timeout: 5) {
                #expect(line.hasPrefix(#"{"type":"hello""#), "\(line)")
                greeted += 1
            } else {
                refused += 1
            }
        }
        #expect(refused > 0, "the fd limit was never reached (\(greeted) greeted)")
        #expect(daemon.waitForStderr(containing: "out of file descriptors"), "\(daemon.stderr)")
        // Idle at the limit: a busy accept loop would burn a whole core here.
        let before = try #require(ProcessStats.cpuTicks(daemon.pid))
        let window = DispatchSemaphore(value: 0)
        _ = window.wait(timeout: .now() + 0.5)
        let used = try #require(ProcessStats.cpuTicks(daemon.pid)) - before
        #expect(used < 20, "the daemon used \(used) ticks of CPU in 0.5 s while idle at the fd limit")

        // The subscriber was never disturbed; once clients leave, new ones are served.
        #expect(try watcher.request(#"{"op":"get","seq":1}"#).seq == 1)
        for client in clients { client.close() }
        let deadline = ContinuousClock.now + .seconds(5)
        var served = false
        while !served, ContinuousClock.now < deadline {
            served = (try? daemon.freshState()) != nil
        }
        #expect(served, "no client was served after the flood ended")
        try daemon.stopCleanly()
    }
}
