import OrientProtocol

extension Request {
    /// The request as one protocol line (docs/protocol.md), without the newline, carrying
    /// `seq` so its reply can be matched: `{"op":"get","seq":7}`.
    ///
    /// `RequestDecoder.decode` reads it back as `RequestLine(seq: seq, request: self)`.
    func jsonLine(seq: Int64) -> String {
        var s = "{\"op\":"
        switch self {
        case .get: s += "\"get\""
        case .subscribe: s += "\"subscribe\""
        case .unsubscribe: s += "\"unsubscribe\""
        case .unlock: s += "\"unlock\""
        case .samples: s += "\"samples\""
        case .status: s += "\"status\""
        case .watchSensors(let sensors):
            s += "\"watch-sensors\",\"sensors\":[" + sensors.sorted().map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "]"
        case .constrain(let id, let allow):
            s += "\"constrain\",\"id\":" + jsonQuoted(id) + ",\"allow\":["
            s += allow.map(jsonQuoted).joined(separator: ",")
            s += "]"
        case .release(let id):
            s += "\"release\",\"id\":" + jsonQuoted(id)
        case .lock(let target):
            s += "\"lock\",\"orientation\":"
            switch target {
            case .current: s += "\"current\""
            case .orientation(let orientation): s += jsonQuoted(orientation.rawValue)
            }
        }
        s += ",\"seq\":\(seq)}"
        return s
    }

    /// The op's name, for messages.
    var opName: String {
        switch self {
        case .get: return "get"
        case .subscribe: return "subscribe"
        case .unsubscribe: return "unsubscribe"
        case .constrain: return "constrain"
        case .release: return "release"
        case .lock: return "lock"
        case .unlock: return "unlock"
        case .samples: return "samples"
        case .status: return "status"
        case .watchSensors: return "watch-sensors"
        }
    }
}
