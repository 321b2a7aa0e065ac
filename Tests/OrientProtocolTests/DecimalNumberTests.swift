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
}
