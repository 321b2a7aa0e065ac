/// A JSON value as the protocol parser returns it (RFC 8259).
///
/// Object members keep the order they were written in; a parsed object never has
/// two members with the same key (the parser rejects duplicates). Numbers are
/// `Double`s, always finite.
///
/// ```swift
/// let value = try JSONParser.parse(Array(#"{"op":"get"}"#.utf8))
/// value["op"]?.string // "get"
/// ```
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number; always finite when parsed.
    case number(Double)
    /// A string, unescaped; always valid Unicode when parsed.
    case string(String)
    /// Elements in document order.
    case array([JSONValue])
    /// Members in document order, keys unique.
    case object([JSONMember])

    /// The value of the first member named `key` (compared byte for byte, as
    /// RFC 8259 compares names), or nil when absent or when this is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { sameUTF8($0.key, key) }?.value
    }

    /// The string, or nil for any other kind of value.
    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number, or nil for any other kind of value.
    public var number: Double? {
        if case .number(let d) = self { return d }
        return nil
    }

    /// The Boolean, or nil for any other kind of value.
    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements, or nil for any other kind of value.
    public var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members in order, or nil for any other kind of value.
    public var members: [JSONMember]? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// The kind of value with its article, for error messages: "a string", "an array", "null".
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a Boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The compact JSON text of the value (no whitespace, members in order).
    /// Non-finite numbers, which a parsed value never holds, are written `null`.
    public func json() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let d): out += jsonNumber(d)
        case .string(let s): out += jsonQuoted(s)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                out += jsonQuoted(member.key)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }
}

/// One member of a JSON object: a key and its value.
public struct JSONMember: Sendable, Equatable {
    /// The member's name, unescaped.
    public var key: String
    /// The member's value.
    public var value: JSONValue

    /// A member named `key` holding `value`.
    public init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// At most 64 Unicode scalars of `s`, with "…" when cut: names quoted in messages stay short.
func shownInMessage(_ s: String, to limit: Int = 64) -> String {
    guard s.unicodeScalars.count > limit else { return s }
    var out = String.UnicodeScalarView()
    out.append(contentsOf: s.unicodeScalars.prefix(limit))
    return String(out) + "…"
}

/// `s` as a JSON string literal, quotes included.
///
/// Escapes `"` and `\`, and every control character (U+0000…U+001F and U+007F)
/// as `\u00XX`; everything else, including non-ASCII, is kept as UTF-8.
package func jsonQuoted(_ s: String) -> String {
    let utf8 = s.utf8
    if !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
        return "\"" + s + "\""
    }
    var out: [UInt8] = [0x22]
    out.reserveCapacity(utf8.count + 16)
    let hexDigits = Array("0123456789abcdef".utf8)
    for byte in utf8 {
        switch byte {
        case 0x22, 0x5C:
            out.append(0x5C)
            out.append(byte)
        case 0..<0x20, 0x7F:
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
        default:
            out.append(byte)
        }
    }
    out.append(0x22)
    return String(decoding: out, as: UTF8.self)
}

/// `d` as a JSON number: integers without a fraction (`20`, not `20.0`), other
/// values in the shortest form that reads back exactly, `-0` as `0`. JSON has no
/// NaN or infinity, so a non-finite value gives `null`.
package func jsonNumber(_ d: Double) -> String {
    guard d.isFinite else { return "null" }
    if d == 0 { return "0" }
    if d.rounded(.towardZero) == d, d >= -0x1p63, d < 0x1p63 { return String(Int64(d)) }
    return String(d)
}
