/// A server line a client could not decode, with a message naming the problem.
public struct ProtocolDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the line: which field, what it held, what was expected.
    public var message: String

    /// An error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// A message from the server, as the client library sees it (docs/protocol.md).
///
/// Unknown keys are ignored, so a newer server can add fields; an unknown `type`
/// is an error.
public enum ServerMessage: Sendable, Equatable {
    /// The greeting: the server's version and the protocol version it speaks.
    case hello(version: String, protocol: Int)
    /// A state message; `seq` when it answers a request that had one.
    case state(StateMessage, seq: Int64?)
    /// A success reply; `fields` holds every member but `type` and `seq`, in order
    /// (for `samples`: `mount_matrix`, `rate_hz`, `on_change`).
    case ok(seq: Int64?, fields: [JSONMember])
    /// An error reply.
    case error(ProtocolError)
    /// A sensor sample in the sensor frame; a `null` component decodes as NaN.
    case sample(tMs: Double, vector: Vector3)
    /// A sample of a 2-in-1's base accelerometer (`base-sample`), in its sensor frame.
    case baseSample(tMs: Double, vector: Vector3)
    /// The reply to `status`.
    case status(DaemonStatus, seq: Int64?)
    /// A sensor reading pushed to a client that watches the sensor (`watch-sensors`).
    case sensor(SensorMessage)

    /// Decodes one line, given without its newline (a trailing `\r` is tolerated).
    public static func decode(_ line: some Collection<UInt8>) throws(ProtocolDecodeError) -> ServerMessage {
        try withContiguousJSONBytes(line) { buffer in
            Result { () throws(ProtocolDecodeError) in
                let fields = try MessageFields(line: buffer)
                switch fields.type {
                case "hello":
                    return .hello(version: try fields.string("version"), protocol: try fields.int("protocol"))
                case "state":
                    return .state(try StateMessage(fields: fields), seq: try fields.optionalInteger("seq"))
                case "ok":
                    let rest = fields.members.filter { $0.key != "type" && $0.key != "seq" }
                    return .ok(seq: try fields.optionalInteger("seq"), fields: rest)
                case "error":
                    let name = try fields.string("code")
                    guard let code = ErrorCode(rawValue: name) else {
                        throw ProtocolDecodeError(
                            "unknown error code '\(shownInMessage(name))' (expected "
                                + ErrorCode.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                    }
                    let message = try fields.string("message")
                    return .error(ProtocolError(code: code, message: message, seq: try fields.optionalInteger("seq")))
                case "sample", "base-sample":
                    let vector = Vector3(
                        try fields.component("x"), try fields.component("y"), try fields.component("z"))
                    let tMs = try fields.number("t_ms")
                    return fields.type == "sample" ? .sample(tMs: tMs, vector: vector) : .baseSample(tMs: tMs, vector: vector)
                case "status":
                    let rest = fields.members.filter { $0.key != "type" && $0.key != "seq" }
                    return .status(try DaemonStatus(fields: rest), seq: try fields.optionalInteger("seq"))
                case "sensor":
                    return .sensor(try SensorMessage(fields: fields.members))
                default:
                    throw ProtocolDecodeError(
                        "unknown message type '\(shownInMessage(fields.type))' (expected hello, state, ok, error, sample, base-sample, status or sensor)")
                }
            }
        }.get()
    }
}

extension StateMessage {
    /// Decodes a `state` line as `json(seq:)` writes it (without its newline; a
    /// trailing `\r` is tolerated). Any `seq` is ignored; unknown keys are ignored.
    public init(jsonLine: some Collection<UInt8>) throws(ProtocolDecodeError) {
        self = try withContiguousJSONBytes(jsonLine) { buffer in
            Result { () throws(ProtocolDecodeError) in
                let fields = try MessageFields(line: buffer)
                guard fields.type == "state" else {
                    throw ProtocolDecodeError("expected a state message, got type '\(shownInMessage(fields.type))'")
                }
                return try StateMessage(fields: fields)
            }
        }.get()
    }

    fileprivate init(fields: MessageFields) throws(ProtocolDecodeError) {
        let allowedNames = try fields.array("allowed")
        var allowed: OrientationMask = []
        for (index, entry) in allowedNames.enumerated() {
            guard let name = entry.string else {
                throw ProtocolDecodeError("'allowed' entry \(index + 1) must be a string, not \(describeJSON(entry))")
            }
            guard let orientation = Orientation(name: name), orientation != .undefined else {
                throw ProtocolDecodeError(
                    "'allowed' entry \(index + 1) is '\(shownInMessage(name))' (expected normal, left-up, bottom-up or right-up)")
            }
            allowed.insert(OrientationMask(orientation))
        }
        var locked: Orientation? = nil
        if let value = try fields.value("locked"), value != .null {
            guard let name = value.string, let orientation = Orientation(name: name), orientation != .undefined else {
                throw ProtocolDecodeError(
                    "'locked' must be null or one of normal, left-up, bottom-up, right-up; not \(describeJSON(value))")
            }
            locked = orientation
        }
        self.init(
            orientation: try fields.enumeration("orientation"),
            physical: try fields.enumeration("physical"),
            tilt: try fields.enumeration("tilt"),
            rotation: try fields.int("rotation"),
            layout: try fields.enumeration("layout"),
            axis: try fields.enumeration("axis"),
            allowed: allowed,
            locked: locked,
            sensor: try fields.enumeration("sensor"),
            tMs: try fields.number("t_ms"),
            // Absent from a daemon older than tablet mode.
            tabletMode: try fields.value("tablet_mode") == nil ? .unknown : fields.enumeration("tablet_mode"),
            autoRotate: try fields.value("auto_rotate") == nil ? .always : fields.enumeration("auto_rotate"))
    }
}

/// A parsed server line: its members, their value spans for exact integers, and its `type`.
private struct MessageFields {
    let text: UnsafeBufferPointer<UInt8>
    let members: [JSONMember]
    let spans: [Range<Int>]
    let type: String

    init(line: UnsafeBufferPointer<UInt8>) throws(ProtocolDecodeError) {
        text = line.last == 0x0D ? UnsafeBufferPointer(rebasing: line.dropLast()) : line
        let value: JSONValue
        do {
            (value, spans) = try JSONParser.parseWithSpans(text)
        } catch {
            throw ProtocolDecodeError("server line is not valid JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw ProtocolDecodeError("a server message must be a JSON object, not \(value.kindDescription)")
        }
        self.members = members
        guard let type = members.first(where: { $0.key == "type" })?.value else {
            throw ProtocolDecodeError("server message has no 'type'")
        }
        guard let name = type.string else {
            throw ProtocolDecodeError("'type' must be a string, not \(describeJSON(type))")
        }
        self.type = name
    }

    private func index(_ key: String) -> Int? {
        members.firstIndex { sameUTF8($0.key, key) }
    }

    /// The value of `key`, nil when absent.
    func value(_ key: String) throws(ProtocolDecodeError) -> JSONValue? {
        index(key).map { members[$0].value }
    }

    private func required(_ key: String) throws(ProtocolDecodeError) -> JSONValue {
        guard let index = index(key) else { throw ProtocolDecodeError("\(type) message is missing '\(key)'") }
        return members[index].value
    }

    func string(_ key: String) throws(ProtocolDecodeError) -> String {
        let value = try required(key)
        guard let s = value.string else { throw ProtocolDecodeError("'\(key)' must be a string, not \(describeJSON(value))") }
        return s
    }

    func number(_ key: String) throws(ProtocolDecodeError) -> Double {
        let value = try required(key)
        guard let d = value.number else { throw ProtocolDecodeError("'\(key)' must be a number, not \(describeJSON(value))") }
        return d
    }

    /// A sample component: a number, or `null` for a non-finite reading (NaN).
    func component(_ key: String) throws(ProtocolDecodeError) -> Double {
        if try required(key) == .null { return .nan }
        return try number(key)
    }

    func array(_ key: String) throws(ProtocolDecodeError) -> [JSONValue] {
        let value = try required(key)
        guard let a = value.array else { throw ProtocolDecodeError("'\(key)' must be an array, not \(describeJSON(value))") }
        return a
    }

    func optionalInteger(_ key: String) throws(ProtocolDecodeError) -> Int64? {
        guard let index = index(key) else { return nil }
        let value = members[index].value
        guard let n = exactJSONInteger(value, text: text, span: spans[index]) else {
            throw ProtocolDecodeError("'\(key)' must be an integer, not \(describeJSON(value))")
        }
        return n
    }

    func int(_ key: String) throws(ProtocolDecodeError) -> Int {
        guard let n = try optionalInteger(key) else { throw ProtocolDecodeError("\(type) message is missing '\(key)'") }
        guard let value = Int(exactly: n) else { throw ProtocolDecodeError("'\(key)' is out of range: \(n)") }
        return value
    }

    /// A string field naming a case of `T` by its raw value.
    func enumeration<T: RawRepresentable<String> & CaseIterable>(_ key: String) throws(ProtocolDecodeError) -> T {
        try namedCase(try string(key), key: key)
    }
}

/// The case of `T` whose raw value is `name`, or an error naming the field
/// `key`, what it held and the names expected.
func namedCase<T: RawRepresentable<String> & CaseIterable>(_ name: String, key: String) throws(ProtocolDecodeError) -> T {
    guard let value = T(rawValue: name) else {
        let expected = T.allCases.map(\.rawValue).joined(separator: ", ")
        throw ProtocolDecodeError("'\(key)' is '\(shownInMessage(name))' (expected one of \(expected))")
    }
    return value
}
