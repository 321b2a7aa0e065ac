// fuzz-request: one protocol line, as bytes, through both sides of the socket
// protocol — the daemon's RequestDecoder and the client's ServerMessage decoder —
// and through the JSON parser they share.
//
// Invariants beyond "no crash":
// - a decoded request re-encodes to a line that decodes to the same request;
// - a refused request's error reply is a line the client decodes to the same error;
// - a trailing CR changes nothing;
// - a decoded server message re-encodes to a line that decodes to the same message
//   (`state` and `sample` times to the three decimals the protocol keeps);
// - a parsed JSON value re-encodes to text that parses to the same value, and a
//   JSON error's offset lies within the input.
import FuzzSupport
import OrientProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    checkJSON(bytes)
    checkRequest(bytes)
    checkServerMessage(bytes)
    return 0
}

// MARK: JSON

func checkJSON(_ bytes: UnsafeBufferPointer<UInt8>) {
    do {
        let value = try JSONParser.parse(bytes)
        let text = value.json()
        let again = try? JSONParser.parse(Array(text.utf8))
        fuzzCheck(again == value, "JSON \(shown(text)) does not parse back to the same value")
    } catch {
        fuzzCheck(error.offset >= 0 && error.offset <= bytes.count, "JSON error offset \(error.offset) outside 0...\(bytes.count)")
        fuzzCheck(!error.message.isEmpty, "JSON error without a message")
    }
}

// MARK: Requests (daemon side)

func checkRequest(_ bytes: UnsafeBufferPointer<UInt8>) {
    let result = RequestDecoder.decode(bytes)
    if bytes.last != 0x0D {  // the decoder drops one CR, not two
        fuzzCheck(RequestDecoder.decode(Array(bytes) + [0x0D]) == result, "a trailing CR changed the result")
    }
    switch result {
    case .success(let line):
        checkRequestShape(line.request)
        let text = encode(line)
        let again = RequestDecoder.decode(Array(text.utf8))
        fuzzCheck(again == .success(line), "request \(shown(text)) decodes to \(again), not \(line)")
    case .failure(let error):
        fuzzCheck(!error.message.isEmpty, "protocol error without a message")
        fuzzCheck(error.code != .tooLong, "the decoder never checks the length, yet said too-long")
        let reply = error.json()
        do {
            let message = try ServerMessage.decode(Array(reply.utf8))
            fuzzCheck(message == .error(error), "error reply \(shown(reply)) decodes to \(message)")
        } catch {
            fuzzCheck(false, "error reply \(shown(reply)) does not decode: \(error)")
        }
    }
}

/// What the decoder promises about a request it accepts.
func checkRequestShape(_ request: Request) {
    switch request {
    case .constrain(let id, let allow):
        checkID(id)
        fuzzCheck(!allow.isEmpty && allow.count <= RequestDecoder.maxAllowNames, "allow has \(allow.count) names")
        for name in allow {
            fuzzCheck(RequestDecoder.maskNames.contains(name), "allow holds unknown name \(shown(name))")
            fuzzCheck((try? OrientationMask(name: name, natural: .portrait)) != nil, "mask name \(shown(name)) does not resolve")
        }
    case .release(let id):
        checkID(id)
    case .lock(.orientation(let orientation)):
        fuzzCheck(orientation != .undefined, "lock to undefined")
    default:
        break
    }
}

func checkID(_ id: String) {
    fuzzCheck(!id.isEmpty && id.utf8.count <= RequestDecoder.maxIDBytes, "id of \(id.utf8.count) bytes")
    fuzzCheck(!id.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) }, "id with a control character")
}

/// The request as a client writes it (the same shape as OrientClient's encoder).
func encode(_ line: RequestLine) -> String {
    var members: [JSONMember] = []
    func add(_ key: String, _ value: JSONValue) { members.append(JSONMember(key: key, value: value)) }
    switch line.request {
    case .get: add("op", .string("get"))
    case .subscribe: add("op", .string("subscribe"))
    case .unsubscribe: add("op", .string("unsubscribe"))
    case .unlock: add("op", .string("unlock"))
    case .samples: add("op", .string("samples"))
    case .status: add("op", .string("status"))
    case .watchSensors(let sensors):
        add("op", .string("watch-sensors"))
        add("sensors", .array(sensors.sorted().map { .string($0.rawValue) }))
    case .constrain(let id, let allow):
        add("op", .string("constrain"))
        add("id", .string(id))
        add("allow", .array(allow.map(JSONValue.string)))
    case .release(let id):
        add("op", .string("release"))
        add("id", .string(id))
    case .lock(.current):
        add("op", .string("lock"))
    case .lock(.orientation(let orientation)):
        add("op", .string("lock"))
        add("orientation", .string(orientation.rawValue))
    }
    var text = JSONValue.object(members).json()
    if let seq = line.seq {
        // Exact digits: a Double would round a seq beyond 2^53.
        text.removeLast()
        text += ",\"seq\":\(seq)}"
    }
    return text
}

// MARK: Server messages (client side)

func checkServerMessage(_ bytes: UnsafeBufferPointer<UInt8>) {
    let message: ServerMessage
    do {
        message = try ServerMessage.decode(bytes)
    } catch {
        fuzzCheck(!error.message.isEmpty, "server message error without a message")
        return
    }
    let text = encode(message)
    let again: ServerMessage
    do {
        again = try ServerMessage.decode(Array(text.utf8))
    } catch {
        fuzzCheck(false, "re-encoded server message \(shown(text)) does not decode: \(error)")
        return
    }
    switch (message, again) {
    case (.state(let a, let seqA), .state(let b, let seqB)):
        fuzzCheck(seqA == seqB && a.sameContent(as: b), "state \(shown(text)) decodes to \(b), not \(a)")
        fuzzCheck(closeMilliseconds(a.tMs, b.tMs), "state t_ms \(a.tMs) came back as \(b.tMs)")
    case (.sample(let tA, let vA), .sample(let tB, let vB)), (.baseSample(let tA, let vA), .baseSample(let tB, let vB)):
        fuzzCheck(
            sameDouble(vA.x, vB.x) && sameDouble(vA.y, vB.y) && sameDouble(vA.z, vB.z),
            "sample \(shown(text)) decodes to \(vB), not \(vA)")
        fuzzCheck(closeMilliseconds(tA, tB), "sample t_ms \(tA) came back as \(tB)")
    case (.sensor(let a), .sensor(let b)):
        fuzzCheck(
            a.sensor == b.sensor && a.present == b.present && a.reading == b.reading,
            "sensor \(shown(text)) decodes to \(b), not \(a)")
        fuzzCheck(closeMilliseconds(a.tMs, b.tMs), "sensor t_ms \(a.tMs) came back as \(b.tMs)")
    case (.status(let a, let seqA), .status(let b, let seqB)):
        // Long texts are clipped when encoded: the second encoding must equal the first.
        fuzzCheck(seqA == seqB && b.json(seq: seqB, limit: .max) == text, "status \(shown(text)) does not round-trip: \(b)")
    default:
        fuzzCheck(again == message, "server message \(shown(text)) decodes to \(again), not \(message)")
    }
}

/// The server message as a server writes it.
func encode(_ message: ServerMessage) -> String {
    switch message {
    case .hello(let version, let proto):
        // Exact digits for `protocol`, as for `seq`.
        return "{\"type\":\"hello\",\"server\":\"orientd\",\"version\":" + JSONValue.string(version).json()
            + ",\"protocol\":\(proto)}"
    case .state(let state, let seq):
        return state.json(seq: seq)
    case .ok(let seq, let fields):
        var text = "{\"type\":\"ok\""
        if let seq { text += ",\"seq\":\(seq)" }
        for member in fields { text += "," + JSONValue.string(member.key).json() + ":" + member.value.json() }
        return text + "}"
    case .error(let error):
        return error.json()
    case .sample(let tMs, let vector):
        return Reply.sample(tMs: tMs, vector: vector)
    case .baseSample(let tMs, let vector):
        return Reply.baseSample(tMs: tMs, vector: vector)
    case .status(let status, let seq):
        return status.json(seq: seq, limit: .max)
    case .sensor(let message):
        return message.json()
    }
}

/// Times are written with at most three decimals (whole milliseconds from 9e12 on,
/// where a Double no longer holds three decimals): a round trip moves them by at
/// most half the last written digit, plus the rounding of the reparse.
func closeMilliseconds(_ a: Double, _ b: Double) -> Bool {
    guard a.isFinite else { return b == 0 }  // written as 0
    let step = abs(a) * 1000 >= 9e15 ? 0.5 : 0.0005
    return abs(a - b) <= step + 2 * max(a.ulp, b.ulp)
}
