/// A strict RFC 8259 parser working directly on UTF-8 bytes.
///
/// Rejects everything the RFC does not allow: invalid or overlong UTF-8, lone
/// surrogates in `\u` escapes, unescaped control characters in strings, leading
/// zeros, `NaN`/`Infinity`, numbers beyond `Double`'s range, trailing commas,
/// duplicate object keys, a byte order mark, and anything after the value but
/// whitespace. Nesting deeper than `maxDepth` arrays and objects is an error, so
/// the recursion stays bounded whatever the input; keep `maxDepth` small (the
/// default 32 is far beyond what the protocol needs).
public enum JSONParser {
    /// Parses one complete JSON document.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 32) throws(JSONError) -> JSONValue {
        try withContiguousJSONBytes(bytes) { buffer in
            var parser = Parser(bytes: buffer, maxDepth: maxDepth, recordSpans: false)
            return Result { () throws(JSONError) in try parser.parseDocument() }
        }.get()
    }

    /// Parses `buffer` and, when the document is an object, also returns the byte
    /// range of each top-level member's value (index-aligned with the members), so
    /// a caller can read an integer's exact digits.
    static func parseWithSpans(
        _ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int = 32
    ) throws(JSONError) -> (JSONValue, [Range<Int>]) {
        var parser = Parser(bytes: buffer, maxDepth: maxDepth, recordSpans: true)
        let value = try parser.parseDocument()
        return (value, parser.spans)
    }
}

/// Runs `body` on contiguous storage for `bytes`, copying only when the collection has none.
func withContiguousJSONBytes<R>(
    _ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R
) -> R {
    if let result = bytes.withContiguousStorageIfAvailable(body) { return result }
    return Array(bytes).withUnsafeBufferPointer(body)
}

/// The byte as a reader would want it named in a message: `'x'` or `byte 0xC3`.
func describeJSONByte(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    if byte == 0x20 { return "a space" }
    let hex = String(byte, radix: 16, uppercase: true)
    return "byte 0x" + (hex.count == 1 ? "0" + hex : hex)
}

private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let recordSpans: Bool
    var i = 0
    var spans: [Range<Int>] = []
    /// Reused for strings with escapes, so one parse allocates one buffer.
    var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, recordSpans: Bool) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.recordSpans = recordSpans
    }

    private func fail(_ message: String, at offset: Int? = nil) -> JSONError {
        JSONError(offset: offset ?? i, message: message)
    }

    private var current: UInt8? { i < bytes.count ? bytes[i] : nil }

    private mutating func skipWhitespace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw fail("a byte order mark is not allowed before JSON text", at: 0)
        }
        skipWhitespace()
        if i == bytes.count {
            throw fail(bytes.isEmpty ? "empty input: expected a JSON value" : "expected a JSON value, found only whitespace")
        }
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if let byte = current {
            throw fail("unexpected \(describeJSONByte(byte)) after the end of the JSON value (one value per line)")
        }
        return value
    }

    private mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        guard let byte = current else { throw fail("unexpected end of input: expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw fail("unexpected \(describeJSONByte(byte)): NaN and Infinity are not JSON numbers")
        case UInt8(ascii: "+"): throw fail("a JSON number cannot start with '+'")
        case UInt8(ascii: "."): throw fail("a JSON number must have a digit before '.'")
        case UInt8(ascii: "'"): throw fail("JSON strings use double quotes, not single quotes")
        default: throw fail("unexpected \(describeJSONByte(byte)): expected a value (object, array, string, number, true, false or null)")
        }
    }

    private mutating func expectLiteral(_ word: StaticString) throws(JSONError) {
        let start = i
        let count = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { literal in
            bytes.count - start >= count && (0..<count).allSatisfy { bytes[start + $0] == literal[$0] }
        }
        guard matches else { throw fail("invalid literal: expected '\(word)'", at: start) }
        i += count
    }

    private mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw fail("arrays and objects nested deeper than \(maxDepth) levels") }
        i += 1  // {
        var members: [JSONMember] = []
        var keySet: Set<[UInt8]>? = nil
        skipWhitespace()
        if current == UInt8(ascii: "}") { i += 1; return .object([]) }
        while true {
            guard current == UInt8(ascii: "\"") else {
                if let byte = current {
                    throw fail(byte == UInt8(ascii: "}") && !members.isEmpty
                        ? "trailing comma before '}'"
                        : "expected a double-quoted object key, found \(describeJSONByte(byte))")
                }
                throw fail("unexpected end of input inside an object: expected a key")
            }
            let keyStart = i
            let key = try parseString()
            if members.count < 16 {
                if members.contains(where: { sameUTF8($0.key, key) }) {
                    throw fail("duplicate key \(jsonQuoted(shownInMessage(key))) in object", at: keyStart)
                }
            } else {
                if keySet == nil { keySet = Set(members.map { Array($0.key.utf8) }) }
                if keySet?.insert(Array(key.utf8)).inserted == false {
                    throw fail("duplicate key \(jsonQuoted(shownInMessage(key))) in object", at: keyStart)
                }
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw fail(current.map { "expected ':' after object key, found \(describeJSONByte($0))" }
                    ?? "unexpected end of input: expected ':' after object key")
            }
            i += 1
            skipWhitespace()
            let valueStart = i
            let value = try parseValue(depth: depth)
            if recordSpans && depth == 1 { spans.append(valueStart..<i) }
            members.append(JSONMember(key: key, value: value))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                i += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                i += 1
                return .object(members)
            case let byte?:
                throw fail("expected ',' or '}' after an object member, found \(describeJSONByte(byte))")
            case nil:
                throw fail("unexpected end of input inside an object: expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw fail("arrays and objects nested deeper than \(maxDepth) levels") }
        i += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { i += 1; return .array([]) }
        while true {
            if current == UInt8(ascii: "]") { throw fail("trailing comma before ']'") }
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                i += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                i += 1
                return .array(elements)
            case let byte?:
                throw fail("expected ',' or ']' after an array element, found \(describeJSONByte(byte))")
            case nil:
                throw fail("unexpected end of input inside an array: expected ',' or ']'")
            }
        }
    }

    private mutating func parseNumber() throws(JSONError) -> Double {
        let start = i
        var negative = false
        if bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        guard let first = current, isDigit(first) else { throw fail("expected a digit after '-'") }
        var integer: Int64 = 0
        var digits = 0
        if first == UInt8(ascii: "0") {
            i += 1
            if let next = current, isDigit(next) { throw fail("leading zeros are not allowed in JSON numbers", at: i - 1) }
            digits = 1
        } else {
            while let d = current, isDigit(d) {
                if digits < 15 { integer = integer * 10 + Int64(d - 0x30) }
                digits += 1
                i += 1
            }
        }
        var plainInteger = true
        if current == UInt8(ascii: ".") {
            plainInteger = false
            i += 1
            guard let d = current, isDigit(d) else { throw fail("expected a digit after '.' in a number") }
            while let d = current, isDigit(d) { i += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            plainInteger = false
            i += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { i += 1 }
            guard let d = current, isDigit(d) else { throw fail("expected a digit in the exponent of a number") }
            while let d = current, isDigit(d) { i += 1 }
        }
        // Up to 15 digits are exact in a Double: skip the text conversion for those.
        if plainInteger && digits <= 15 {
            let value = Double(integer)
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw fail("number is out of range (beyond ±1.8e308)", at: start)
        }
        return value
    }

    private mutating func parseString() throws(JSONError) -> String {
        i += 1  // opening quote
        let start = i
        // Fast path: no escapes, so the string is the bytes themselves.
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
                i += 1
                return s
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw controlCharacter(byte) }
            if byte < 0x80 { i += 1 } else { try validateUTF8Sequence() }
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                try parseEscape()
            } else if byte < 0x20 {
                throw controlCharacter(byte)
            } else if byte < 0x80 {
                scratch.append(byte)
                i += 1
            } else {
                let sequenceStart = i
                try validateUTF8Sequence()
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[sequenceStart..<i]))
            }
        }
        throw fail("unterminated string: expected a closing '\"'")
    }

    private func controlCharacter(_ byte: UInt8) -> JSONError {
        let hex = String(byte, radix: 16, uppercase: true)
        return fail("control character U+00\(hex.count == 1 ? "0" + hex : hex) must be escaped in a string")
    }

    private mutating func parseEscape() throws(JSONError) {
        let escapeStart = i
        i += 1
        guard let byte = current else { throw fail("unterminated string: expected a character after '\\'") }
        i += 1
        switch byte {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var code = try parseHex4()
            if code >= 0xDC00 && code <= 0xDFFF {
                throw fail("lone low surrogate \\u\(hex4(code)) (not preceded by a high surrogate)", at: escapeStart)
            }
            if code >= 0xD800 && code <= 0xDBFF {
                guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                    throw fail("lone high surrogate \\u\(hex4(code)) (must be followed by a \\u low surrogate)", at: escapeStart)
                }
                i += 2
                let low = try parseHex4()
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw fail("high surrogate \\u\(hex4(code)) is followed by \\u\(hex4(low)), not a low surrogate", at: escapeStart)
                }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(code)
        default:
            let shown = byte >= 0x21 && byte < 0x7F ? "'\\\(Character(Unicode.Scalar(byte)))'" : "'\\' followed by \(describeJSONByte(byte))"
            throw fail("invalid escape \(shown) (expected \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)", at: escapeStart)
        }
    }

    /// Appends the UTF-8 form of `code`, a scalar value (never a surrogate here).
    private mutating func appendUTF8(_ code: UInt32) {
        switch code {
        case 0..<0x80:
            scratch.append(UInt8(code))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | code >> 6))
            scratch.append(UInt8(0x80 | code & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | code >> 12))
            scratch.append(UInt8(0x80 | code >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | code & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | code >> 18))
            scratch.append(UInt8(0x80 | code >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | code >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | code & 0x3F))
        }
    }

    private mutating func parseHex4() throws(JSONError) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw fail("unterminated \\u escape: expected 4 hex digits") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - 0x61 + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - 0x41 + 10
            default: throw fail("expected a hex digit in a \\u escape, found \(describeJSONByte(byte))")
            }
            code = code << 4 | UInt32(digit)
            i += 1
        }
        return code
    }

    /// Checks the multi-byte UTF-8 sequence at `i` (lead byte ≥ 0x80) and steps over it.
    private mutating func validateUTF8Sequence() throws(JSONError) {
        let lead = bytes[i]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0x80...0xBF: throw fail("invalid UTF-8: unexpected continuation byte 0x\(String(lead, radix: 16, uppercase: true))")
        case 0xC0, 0xC1: throw fail("invalid UTF-8: overlong encoding (lead byte 0x\(String(lead, radix: 16, uppercase: true)))")
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xED: length = 3; high = 0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw fail("invalid UTF-8: byte 0x\(String(lead, radix: 16, uppercase: true)) never occurs in UTF-8")
        }
        guard i + length <= bytes.count else { throw fail("invalid UTF-8: truncated multi-byte sequence") }
        let second = bytes[i + 1]
        if second < low || second > high {
            if second >= 0x80 && second <= 0xBF {
                if lead == 0xE0 || lead == 0xF0 { throw fail("invalid UTF-8: overlong encoding") }
                if lead == 0xED { throw fail("invalid UTF-8: encoded UTF-16 surrogate (U+D800…U+DFFF)") }
                throw fail("invalid UTF-8: code point beyond U+10FFFF")
            }
            throw fail("invalid UTF-8: truncated multi-byte sequence")
        }
        for k in 2..<max(length, 2) where bytes[i + k] & 0xC0 != 0x80 {
            throw fail("invalid UTF-8: truncated multi-byte sequence")
        }
        i += length
    }
}

/// Whether two strings have the same UTF-8 bytes (RFC 8259 compares names this
/// way; `==` would also equate canonically equivalent spellings).
func sameUTF8(_ a: String, _ b: String) -> Bool {
    // `==` is the fast filter (a raw compare for small and ASCII strings); the
    // byte check only runs on a match.
    a == b && a.utf8.elementsEqual(b.utf8)
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

private func hex4(_ code: UInt32) -> String {
    let hex = String(code, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}
