import TestSupport
import Testing

@testable import OrientProtocol

private func decode(_ line: String) -> Result<RequestLine, ProtocolError> {
    RequestDecoder.decode(Array(line.utf8))
}

private func serverMessage(_ line: String) throws(ProtocolDecodeError) -> ServerMessage {
    try ServerMessage.decode(Array(line.utf8))
}

private let id64 = String(repeating: "p", count: 64)
private let sixteenNames = Array(repeating: "landscape", count: 16)
// The lines built by interpolation, named here: Swift 6.0 crashes on string
// interpolation inside @Test(arguments:).
private let longestConstrain = #"{"op":"constrain","id":"\#(id64)","allow":\#(jsonArray(sixteenNames))}"#
private let longOp = #"{"op":"\#(String(repeating: "x", count: 100))"}"#
private let longOpShown = "'\(String(repeating: "x", count: 64))…'"
private let id65Constrain = #"{"op":"constrain","seq":9,"id":"\#(id64)p","allow":["all"]}"#
private let id66BytesConstrain = #"{"op":"constrain","seq":9,"id":"\#(String(repeating: "é", count: 33))","allow":["all"]}"#
private let seventeenNamesConstrain = #"{"op":"constrain","seq":9,"id":"p","allow":\#(jsonArray(Array(repeating: "all", count: 17)))}"#

@Suite("Protocol requests")
struct ProtocolMessageRequestTests {
    @Test(
        "every op decodes in its valid forms",
        arguments: [
            (#"{"op":"get"}"#, RequestLine(request: .get)),
            (#"{"op":"subscribe"}"#, RequestLine(request: .subscribe)),
            (#"{"op":"unsubscribe"}"#, RequestLine(request: .unsubscribe)),
            (#"{"op":"unlock"}"#, RequestLine(request: .unlock)),
            (#"{"op":"samples"}"#, RequestLine(request: .samples)),
            (#"{"op":"constrain","id":"player","allow":["landscape"]}"#,
             RequestLine(request: .constrain(id: "player", allow: ["landscape"]))),
            (#"{"allow":["normal","left-up","bottom-up","right-up"],"id":"x","op":"constrain"}"#,
             RequestLine(request: .constrain(id: "x", allow: ["normal", "left-up", "bottom-up", "right-up"]))),
            (#"{"op":"constrain","id":"a b","allow":["portrait","all","all-but-upside-down","portrait"]}"#,
             RequestLine(request: .constrain(id: "a b", allow: ["portrait", "all", "all-but-upside-down", "portrait"]))),
            (#"{"op":"constrain","id":"lecteur vidéo 🎬","allow":["all"]}"#,
             RequestLine(request: .constrain(id: "lecteur vidéo 🎬", allow: ["all"]))),
            (longestConstrain,
             RequestLine(request: .constrain(id: id64, allow: sixteenNames))),
            (#"{"op":"release","id":"player"}"#, RequestLine(request: .release(id: "player"))),
            (#"{"op":"lock"}"#, RequestLine(request: .lock(.current))),
            (#"{"op":"lock","orientation":"current"}"#, RequestLine(request: .lock(.current))),
            (#"{"op":"lock","orientation":"normal"}"#, RequestLine(request: .lock(.orientation(.normal)))),
            (#"{"op":"lock","orientation":"left-up"}"#, RequestLine(request: .lock(.orientation(.leftUp)))),
            (#"{"op":"lock","orientation":"bottom-up"}"#, RequestLine(request: .lock(.orientation(.bottomUp)))),
            (#"{"op":"lock","orientation":"right-up"}"#, RequestLine(request: .lock(.orientation(.rightUp)))),
            // seq: any integer within Int64, echoed exactly.
            (#"{"op":"get","seq":1}"#, RequestLine(seq: 1, request: .get)),
            (#"{"seq":0,"op":"get"}"#, RequestLine(seq: 0, request: .get)),
            (#"{"op":"get","seq":-5}"#, RequestLine(seq: -5, request: .get)),
            (#"{"op":"get","seq":1.0}"#, RequestLine(seq: 1, request: .get)),
            (#"{"op":"get","seq":2e3}"#, RequestLine(seq: 2000, request: .get)),
            (#"{"op":"get","seq":-0}"#, RequestLine(seq: 0, request: .get)),
            (#"{"op":"get","seq":9007199254740993}"#, RequestLine(seq: 9_007_199_254_740_993, request: .get)),
            (#"{"op":"get","seq":9223372036854775807}"#, RequestLine(seq: .max, request: .get)),
            (#"{"op":"get","seq":-9223372036854775808}"#, RequestLine(seq: .min, request: .get)),
            // Forward compatibility: unknown keys are ignored.
            (#"{"op":"get","future":{"x":[1,2]},"id":7}"#, RequestLine(request: .get)),
            (#"{"op":"unlock","orientation":"normal"}"#, RequestLine(request: .unlock)),
            // Whitespace and a trailing carriage return are fine.
            (" {\t\"op\" : \"get\" , \"seq\" : 4 } ", RequestLine(seq: 4, request: .get)),
            ("{\"op\":\"get\"}\r", RequestLine(request: .get)),
        ])
    func validRequests(line: String, expected: RequestLine) {
        #expect(decode(line) == .success(expected))
    }

    @Test(
        "every error path gives its code, echoes seq once it was read, and names the problem",
        arguments: [
            // bad-json: not JSON, or not an object.
            ("", ErrorCode.badJSON, nil, "empty input: expected a JSON value at byte 0"),
            ("{", .badJSON, nil, "not valid JSON: unexpected end of input"),
            (#"{"op":"get","seq":1"#, .badJSON, nil, "at byte 19"),
            (#"{"op" "get"}"#, .badJSON, nil, "expected ':' after object key, found '\"' at byte 6"),
            (#"{"op":"get"} {"op":"get"}"#, .badJSON, nil, "after the end of the JSON value"),
            (#"{"op":"get","op":"get"}"#, .badJSON, nil, "duplicate key"),
            (#"{"op":"\uD800"}"#, .badJSON, nil, "lone high surrogate"),
            ("[]", .badJSON, nil, "must be a JSON object, not an array"),
            (#""get""#, .badJSON, nil, "not a string"),
            ("null", .badJSON, nil, "not null"),
            ("7", .badJSON, nil, "not a number"),
            // seq itself bad: bad-argument without a seq.
            (#"{"op":"get","seq":1.5}"#, .badArgument, nil, "'seq' must be an integer, not 1.5"),
            (#"{"op":"get","seq":"1"}"#, .badArgument, nil, "'seq' must be an integer, not a string ('1')"),
            (#"{"op":"get","seq":1e30}"#, .badArgument, nil, "not 1e+30"),
            (#"{"op":"get","seq":9223372036854775808}"#, .badArgument, nil, "'seq' must be an integer"),
            (#"{"op":"get","seq":-9223372036854775809}"#, .badArgument, nil, "'seq' must be an integer"),
            (#"{"op":"get","seq":null}"#, .badArgument, nil, "not null"),
            (#"{"op":"get","seq":true}"#, .badArgument, nil, "not a Boolean"),
            (#"{"op":"get","seq":[1]}"#, .badArgument, nil, "not an array"),
            // op.
            (#"{"seq":3}"#, .badArgument, 3, "missing 'op'"),
            (#"{"seq":3,"op":1}"#, .badArgument, 3, "'op' must be a string, not 1"),
            (#"{"seq":3,"op":null}"#, .badArgument, 3, "'op' must be a string, not null"),
            (#"{"op":"fly","seq":3}"#, .unknownOp, 3, "unknown op 'fly' (expected get, subscribe, unsubscribe, constrain, release, lock, unlock, samples, status or watch-sensors)"),
            (#"{"op":"GET"}"#, .unknownOp, nil, "'GET'"),
            (#"{"op":""}"#, .unknownOp, nil, "unknown op ''"),
            (longOp, .unknownOp, nil, longOpShown),
            // constrain: id.
            (#"{"op":"constrain","seq":9,"allow":["all"]}"#, .badArgument, 9, "constrain needs 'id'"),
            (#"{"op":"constrain","seq":9,"id":5,"allow":["all"]}"#, .badArgument, 9, "'id' must be a string, not 5"),
            (#"{"op":"constrain","seq":9,"id":"","allow":["all"]}"#, .badArgument, 9, "'id' must not be empty"),
            (id65Constrain, .badArgument, 9, "'id' is 65 bytes long; at most 64"),
            (id66BytesConstrain, .badArgument, 9, "66 bytes"),
            (#"{"op":"constrain","seq":9,"id":"a\nb","allow":["all"]}"#, .badArgument, 9, "control characters (found U+000A)"),
            (#"{"op":"constrain","seq":9,"id":"a\u007f","allow":["all"]}"#, .badArgument, 9, "U+007F"),
            (#"{"op":"constrain","seq":9,"id":"a\u0085","allow":["all"]}"#, .badArgument, 9, "U+0085"),
            // constrain: allow.
            (#"{"op":"constrain","seq":9,"id":"p"}"#, .badArgument, 9, "constrain needs 'allow'"),
            (#"{"op":"constrain","seq":9,"id":"p","allow":"landscape"}"#, .badArgument, 9, "'allow' must be an array of orientation mask names, not a string ('landscape')"),
            (#"{"op":"constrain","seq":9,"id":"p","allow":[]}"#, .badArgument, 9, "empty orientation mask"),
            (seventeenNamesConstrain, .badArgument, 9, "'allow' has 17 names; at most 16"),
            (#"{"op":"constrain","seq":9,"id":"p","allow":["all",2]}"#, .badArgument, 9, "'allow' entry 2 must be a string, not 2"),
            (#"{"op":"constrain","seq":9,"id":"p","allow":["sideways"]}"#, .badArgument, 9, "unknown orientation mask name 'sideways'"),
            (#"{"op":"constrain","seq":9,"id":"p","allow":["normal","undefined"]}"#, .badArgument, 9, "unknown orientation mask name 'undefined'"),
            (#"{"op":"constrain","seq":9,"id":"p","allow":["Landscape"]}"#, .badArgument, 9, "'Landscape'"),
            // release.
            (#"{"op":"release","seq":-2}"#, .badArgument, -2, "release needs 'id'"),
            (#"{"op":"release","seq":-2,"id":["p"]}"#, .badArgument, -2, "'id' must be a string, not an array"),
            // lock.
            (#"{"op":"lock","seq":11,"orientation":"undefined"}"#, .badArgument, 11, "cannot lock to 'undefined'"),
            (#"{"op":"lock","seq":11,"orientation":"landscape"}"#, .badArgument, 11, "cannot lock to 'landscape' (expected current, normal, left-up, bottom-up or right-up)"),
            (#"{"op":"lock","seq":11,"orientation":1}"#, .badArgument, 11, "'orientation' must be a string"),
            (#"{"op":"lock","seq":11,"orientation":null}"#, .badArgument, 11, "not null"),
        ] as [(String, ErrorCode, Int64?, String)])
    func errorPaths(line: String, code: ErrorCode, seq: Int64?, fragment: String) throws {
        guard case .failure(let error) = decode(line) else {
            Issue.record("\(line) decoded")
            return
        }
        #expect(error.code == code, "\(line): \(error)")
        #expect(error.seq == seq, "\(line): \(error)")
        #expect(error.message.contains(fragment), "\(line): \(error.message)")
        // The reply carries the same code, seq and message.
        let reply = try serverMessage(error.json())
        #expect(reply == .error(error))
    }

    @Test("invalid UTF-8 anywhere in a line is bad-json", arguments: [
        [0x7B, 0x22, 0x6F, 0x70, 0x22, 0x3A, 0x22, 0xC0, 0xA0, 0x22, 0x7D],  // overlong in a value
        [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D],  // in a key
        [0xEF, 0xBB, 0xBF, 0x7B, 0x7D],  // byte order mark
    ] as [[UInt8]])
    func invalidUTF8(line: [UInt8]) {
        guard case .failure(let error) = RequestDecoder.decode(line) else {
            Issue.record("decoded")
            return
        }
        #expect(error.code == .badJSON)
        #expect(error.seq == nil)
    }

    @Test("decodes from a slice of a larger read buffer")
    func decodesSlices() {
        let buffer = Array("{\"op\":\"get\",\"seq\":1}\n{\"op\":\"unlock\"}\n".utf8)
        let lines = buffer.split(separator: 0x0A)
        #expect(lines.map { RequestDecoder.decode($0) } == [
            .success(RequestLine(seq: 1, request: .get)), .success(RequestLine(request: .unlock)),
        ])
    }

    @Test("a hundred thousand get lines decode, every one the same")
    func manyLines() {
        let line = Array(#"{"op":"get","seq":1}"#.utf8)
        let expected: Result<RequestLine, ProtocolError> = .success(RequestLine(seq: 1, request: .get))
        var decoded = 0
        for _ in 0..<100_000 where RequestDecoder.decode(line) == expected {
            decoded += 1
        }
        #expect(decoded == 100_000)
    }

    @Test("the published name lists match the orientation and mask types")
    func nameLists() throws {
        for name in RequestDecoder.maskNames {
            #expect(throws: Never.self) { try OrientationMask(name: name, natural: .portrait) }
        }
        #expect(RequestDecoder.ops.count == 10)
    }
}

@Suite("Protocol replies")
struct ProtocolMessageReplyTests {
    @Test("replies are single JSON lines in the documented form")
    func exactForms() throws {
        #expect(Reply.hello(version: "0.1.0") == #"{"type":"hello","server":"orientd","version":"0.1.0","protocol":1}"#)
        #expect(Reply.ok(seq: nil) == #"{"type":"ok"}"#)
        #expect(Reply.ok(seq: 42) == #"{"type":"ok","seq":42}"#)
        let matrix = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        #expect(Reply.samplesOK(seq: 7, mountMatrix: matrix, rateHz: 20, onChange: false)
            == #"{"type":"ok","seq":7,"mount_matrix":"0, 1, 0; -1, 0, 0; 0, 0, 1","rate_hz":20,"on_change":false}"#)
        #expect(Reply.samplesOK(seq: nil, mountMatrix: .identity, rateHz: nil, onChange: true)
            == #"{"type":"ok","mount_matrix":"1, 0, 0; 0, 1, 0; 0, 0, 1","on_change":true}"#)
        #expect(Reply.samplesOK(seq: nil, mountMatrix: .identity, rateHz: 12.5, onChange: false).contains(#""rate_hz":12.5,"#))
        #expect(Reply.sample(tMs: 1234.5, vector: Vector3(0.25, -9.80665, 0))
            == #"{"type":"sample","t_ms":1234.5,"x":0.25,"y":-9.80665,"z":0}"#)
        #expect(ProtocolError(code: .unknownID, message: "no constraint \"x\"", seq: 3).json()
            == #"{"type":"error","seq":3,"code":"unknown-id","message":"no constraint \"x\""}"#)
        #expect(ProtocolError(code: .limit, message: "too many clients").json()
            == #"{"type":"error","code":"limit","message":"too many clients"}"#)
        #expect(ProtocolError.tooLong(limit: 4096).json()
            == #"{"type":"error","code":"too-long","message":"line longer than 4096 bytes; closing the connection"}"#)
    }

    @Test("no reply contains a newline", arguments: [
        Reply.hello(version: "1\n2"), ProtocolError(code: .badJSON, message: "a\nb\rc", seq: 1).json(),
        Reply.sample(tMs: .nan, vector: Vector3(.nan, .infinity, 1)),
    ])
    func singleLine(reply: String) throws {
        #expect(!reply.utf8.contains(0x0A) && !reply.utf8.contains(0x0D))
        #expect(throws: Never.self) { try JSONParser.parse(reply.utf8) }
    }

    @Test("hello round-trips", arguments: ["0.1.0", "1.2.3-dirty+g1234", "", "vé\"rs\\ion"])
    func helloRoundTrip(version: String) throws {
        #expect(try serverMessage(Reply.hello(version: version)) == .hello(version: version, protocol: 1))
    }

    @Test("ok round-trips with and without seq, keeping the samples fields in order", arguments: [nil, 0, 1, -1, .max, .min] as [Int64?])
    func okRoundTrip(seq: Int64?) throws {
        #expect(try serverMessage(Reply.ok(seq: seq)) == .ok(seq: seq, fields: []))
        let matrix = try MountMatrix(parsing: "0, -1, 0; 1, 0, 0; 0, 0, -1")
        let line = Reply.samplesOK(seq: seq, mountMatrix: matrix, rateHz: 100, onChange: true)
        let expected: [JSONMember] = [
            JSONMember(key: "mount_matrix", value: .string(matrix.description)),
            JSONMember(key: "rate_hz", value: .number(100)),
            JSONMember(key: "on_change", value: .bool(true)),
        ]
        #expect(try serverMessage(line) == .ok(seq: seq, fields: expected))
        // What `orientctl record` does with it: the matrix reads back equal.
        guard case .ok(_, let fields) = try serverMessage(line) else { return }
        let text = try #require(fields.first { $0.key == "mount_matrix" }?.value.string)
        #expect(try MountMatrix(parsing: text) == matrix)
    }

    @Test("every error code round-trips, with and without seq", arguments: ErrorCode.allCases)
    func errorRoundTrip(code: ErrorCode) throws {
        for seq in [nil, 5] as [Int64?] {
            let error = ProtocolError(code: code, message: "what went wrong: \"x\"\n\u{1}é", seq: seq)
            #expect(try serverMessage(error.json()) == .error(error))
        }
    }

    @Test(
        "samples round-trip in the sensor frame",
        arguments: [
            (0.0, Vector3(0, -9.80665, 0)), (1234.567, Vector3(0.123456789, 1e-7, -19.6133)),
            (-5, Vector3(-0.0, 156.9, .greatestFiniteMagnitude)), (9_000_000_000.125, Vector3(1, 2, 3)),
        ] as [(Double, Vector3)])
    func sampleRoundTrip(tMs: Double, vector: Vector3) throws {
        #expect(try serverMessage(Reply.sample(tMs: tMs, vector: vector)) == .sample(tMs: tMs, vector: vector))
    }

    @Test("a non-finite sample component is sent as null and reads back as NaN")
    func nonFiniteSample() throws {
        let line = Reply.sample(tMs: 1, vector: Vector3(.nan, .infinity, 2))
        #expect(line == #"{"type":"sample","t_ms":1,"x":null,"y":null,"z":2}"#)
        guard case .sample(let t, let v) = try serverMessage(line) else {
            Issue.record("not a sample")
            return
        }
        #expect(t == 1 && v.x.isNaN && v.y.isNaN && v.z == 2)
    }
}

@Suite("Protocol state messages")
struct ProtocolMessageStateTests {
    static let masks: [OrientationMask] = [.all, .allButUpsideDown(natural: .portrait), [.normal], [.leftUp, .rightUp], [.bottomUp], []]

    @Test("StateMessage.json decodes back equal for a grid of states", arguments: Orientation.allCases)
    func stateGrid(orientation: Orientation) throws {
        var checked = 0
        var mismatches: [String] = []
        for physical in Orientation.allCases {
            for locked in [nil, .normal, .leftUp, .bottomUp, .rightUp] as [Orientation?] {
                for sensor in SensorStatus.allCases {
                    for (index, allowed) in Self.masks.enumerated() {
                        // Tilt, time and seq are independent of the rest: cycle them instead of nesting.
                        let tilt = Tilt.allCases[checked % Tilt.allCases.count]
                        let tMs = [0, 1234.5, 0.001, 86_400_000.125, 1e12, -3.25, 7][checked % 7]
                        let seq: Int64? = checked % 3 == 0 ? nil : Int64(checked) * (checked % 2 == 0 ? 1 : -1)
                        let natural: NaturalGeometry = index % 2 == 0 ? .portrait : .landscape
                        let layout = Layout(orientation: orientation, natural: natural)
                        let state = StateMessage(
                            orientation: orientation, physical: physical, tilt: tilt, rotation: orientation.rotation,
                            layout: layout, axis: layout.axis, allowed: allowed, locked: locked, sensor: sensor,
                            tMs: tMs)
                        let line = state.json(seq: seq)
                        // One expectation for the whole grid keeps the run fast.
                        if try StateMessage(jsonLine: Array(line.utf8)) != state
                            || serverMessage(line) != .state(state, seq: seq)
                        {
                            mismatches.append(line)
                        }
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 5 * 5 * 4 * Self.masks.count)
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test("the example state line of docs/protocol.md decodes")
    func specExample() throws {
        let line = #"{"type":"state","orientation":"left-up","physical":"left-up","tilt":"vertical","rotation":90,"layout":"landscape","axis":"horizontal","allowed":["normal","left-up","right-up"],"locked":null,"sensor":"active","tablet_mode":"unknown","auto_rotate":"always","t_ms":1234.5}"#
        let expected = StateMessage(
            orientation: .leftUp, physical: .leftUp, tilt: .vertical, rotation: 90, layout: .landscape,
            axis: .horizontal, allowed: .allButUpsideDown(natural: .portrait), locked: nil, sensor: .active, tMs: 1234.5)
        #expect(try StateMessage(jsonLine: Array(line.utf8)) == expected)
        #expect(expected.json() == line)
    }

    @Test("a newer server's extra keys are ignored; a missing locked means unlocked")
    func forwardCompatible() throws {
        let line = #"{"type":"state","orientation":"normal","physical":"normal","tilt":"face-up","rotation":0,"layout":"portrait","axis":"vertical","allowed":["normal"],"sensor":"mock","tablet_mode":"unknown","auto_rotate":"always","t_ms":1,"brightness":0.5}"#
        let state = try StateMessage(jsonLine: Array(line.utf8))
        #expect(state.locked == nil && state.tilt == .faceUp && state.sensor == .mock)
    }

    @Test(
        "state lines that cannot be decoded say which field is wrong",
        arguments: [
            (#"{"type":"hello","version":"1","protocol":1}"#, "expected a state message, got type 'hello'"),
            (#"{"type":"state"}"#, "state message is missing 'allowed'"),
            (stateLine(setting: "tilt", to: nil), "state message is missing 'tilt'"),
            (stateLine(setting: "tilt", to: #""sideways""#),
             "'tilt' is 'sideways' (expected one of undefined, vertical, tilted-up, tilted-down, face-up, face-down)"),
            (stateLine(setting: "orientation", to: #"3"#), "'orientation' must be a string, not 3"),
            (stateLine(setting: "rotation", to: #"90.5"#), "'rotation' must be an integer, not 90.5"),
            (stateLine(setting: "rotation", to: #"1e40"#), "'rotation' must be an integer"),
            (stateLine(setting: "allowed", to: #"["portrait"]"#),
             "'allowed' entry 1 is 'portrait'"),
            (stateLine(setting: "allowed", to: #""all""#),
             "'allowed' must be an array"),
            (stateLine(setting: "locked", to: #""undefined""#), "'locked' must be null or one of"),
            (stateLine(setting: "sensor", to: #""asleep""#), "'sensor' is 'asleep'"),
            (stateLine(setting: "t_ms", to: #""1234.5""#), "'t_ms' must be a number"),
            (stateLine(setting: "axis", to: #""diagonal""#), "'axis' is 'diagonal'"),
            ("[]", "must be a JSON object, not an array"),
            ("{", "server line is not valid JSON: unexpected end of input"),
        ])
    func stateErrors(line: String, fragment: String) {
        let error = thrownError(ProtocolDecodeError.self) { try StateMessage(jsonLine: Array(line.utf8)) }
        #expect(error?.message.contains(fragment) == true, "\(line): \(error?.message ?? "")")
    }

    @Test(
        "server messages that cannot be decoded say why",
        arguments: [
            (#"{"type":"welcome"}"#, "unknown message type 'welcome' (expected hello, state, ok, error, sample, base-sample, status or sensor)"),
            (#"{"seq":1}"#, "server message has no 'type'"),
            (#"{"type":1}"#, "'type' must be a string, not 1"),
            (#"{"type":"hello","protocol":1}"#, "hello message is missing 'version'"),
            (#"{"type":"hello","version":"1"}"#, "hello message is missing 'protocol'"),
            (#"{"type":"hello","version":"1","protocol":"1"}"#, "'protocol' must be an integer"),
            (#"{"type":"ok","seq":"a"}"#, "'seq' must be an integer"),
            (#"{"type":"error","code":"oops","message":"m"}"#, "unknown error code 'oops'"),
            (#"{"type":"error","code":"limit"}"#, "error message is missing 'message'"),
            (#"{"type":"sample","t_ms":1,"x":1,"y":2}"#, "sample message is missing 'z'"),
            (#"{"type":"sample","t_ms":1,"x":1,"y":2,"z":"3"}"#, "'z' must be a number"),
            ("\u{1}", "not valid JSON"),
        ])
    func serverMessageErrors(line: String, fragment: String) {
        let error = thrownError(ProtocolDecodeError.self) { try serverMessage(line) }
        #expect(error?.message.contains(fragment) == true, "\(line): \(error?.message ?? "")")
    }
}

/// The example state line of docs/protocol.md, field by field, so fixtures can change one field.
private let exampleStateFields: [(key: String, value: String)] = [
    ("type", #""state""#), ("orientation", #""left-up""#), ("physical", #""left-up""#), ("tilt", #""vertical""#),
    ("rotation", "90"), ("layout", #""landscape""#), ("axis", #""horizontal""#),
    ("allowed", #"["normal","left-up","right-up"]"#), ("locked", "null"), ("sensor", #""active""#), ("t_ms", "1234.5"),
]

/// The example state line with `key` set to the JSON text `value`, or removed when `value` is nil.
private func stateLine(setting key: String, to value: String?) -> String {
    let fields = exampleStateFields.compactMap { field -> String? in
        guard field.key == key else { return "\"\(field.key)\":\(field.value)" }
        return value.map { "\"\(key)\":\($0)" }
    }
    return "{" + fields.joined(separator: ",") + "}"
}

private func jsonArray(_ names: [String]) -> String {
    "[" + names.map(jsonQuoted).joined(separator: ",") + "]"
}
