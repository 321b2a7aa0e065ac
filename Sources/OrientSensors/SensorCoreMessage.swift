/// The lines between orientd and its Sensor Core process (`orientd
/// --sensor-core`), which alone loads libssc: one message a line, words
/// separated by spaces, numbers as Swift prints them.
///
/// To the process: `open TOKEN KIND`, `close TOKEN`. From it: `ready`,
/// `nolibrary MESSAGE`, `opened TOKEN`, `failed TOKEN open|missing|lost
/// MESSAGE`, and the readings `accelerometer TOKEN X Y Z` (m/s², libssc's
/// frame), `light TOKEN LUX`, `proximity TOKEN 0|1`, `compass TOKEN DEGREES`.
public enum SensorCoreMessage: Sendable, Equatable {
    /// Why an open gave no readings.
    public enum Failure: String, Sendable {
        /// The open failed (libssc's reason in the message).
        case open
        /// The Sensor Core has no sensor of that kind.
        case missing
        /// The service went away.
        case lost
    }

    // To the process.
    case open(token: Int, kind: SensorKind)
    case close(token: Int)
    // From it.
    case ready
    case noLibrary(String)
    case opened(token: Int)
    case failed(token: Int, why: Failure, message: String)
    case accelerometer(token: Int, x: Double, y: Double, z: Double)
    case light(token: Int, lux: Double)
    case proximity(token: Int, near: Bool)
    case compass(token: Int, degrees: Double)

    /// The longest line either side sends or accepts, bytes.
    public static let maxLine = 1024

    /// The token a message is about, if any.
    public var token: Int? {
        switch self {
        case .open(let token, _), .close(let token), .opened(let token), .failed(let token, _, _), .accelerometer(let token, _, _, _),
            .light(let token, _), .proximity(let token, _), .compass(let token, _):
            token
        case .ready, .noLibrary: nil
        }
    }

    /// The line, without its newline (a message's newlines become spaces).
    public var line: String {
        switch self {
        case .open(let token, let kind): "open \(token) \(kind.rawValue)"
        case .close(let token): "close \(token)"
        case .ready: "ready"
        case .noLibrary(let message): "nolibrary \(Self.flat(message))"
        case .opened(let token): "opened \(token)"
        case .failed(let token, let why, let message): "failed \(token) \(why.rawValue) \(Self.flat(message))"
        case .accelerometer(let token, let x, let y, let z): "accelerometer \(token) \(x) \(y) \(z)"
        case .light(let token, let lux): "light \(token) \(lux)"
        case .proximity(let token, let near): "proximity \(token) \(near ? 1 : 0)"
        case .compass(let token, let degrees): "compass \(token) \(degrees)"
        }
    }

    private static func flat(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 }.prefix(maxLine / 2))
    }

    /// Parses one line (without its newline).
    public static func parse(_ line: String) throws(SensorCoreMessageError) -> SensorCoreMessage {
        guard line.utf8.count <= maxLine else { throw .init(line: line, reason: "longer than \(maxLine) bytes") }
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        func token(_ index: Int) throws(SensorCoreMessageError) -> Int {
            guard index < words.count, let value = Int(words[index]), value > 0 else {
                throw .init(line: line, reason: "no token (a positive integer) at word \(index + 1)")
            }
            return value
        }
        func number(_ index: Int) throws(SensorCoreMessageError) -> Double {
            guard index < words.count, let value = Double(words[index]), value.isFinite else {
                throw .init(line: line, reason: "no finite number at word \(index + 1)")
            }
            return value
        }
        func count(_ expected: Int) throws(SensorCoreMessageError) {
            guard words.count == expected else { throw .init(line: line, reason: "\(words.count) words, \(expected) expected") }
        }
        func rest(from index: Int) -> String { words.dropFirst(index).joined(separator: " ") }
        switch words[0] {
        case "open":
            try count(3)
            guard let kind = SensorKind(rawValue: words[2]) else { throw .init(line: line, reason: "no sensor kind '\(words[2])'") }
            return .open(token: try token(1), kind: kind)
        case "close":
            try count(2)
            return .close(token: try token(1))
        case "ready":
            try count(1)
            return .ready
        case "nolibrary": return .noLibrary(rest(from: 1))
        case "opened":
            try count(2)
            return .opened(token: try token(1))
        case "failed":
            guard words.count >= 3, let why = Failure(rawValue: words[2]) else { throw .init(line: line, reason: "no failure (open, missing or lost)") }
            return .failed(token: try token(1), why: why, message: rest(from: 3))
        case "accelerometer":
            try count(5)
            return .accelerometer(token: try token(1), x: try number(2), y: try number(3), z: try number(4))
        case "light":
            try count(3)
            return .light(token: try token(1), lux: try number(2))
        case "proximity":
            try count(3)
            guard words[2] == "0" || words[2] == "1" else { throw .init(line: line, reason: "proximity is 0 or 1") }
            return .proximity(token: try token(1), near: words[2] == "1")
        case "compass":
            try count(3)
            return .compass(token: try token(1), degrees: try number(2))
        default:
            throw .init(line: line, reason: "unknown message '\(words[0].prefix(40))'")
        }
    }
}

/// A line that is not a Sensor Core message: what was wrong, and the line's start.
public struct SensorCoreMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: String
    public var reason: String

    public init(line: String, reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(reason) in '\(line.prefix(80))'" }
}
