/// Strict, locale-independent decimal number parsing for the text formats
/// (traces, mount matrices, config, sysfs): `[+-]digits[.digits][e[+-]digits]`.
///
/// Swift's `Double(String)` is already locale-independent, but it also accepts
/// hex floats, `nan` and `inf`; the formats here do not.
package enum DecimalNumber {
    /// Parses `bytes` as a decimal number; nil if it is not one or is not finite.
    package static func parse(_ bytes: some Collection<UInt8>) -> Double? {
        guard isDecimal(bytes) else { return nil }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// Parses a string as a decimal number; nil if it is not one or is not finite.
    package static func parse(_ text: some StringProtocol) -> Double? {
        parse(Array(text.utf8))
    }

    /// Whether `bytes` follow the decimal grammar (no check of the magnitude).
    package static func isDecimal(_ bytes: some Collection<UInt8>) -> Bool {
        var it = bytes.makeIterator()
        var c = it.next()
        if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = it.next() }
        var intDigits = 0
        while let d = c, d >= 0x30, d <= 0x39 { intDigits += 1; c = it.next() }
        var fracDigits = 0
        if c == UInt8(ascii: ".") {
            c = it.next()
            while let d = c, d >= 0x30, d <= 0x39 { fracDigits += 1; c = it.next() }
        }
        guard intDigits + fracDigits > 0 else { return false }
        if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            c = it.next()
            if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = it.next() }
            var expDigits = 0
            while let d = c, d >= 0x30, d <= 0x39 { expDigits += 1; c = it.next() }
            guard expDigits > 0 else { return false }
        }
        return c == nil
    }
}
