/// Strings: the fast path without escapes, escapes and surrogate pairs, and
/// the UTF-8 checks RFC 8259 asks for.
extension JSONParser.Parser {
    mutating func parseString() throws(JSONError) -> String {
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

private func hex4(_ code: UInt32) -> String {
    let hex = String(code, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}
