/// Strict, locale-independent decimal number parsing for the text formats
/// (traces, mount matrices, config, sysfs): `[+-]digits[.digits][e[+-]digits]`.
///
/// Swift's `Double(String)` is already locale-independent, but it also accepts
/// hex floats, `nan` and `inf`; the formats here do not.
package enum DecimalNumber {
    /// Parses `bytes` as a decimal number; nil if it is not one or is not finite.
    package static func parse(_ bytes: some Collection<UInt8>) -> Double? {
        switch exact(bytes) {
        case .value(let value): return value
        case .notDecimal: return nil
        case .inexact: break
        }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// What one pass over a text found: a value computed exactly, a text
    /// outside the grammar, or a decimal number the fast path cannot compute.
    enum Scan: Equatable {
        case value(Double)
        case notDecimal
        case inexact
    }

    /// Checks the grammar and, where it can, computes the value on the way
    /// (Clinger's fast path): a significand of at most 2^53 and a power of
    /// ten of at most 10^22 are both exact doubles, and one IEEE
    /// multiplication or division of them is correctly rounded, so the result
    /// is the nearest double, as strtod's. That covers what sysfs and the
    /// traces write ("1234", "0.009807", "-2.5e-3"); longer significands
    /// and larger exponents are `.inexact`, for the standard library's
    /// parser. No String is made on the way: a sensor's poll parses its
    /// attribute straight from the bytes read.
    static func exact(_ bytes: some Collection<UInt8>) -> Scan {
        var it = bytes.makeIterator()
        var c = it.next()
        let negative = c == UInt8(ascii: "-")
        if negative || c == UInt8(ascii: "+") { c = it.next() }
        var significand: UInt64 = 0
        var fits = true
        var exponent = 0
        var digits = 0
        // Every digit, leading zeros too (they leave the significand 0), goes
        // into the significand; each one after the point lowers the exponent.
        func take(_ digit: UInt8) {
            let (times10, o1) = significand.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
            if o1 || o2 || sum > 1 << 53 { fits = false } else { significand = sum }
        }
        while let d = c, d >= 0x30, d <= 0x39 { digits += 1; if fits { take(d - 0x30) }; c = it.next() }
        if c == UInt8(ascii: ".") {
            c = it.next()
            while let d = c, d >= 0x30, d <= 0x39 {
                digits += 1
                if fits { take(d - 0x30); exponent -= 1 }
                c = it.next()
            }
        }
        guard digits > 0 else { return .notDecimal }
        if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            c = it.next()
            let negativeExponent = c == UInt8(ascii: "-")
            if negativeExponent || c == UInt8(ascii: "+") { c = it.next() }
            var written = 0, expDigits = 0
            while let d = c, d >= 0x30, d <= 0x39 {
                expDigits += 1
                written = min(written * 10 + Int(d - 0x30), 100_000)
                c = it.next()
            }
            guard expDigits > 0 else { return .notDecimal }
            exponent += negativeExponent ? -written : written
        }
        guard c == nil else { return .notDecimal }
        guard fits else { return .inexact }
        if significand == 0 { return .value(negative ? -0.0 : 0) }
        guard exponent >= -22, exponent <= 22 else { return .inexact }
        let magnitude = exponent >= 0 ? Double(significand) * powersOfTen[exponent] : Double(significand) / powersOfTen[-exponent]
        return .value(negative ? -magnitude : magnitude)
    }

    /// 10^0 … 10^22, each exact as a double.
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// `parse(_:)` for a slice of bytes read, as a sensor's poll hands them
    /// over: concrete, so that the module calling it need not specialise
    /// the generic form (the unspecialised one runs through the standard
    /// library's generic code).
    package static func parse(_ bytes: ArraySlice<UInt8>) -> Double? {
        switch exact(bytes) {
        case .value(let value): return value
        case .notDecimal: return nil
        case .inexact: return parse(Array(bytes))
        }
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
