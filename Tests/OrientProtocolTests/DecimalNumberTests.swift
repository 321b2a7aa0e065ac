import Testing

@testable import OrientProtocol

/// The strict decimal grammar of the text formats (traces, mount matrices,
/// config, sysfs): `[+-]digits[.digits][e[+-]digits]`, finite, nothing else.
@Suite("Decimal number")
struct DecimalNumberTests {
    @Test(
        "decimal numbers are accepted with their value",
        arguments: [
            ("1", 1.0), ("-0", -0.0), ("+1.5", 1.5), (".5", 0.5), ("5.", 5), ("1e3", 1000), ("1E-3", 0.001),
            ("0", 0), ("-12.75e+2", -1275), ("007", 7), ("9.80665", 9.80665), ("-.25", -0.25), ("+0.", 0),
            ("1e308", 1e308), ("1e-400", 0), ("0.009807", 0.009807), ("123456789012345678901234567890", 1.2345678901234568e29),
        ])
    func accepted(text: String, value: Double) throws {
        let parsed = try #require(DecimalNumber.parse(text), "'\(text)' was rejected")
        #expect(parsed == value)
        #expect(parsed.sign == value.sign, "the sign of zero is kept")
        #expect(DecimalNumber.isDecimal(Array(text.utf8)))
        #expect(DecimalNumber.parse(Array(text.utf8)) == value, "the byte form agrees")
        #expect(DecimalNumber.parse(text[...]) == value, "a Substring parses too")
    }

    @Test(
        "anything else is rejected",
        arguments: [
            "", "-", "+", ".", "+.", "e5", ".e1", "1e", "1e+", "1e-", "0x10", "0x1p3", "nan", "NaN", "inf", "-inf",
            "Infinity", "1,5", " 1", "1 ", "\t1", "1\n", "1\u{0}", "1e999", "-1e999", "--1", "+-1", "1.2.3", "1e3.5",
            "1e1e1", "1_000", "١", "１", "½", "e", "E", "1 e3", "1.5f", "0b1",
        ])
    func rejected(text: String) {
        #expect(DecimalNumber.parse(text) == nil, "'\(text)' was accepted")
        #expect(DecimalNumber.parse(Array(text.utf8)) == nil)
    }

    @Test("a number too large for a double has the grammar but is not accepted", arguments: ["1e999", "-1e400", "1" + String(repeating: "0", count: 400)])
    func overflowIsGrammaticalButRejected(text: String) {
        #expect(DecimalNumber.isDecimal(Array(text.utf8)))
        #expect(DecimalNumber.parse(text) == nil)
    }

    @Test("a slice of a larger buffer parses on its own")
    func sliceOfBuffer() {
        let bytes = Array("x=-2.5;".utf8)
        #expect(DecimalNumber.parse(bytes[2..<6]) == -2.5)
        #expect(DecimalNumber.parse(bytes[2..<7]) == nil)
    }

    @Test(
        "the fast path gives the value strtod gives, bit for bit, wherever it answers",
        arguments: [
            "0.009807", "0.1", "0.3", "1234", "-2.5e-3", "9007199254740992", "9007199254740993", "0.0000001", "1e22", "1e23",
            "123456789e-22", "4.35", "17.5", "0.000976562", "2.3283064365386963e-10", "-0.0", "000.000", "5e-324",
        ])
    func fastPathAgrees(text: String) throws {
        let standard = try #require(Double(text))
        let parsed = try #require(DecimalNumber.parse(Array(text.utf8)[...]))
        #expect(parsed.bitPattern == standard.bitPattern, "\(text): \(parsed) against \(standard)")
    }

    @Test("thousands of random decimals parse to strtod's double, bit for bit, on the fast path and off it")
    func randomDecimalsAgree() throws {
        var generator = SplitMix(seed: 0x5EED)
        var fast = 0
        for _ in 0..<20_000 {
            let intDigits = Int(generator.next() % 12), fracDigits = Int(generator.next() % 12)
            var text = generator.next() % 3 == 0 ? "-" : ""
            for _ in 0..<intDigits { text += String(generator.next() % 10) }
            if fracDigits > 0 || intDigits == 0 {
                text += "."
                for _ in 0..<max(fracDigits, 1) { text += String(generator.next() % 10) }
            }
            if generator.next() % 4 == 0 { text += "e" + String(Int(generator.next() % 60) - 30) }
            let standard = try #require(Double(text), "\(text)")
            let bytes = Array(text.utf8)
            if case .value = DecimalNumber.exact(bytes) { fast += 1 }
            let parsed = try #require(DecimalNumber.parse(bytes[...]), "\(text)")
            #expect(parsed.bitPattern == standard.bitPattern, "\(text): \(parsed) against \(standard)")
        }
        #expect(fast > 10_000, "the fast path answered \(fast) of 20000")
    }

    @Test("the fast path leaves long significands and large exponents to the standard parser, and rejects what is not decimal")
    func fastPathBounds() {
        #expect(DecimalNumber.exact(Array("9007199254740993".utf8)) == .inexact)  // 2^53 + 1
        #expect(DecimalNumber.exact(Array("9007199254740992".utf8)) == .value(9_007_199_254_740_992))
        #expect(DecimalNumber.exact(Array("1e23".utf8)) == .inexact)
        #expect(DecimalNumber.exact(Array("1e-23".utf8)) == .inexact)
        #expect(DecimalNumber.exact(Array("0e99999999999999999999".utf8)) == .value(0))
        #expect(DecimalNumber.exact(Array("1e99999999999999999999".utf8)) == .inexact)
        for text in ["", "-", ".", "1e", "1e+", "0x10", "1.2.3", "1 ", "nan"] {
            #expect(DecimalNumber.exact(Array(text.utf8)) == .notDecimal, "'\(text)'")
        }
    }
}

/// A small seeded generator (SplitMix64), so that a failure reproduces.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
