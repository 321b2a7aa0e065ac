/// The `code` of a protocol `error` message (docs/protocol.md).
public enum ErrorCode: String, Sendable, Hashable, CaseIterable {
    /// The line is not JSON, or not a JSON object.
    case badJSON = "bad-json"
    /// The `op` is not one the server knows.
    case unknownOp = "unknown-op"
    /// A field is missing, of the wrong type, or out of range.
    case badArgument = "bad-argument"
    /// `release` named a constraint id the client does not hold.
    case unknownID = "unknown-id"
    /// The line is longer than the line limit; the server closes the connection.
    case tooLong = "too-long"
    /// A configured limit (clients, constraints per client) is reached.
    case limit
    /// The client may not do this.
    case notPermitted = "not-permitted"
}

/// What a `lock` request locks the rotation to.
public enum LockTarget: Sendable, Equatable {
    /// The effective orientation at the time of the request.
    case current
    /// A named cardinal orientation (never `undefined`).
    case orientation(Orientation)
}

/// A decoded protocol request (docs/protocol.md), without its `seq`.
public enum Request: Sendable, Equatable {
    /// Reply with a `state` message now.
    case get
    /// Reply with `state` now and on every change.
    case subscribe
    /// Stop the `state` messages of `subscribe`.
    case unsubscribe
    /// Register or update the constraint `id`; `allow` holds validated mask names,
    /// resolved against the natural geometry by the arbiter.
    case constrain(id: String, allow: [String])
    /// Drop the constraint `id` (error `unknown-id` when the client holds none by that id).
    case release(id: String)
    /// Set the user's rotation lock.
    case lock(LockTarget)
    /// Clear the user's rotation lock.
    case unlock
    /// Reply `ok` with the trace header fields, then a `sample` message per sensor sample.
    case samples
    /// Reply with a `status` message: what the daemon sees and why (`DaemonStatus`).
    case status
    /// Watch exactly these sensors (empty: none): reply `ok` with their
    /// readings now, then push a `sensor` message on every change.
    case watchSensors(Set<EnvironmentSensor>)
}

/// One request line: the request and the `seq` to echo in its reply.
public struct RequestLine: Sendable, Equatable {
    /// The client's sequence number, echoed in the reply; nil when absent.
    public var seq: Int64?
    /// What the client asked for.
    public var request: Request

    /// A request line; `seq` nil when the request had none.
    public init(seq: Int64? = nil, request: Request) {
        self.seq = seq
        self.request = request
    }
}

/// A protocol error reply: a code, a message a client author can act on, and the
/// `seq` of the request when it could be read.
public struct ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The machine-readable kind of error.
    public var code: ErrorCode
    /// What went wrong and what to send instead, for the client's author.
    public var message: String
    /// The request's `seq`, echoed; nil when the request had none or it was unreadable.
    public var seq: Int64?

    /// An error reply; pass the request's `seq` whenever it was read.
    public init(code: ErrorCode, message: String, seq: Int64? = nil) {
        self.code = code
        self.message = message
        self.seq = seq
    }

    /// The error for a line over `limit` bytes (the server then closes the connection).
    public static func tooLong(limit: Int) -> ProtocolError {
        ProtocolError(code: .tooLong, message: "line longer than \(limit) bytes; closing the connection")
    }

    /// `{"type":"error","seq":N,"code":"…","message":"…"}` without the trailing
    /// newline; `seq` only when known.
    public func json() -> String {
        var s = "{\"type\":\"error\""
        if let seq { s += ",\"seq\":\(seq)" }
        s += ",\"code\":\"\(code.rawValue)\",\"message\":" + jsonQuoted(message) + "}"
        return s
    }

    /// `code: message`, for logs.
    public var description: String { "\(code.rawValue): \(message)" }
}

/// Turns one request line into a `RequestLine` or the error to send back.
///
/// Unknown keys are ignored, so a newer client can send fields an older server
/// does not know (forward compatibility); unknown ops and unknown mask names are
/// errors. Whenever `seq` was read, the error echoes it.
public enum RequestDecoder {
    /// The protocol's default line limit in bytes, newline excluded (docs/protocol.md).
    public static let defaultMaxLineBytes = 4096
    /// At most this many bytes in a constraint id.
    public static let maxIDBytes = 64
    /// At most this many names in a constraint's `allow` list.
    public static let maxAllowNames = 16
    /// The ops, in the documented order (docs/protocol.md).
    public static let ops = [
        "get", "subscribe", "unsubscribe", "constrain", "release", "lock", "unlock", "samples", "status", "watch-sensors",
    ]
    /// The names an `allow` list may hold.
    public static let maskNames = MaskName.allCases.map(\.rawValue)

    /// Decodes `line`, given without its newline (a trailing `\r` is tolerated).
    /// Does not check the line length: the reader enforces the limit.
    public static func decode(_ line: some Collection<UInt8>) -> Result<RequestLine, ProtocolError> {
        withContiguousJSONBytes(line) { buffer in
            let bytes = buffer.last == 0x0D ? UnsafeBufferPointer(rebasing: buffer.dropLast()) : buffer
            return Result { () throws(ProtocolError) in try decode(buffer: bytes) }
        }
    }

    private static func decode(buffer: UnsafeBufferPointer<UInt8>) throws(ProtocolError) -> RequestLine {
        let value: JSONValue
        let spans: [Range<Int>]
        do {
            (value, spans) = try JSONParser.parseWithSpans(buffer)
        } catch {
            throw ProtocolError(code: .badJSON, message: "line is not valid JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw ProtocolError(code: .badJSON, message: "a request must be a JSON object, not \(value.kindDescription)")
        }
        var seq: Int64? = nil
        if let index = members.firstIndex(where: { sameUTF8($0.key, "seq") }) {
            guard let n = exactJSONInteger(members[index].value, text: buffer, span: spans[index]) else {
                throw ProtocolError(code: .badArgument, message: "'seq' must be an integer, not \(describeJSON(members[index].value))")
            }
            seq = n
        }
        func bad(_ message: String) -> ProtocolError { ProtocolError(code: .badArgument, message: message, seq: seq) }

        guard let opValue = value["op"] else {
            throw bad("missing 'op' (a request names its operation, e.g. {\"op\":\"get\"})")
        }
        guard let op = opValue.string else { throw bad("'op' must be a string, not \(describeJSON(opValue))") }
        let request: Request
        switch op {
        case "get": request = .get
        case "subscribe": request = .subscribe
        case "unsubscribe": request = .unsubscribe
        case "unlock": request = .unlock
        case "samples": request = .samples
        case "status": request = .status
        case "watch-sensors": request = .watchSensors(try sensorList(value, seq: seq))
        case "constrain":
            let id = try constraintID(value, op: op, seq: seq)
            request = .constrain(id: id, allow: try allowList(value, seq: seq))
        case "release":
            request = .release(id: try constraintID(value, op: op, seq: seq))
        case "lock":
            switch value["orientation"] {
            case nil: request = .lock(.current)
            case .string("current")?: request = .lock(.current)
            case .string(let name)?:
                guard let orientation = Orientation(name: name), orientation != .undefined else {
                    throw bad("cannot lock to '\(shownInMessage(name))' (expected current, normal, left-up, bottom-up or right-up)")
                }
                request = .lock(.orientation(orientation))
            case let other?:
                throw bad("'orientation' must be a string (current or an orientation name), not \(describeJSON(other))")
            }
        default:
            throw ProtocolError(
                code: .unknownOp,
                message: "unknown op '\(shownInMessage(op))' (expected \(ops.dropLast().joined(separator: ", ")) or \(ops.last ?? ""))",
                seq: seq)
        }
        return RequestLine(seq: seq, request: request)
    }

    private static func constraintID(_ object: JSONValue, op: String, seq: Int64?) throws(ProtocolError) -> String {
        func bad(_ message: String) -> ProtocolError { ProtocolError(code: .badArgument, message: message, seq: seq) }
        guard let value = object["id"] else { throw bad("\(op) needs 'id' (the constraint's name, e.g. \"player\")") }
        guard let id = value.string else { throw bad("'id' must be a string, not \(describeJSON(value))") }
        guard !id.isEmpty else { throw bad("'id' must not be empty") }
        guard id.utf8.count <= maxIDBytes else {
            throw bad("'id' is \(id.utf8.count) bytes long; at most \(maxIDBytes)")
        }
        if let control = id.unicodeScalars.first(where: isControl) {
            throw bad("'id' must not contain control characters (found U+\(hexScalar(control)))")
        }
        return id
    }

    private static func allowList(_ object: JSONValue, seq: Int64?) throws(ProtocolError) -> [String] {
        func bad(_ message: String) -> ProtocolError { ProtocolError(code: .badArgument, message: message, seq: seq) }
        guard let value = object["allow"] else {
            throw bad("constrain needs 'allow' (a list of orientation mask names, e.g. [\"landscape\"])")
        }
        guard let entries = value.array else {
            throw bad("'allow' must be an array of orientation mask names, not \(describeJSON(value))")
        }
        guard !entries.isEmpty else { throw bad(MaskError.empty.description) }
        guard entries.count <= maxAllowNames else {
            throw bad("'allow' has \(entries.count) names; at most \(maxAllowNames)")
        }
        var names: [String] = []
        names.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            guard let name = entry.string else {
                throw bad("'allow' entry \(index + 1) must be a string, not \(describeJSON(entry))")
            }
            guard maskNames.contains(name) else { throw bad(MaskError.unknownName(name).description) }
            names.append(name)
        }
        return names
    }
}

/// Encoders for the server's replies other than `state` (`StateMessage.json(seq:)`)
/// and `error` (`ProtocolError.json()`). Each returns one JSON line without the newline.
public enum Reply {
    /// The protocol version the server speaks in `hello`.
    public static let protocolVersion = 1

    /// The greeting the server sends first:
    /// `{"type":"hello","server":"orientd","version":"…","protocol":1}`.
    public static func hello(version: String) -> String {
        "{\"type\":\"hello\",\"server\":\"orientd\",\"version\":" + jsonQuoted(version)
            + ",\"protocol\":\(protocolVersion)}"
    }

    /// `{"type":"ok"}`, with `seq` after `type` when the request had one.
    public static func ok(seq: Int64?) -> String {
        guard let seq else { return "{\"type\":\"ok\"}" }
        return "{\"type\":\"ok\",\"seq\":\(seq)}"
    }

    /// The reply to `samples`: what a recorder needs for a trace header (docs/traces.md):
    /// `{"type":"ok","seq":1,"mount_matrix":"…","rate_hz":20,"on_change":false}`.
    /// `rate_hz` is left out when unknown. `provenance` adds string members a
    /// recorder copies into the trace header as they are (`orientd_version`,
    /// `iio_name`, `driver`, `mount_matrix_source`, …).
    public static func samplesOK(
        seq: Int64?, mountMatrix: MountMatrix, rateHz: Double?, onChange: Bool,
        baseMountMatrix: MountMatrix? = nil, provenance: [(key: String, value: String)] = []
    ) -> String {
        var s = "{\"type\":\"ok\""
        if let seq { s += ",\"seq\":\(seq)" }
        s += ",\"mount_matrix\":" + jsonQuoted(mountMatrix.description)
        if let rateHz { s += ",\"rate_hz\":" + jsonNumber(rateHz) }
        s += ",\"on_change\":" + (onChange ? "true" : "false")
        if let baseMountMatrix { s += ",\"base_mount_matrix\":" + jsonQuoted(baseMountMatrix.description) }
        for (key, value) in provenance { s += "," + jsonQuoted(key) + ":" + jsonQuoted(shownInMessage(value, to: 256)) }
        return s + "}"
    }

    /// One sensor sample in the sensor frame (before the mount matrix):
    /// `{"type":"sample","t_ms":12.5,"x":0.1,"y":-9.8,"z":0.2}`. `t_ms` has at most
    /// three decimals, as in `state`; a non-finite component is written `null`.
    public static func sample(tMs: Double, vector: Vector3) -> String {
        "{\"type\":\"sample\",\"t_ms\":" + formatMilliseconds(tMs) + ",\"x\":" + jsonNumber(vector.x)
            + ",\"y\":" + jsonNumber(vector.y) + ",\"z\":" + jsonNumber(vector.z) + "}"
    }

    /// A `base-sample` line: a reading of a 2-in-1's base accelerometer, as `sample` is of the display's.
    public static func baseSample(tMs: Double, vector: Vector3) -> String {
        "{\"type\":\"base-sample\"" + sample(tMs: tMs, vector: vector).dropFirst("{\"type\":\"sample\"".count)
    }
}

/// The exact integer `value` holds, or nil when it is not an integral number within
/// Int64. Plain digits are read from `text[span]` so integers beyond 2^53 stay exact.
func exactJSONInteger(_ value: JSONValue, text: UnsafeBufferPointer<UInt8>, span: Range<Int>) -> Int64? {
    guard case .number(let d) = value else { return nil }
    var index = span.lowerBound
    let negative = index < span.upperBound && text[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    if text[index..<span.upperBound].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
        var n: Int64 = 0
        for byte in text[index..<span.upperBound] {
            let (times10, o1) = n.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative
                ? times10.subtractingReportingOverflow(Int64(byte - 0x30))
                : times10.addingReportingOverflow(Int64(byte - 0x30))
            guard !o1, !o2 else { return nil }
            n = next
        }
        return n
    }
    guard d.rounded(.towardZero) == d, d >= -0x1p63, d < 0x1p63 else { return nil }
    return Int64(d)
}

/// A value for an error message: strings and numbers shown (clipped), other kinds named.
func describeJSON(_ value: JSONValue) -> String {
    switch value {
    case .string(let s): return "a string ('\(shownInMessage(s, to: 32))')"
    case .number(let d): return jsonNumber(d)
    default: return value.kindDescription
    }
}

/// Unicode general category Cc: C0 controls, DEL and C1 controls.
private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0)
}

private func hexScalar(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}
