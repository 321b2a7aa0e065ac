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

extension JSONParser {
    /// One parse: the position, the top-level spans and the scratch buffer. The
    /// document's grammar is here; strings (escapes, UTF-8) are read in
    /// JSONParser+Strings.swift.
    struct Parser {
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

        func fail(_ message: String, at offset: Int? = nil) -> JSONError {
            JSONError(offset: offset ?? i, message: message)
        }

        var current: UInt8? { i < bytes.count ? bytes[i] : nil }

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
