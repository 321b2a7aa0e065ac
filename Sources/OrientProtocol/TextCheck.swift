/// What is wrong with a run of bytes that should be one line of UTF-8 text.
package enum TextProblem: Equatable {
    /// A control character other than tab (C0, DEL or C1), at a byte offset.
    case controlCharacter(offset: Int, scalar: UInt32)
    /// Bytes that are not UTF-8, starting at this byte offset.
    case invalidUTF8(offset: Int)

    /// `U+0007`-style name of a scalar, for messages.
    package static func scalarName(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `0x0F`-style name of a byte, for messages.
    package static func byteName(_ value: UInt8) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "0x" + (hex.count < 2 ? "0" + hex : hex)
    }
}

/// The one check the text formats (traces, config) share: UTF-8 without
/// overlong forms or surrogates, and no control characters but tab.
///
/// `truncatedTail` accepts a multi-byte sequence cut off by `end` (the caller
/// stopped reading mid-line). Returns the first problem, or nil.
package func firstTextProblem(in buf: some RandomAccessCollection<UInt8>, from start: Int, to end: Int, truncatedTail: Bool = false) -> TextProblem? {
    let base = buf.startIndex
    func byte(_ i: Int) -> UInt8 { buf[buf.index(base, offsetBy: i)] }
    var k = start
    while k < end {
        let b = byte(k)
        if b < 0x80 {
            if (b < 0x20 && b != 0x09) || b == 0x7F { return .controlCharacter(offset: k, scalar: UInt32(b)) }
            k += 1
            continue
        }
        let length: Int, minimum: UInt32
        var scalar: UInt32
        if b & 0xE0 == 0xC0 {
            (length, minimum, scalar) = (2, 0x80, UInt32(b & 0x1F))
        } else if b & 0xF0 == 0xE0 {
            (length, minimum, scalar) = (3, 0x800, UInt32(b & 0x0F))
        } else if b & 0xF8 == 0xF0 {
            (length, minimum, scalar) = (4, 0x10000, UInt32(b & 0x07))
        } else {
            return .invalidUTF8(offset: k)
        }
        for m in (k + 1)..<(k + length) {
            if m >= end { return truncatedTail ? nil : .invalidUTF8(offset: k) }
            guard byte(m) & 0xC0 == 0x80 else { return .invalidUTF8(offset: k) }
            scalar = scalar << 6 | UInt32(byte(m) & 0x3F)
        }
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
            return .invalidUTF8(offset: k)
        }
        if (0x80...0x9F).contains(scalar) { return .controlCharacter(offset: k, scalar: scalar) }
        k += length
    }
    return nil
}
