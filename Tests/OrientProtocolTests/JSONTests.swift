import TestSupport
import Testing

@testable import OrientProtocol

private func parse(_ text: String, maxDepth: Int = 32) throws(JSONError) -> JSONValue {
    try JSONParser.parse(Array(text.utf8), maxDepth: maxDepth)
}

private func object(_ members: (String, JSONValue)...) -> JSONValue {
    .object(members.map { JSONMember(key: $0.0, value: $0.1) })
}

@Suite("JSON parser")
struct JSONParserTests {
    @Test(
        "accepts every kind of valid document",
        arguments: [
            ("null", JSONValue.null),
            ("true", .bool(true)),
            ("false", .bool(false)),
            ("0", .number(0)),
            ("-0", .number(0)),
            ("7", .number(7)),
            ("-12", .number(-12)),
            ("1.5", .number(1.5)),
            ("0.1", .number(0.1)),
            ("1e3", .number(1000)),
            ("1E+3", .number(1000)),
            ("25e-1", .number(2.5)),
            ("-0.0e0", .number(0)),
            ("123456789012345", .number(123_456_789_012_345)),
            ("1234567890123456789", .number(1_234_567_890_123_456_768)),
            ("123456789012345678901234567890", .number(1.2345678901234568e29)),
            ("1.7976931348623157e308", .number(.greatestFiniteMagnitude)),
            ("-1.7976931348623157e308", .number(-.greatestFiniteMagnitude)),
            ("5e-324", .number(.leastNonzeroMagnitude)),
            ("1e-400", .number(0)),  // underflow rounds to zero; only overflow is an error
            (#""""#, .string("")),
            (#""get""#, .string("get")),
            (#""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{8}\u{C}\n\r\t")),
            (#""\u00e9\u00C9""#, .string("éÉ")),
            (#""\u0000""#, .string("\u{0}")),
            (#""\uD83D\uDE00""#, .string("😀")),
            (#""\ud83d\ude00x""#, .string("😀x")),
            ("\"é😀 landscape\"", .string("é😀 landscape")),
            ("\"\u{7F}\"", .string("\u{7F}")),  // DEL is not a control character in RFC 8259
            (#""a\nb""#, .string("a\nb")),
            ("[]", .array([])),
            ("[1,[2,[]],\"x\"]", .array([.number(1), .array([.number(2), .array([])]), .string("x")])),
            ("{}", .object([])),
            (#"{"op":"get","seq":1}"#, object(("op", .string("get")), ("seq", .number(1)))),
            (#"{"b":1,"a":2}"#, object(("b", .number(1)), ("a", .number(2)))),
            (#"{"a":{"b":[true,null]}}"#, object(("a", object(("b", .array([.bool(true), .null])))))),
            (" \t\r\n{ \"a\" : [ 1 , 2 ] }\r\n ", object(("a", .array([.number(1), .number(2)])))),
            (#"{"":0}"#, object(("", .number(0)))),
            (#"{"é":1,"e\u0301":2}"#, object(("é", .number(1)), ("e\u{301}", .number(2)))),
        ])
    func acceptsValidDocuments(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test(
        "rejects invalid documents with the byte offset and a message that says what to fix",
        arguments: [
            ("", 0, "empty input"),
            ("  ", 2, "only whitespace"),
            ("{", 1, "end of input inside an object"),
            ("[1,2", 4, "end of input inside an array"),
            (#"{"op" "get"}"#, 6, "expected ':' after object key"),
            (#"{"op""#, 5, "expected ':' after object key"),
            (#"{"a":1,}"#, 7, "trailing comma before '}'"),
            ("[1,]", 3, "trailing comma before ']'"),
            ("[1 2]", 3, "expected ',' or ']'"),
            (#"{"a":1 "b":2}"#, 7, "expected ',' or '}'"),
            ("{a:1}", 1, "double-quoted object key"),
            (#"{"a":}"#, 5, "expected a value"),
            (#"{"op":"get"}x"#, 12, "after the end of the JSON value"),
            (#"{"op":"get"}{}"#, 12, "after the end of the JSON value"),
            ("1 2", 2, "after the end of the JSON value"),
            ("NaN", 0, "NaN and Infinity"),
            ("Infinity", 0, "NaN and Infinity"),
            ("-Infinity", 1, "expected a digit after '-'"),
            ("-", 1, "expected a digit after '-'"),
            ("01", 0, "leading zeros"),
            ("-007", 1, "leading zeros"),
            ("1.", 2, "digit after '.'"),
            ("1.e5", 2, "digit after '.'"),
            (".5", 0, "digit before '.'"),
            ("+1", 0, "cannot start with '+'"),
            ("1e", 2, "exponent"),
            ("1e+", 3, "exponent"),
            ("0x10", 1, "after the end"),
            ("1e400", 0, "out of range"),
            ("[0,-1e309]", 3, "out of range"),
            (String(repeating: "9", count: 400), 0, "out of range"),
            (#""abc"#, 4, "unterminated string"),
            (#""ab\"#, 4, "unterminated string"),
            ("\"a\u{1}b\"", 2, "control character U+0001"),
            ("\"tab\there\"", 4, "control character U+0009"),
            ("\"new\nline\"", 4, "control character U+000A"),
            (#""\x""#, 1, "invalid escape '\\x'"),
            (#""\'""#, 1, "invalid escape"),
            (#""\u12""#, 5, "hex digit"),
            (#""\u12"#, 5, "unterminated \\u escape"),
            (#""\uD800""#, 1, "lone high surrogate \\uD800"),
            (#""\uDBFFx""#, 1, "lone high surrogate"),
            (#""\uDC00""#, 1, "lone low surrogate \\uDC00"),
            (#""\uD800\u0041""#, 1, "not a low surrogate"),
            (#""\uD800\uD800""#, 1, "not a low surrogate"),
            ("'a'", 0, "double quotes"),
            ("tru", 0, "expected 'true'"),
            ("True", 0, "expected a value"),
            ("nul", 0, "expected 'null'"),
            ("falsey", 5, "after the end"),
            (#"{"a":1,"a":2}"#, 7, #"duplicate key "a""#),
            (#"{"x":{"k":1,"k":1}}"#, 12, "duplicate key"),
            ("\u{FEFF}{}", 0, "byte order mark"),
        ])
    func rejectsInvalidDocuments(text: String, offset: Int, fragment: String) {
        let error = thrownError(JSONError.self) { try parse(text) }
        #expect(error?.offset == offset, "\(text.debugDescription): \(error?.description ?? "")")
        #expect(error?.message.contains(fragment) == true, "\(text.debugDescription): \(error?.description ?? "")")
        #expect(error?.description == "\(error?.message ?? "") at byte \(offset)")
    }

    @Test(
        "rejects invalid UTF-8 inside and outside strings",
        arguments: [
            ([0x22, 0xFF, 0x22], 1, "never occurs in UTF-8"),
            ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1, "never occurs in UTF-8"),
            ([0x22, 0x80, 0x22], 1, "continuation byte"),
            ([0x22, 0xC3, 0x22], 1, "truncated"),
            ([0x22, 0xE2, 0x82], 1, "truncated"),
            ([0x22, 0xE2, 0x82, 0x41, 0x22], 1, "truncated"),
            ([0x22, 0xF0, 0x9F, 0x98, 0x22], 1, "truncated"),
            ([0x22, 0xC0, 0xAF, 0x22], 1, "overlong"),  // '/' in two bytes
            ([0x22, 0xC1, 0xBF, 0x22], 1, "overlong"),
            ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1, "overlong"),  // '/' in three bytes
            ([0x22, 0xE0, 0x9F, 0xBF, 0x22], 1, "overlong"),
            ([0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], 1, "overlong"),  // '/' in four bytes
            ([0x22, 0xF0, 0x8F, 0xBF, 0xBF, 0x22], 1, "overlong"),
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1, "surrogate"),  // U+D800 encoded directly
            ([0x22, 0xED, 0xBF, 0xBF, 0x22], 1, "surrogate"),
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1, "beyond U+10FFFF"),
            ([0x22, 0x61, 0x5C, 0x6E, 0xFF, 0x22], 4, "never occurs"),  // after an escape (slow path)
            ([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D], 2, "truncated"),  // in a key
            ([0xFF], 0, "byte 0xFF"),
            ([0x5B, 0xC3, 0xA9, 0x5D], 1, "byte 0xC3"),
            ([0x7B, 0x7D, 0x00], 2, "byte 0x00"),
        ] as [([UInt8], Int, String)])
    func rejectsInvalidUTF8(bytes: [UInt8], offset: Int, fragment: String) {
        let error = thrownError(JSONError.self) { try JSONParser.parse(bytes) }
        #expect(error?.offset == offset, "\(bytes): \(error?.description ?? "")")
        #expect(error?.message.contains(fragment) == true, "\(bytes): \(error?.description ?? "")")
    }

    @Test(
        "accepts the boundaries of valid UTF-8",
        arguments: [
            [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
            [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
        ] as [[UInt8]])
    func acceptsUTF8Boundaries(sequence: [UInt8]) throws {
        let value = try JSONParser.parse([0x22] + sequence + [0x22])
        #expect(value == .string(String(decoding: sequence, as: UTF8.self)))
        #expect(value.string.map { Array($0.utf8) } == sequence)
        // The same bytes after an escape take the slow path and must agree.
        #expect(try JSONParser.parse([0x22, 0x5C, 0x6E] + sequence + [0x22]) == .string("\n" + String(decoding: sequence, as: UTF8.self)))
    }

    @Test("nesting up to maxDepth parses and one level more is an error at the opening bracket", arguments: [1, 2, 5, 32])
    func nestingLimit(maxDepth: Int) throws {
        let deepest = String(repeating: "[", count: maxDepth) + String(repeating: "]", count: maxDepth)
        #expect(try parse(deepest, maxDepth: maxDepth) != .null)
        let tooDeep = String(repeating: "[", count: maxDepth + 1) + String(repeating: "]", count: maxDepth + 1)
        let error = thrownError(JSONError.self) { try parse(tooDeep, maxDepth: maxDepth) }
        #expect(error?.offset == maxDepth)
        #expect(error?.message.contains("nested deeper than \(maxDepth) levels") == true)

        let objects = String(repeating: #"{"a":"#, count: maxDepth + 1) + "1" + String(repeating: "}", count: maxDepth + 1)
        let objectError = thrownError(JSONError.self) { try parse(objects, maxDepth: maxDepth) }
        #expect(objectError?.offset == 5 * maxDepth)
    }

    @Test("a hundred thousand opening brackets fail fast instead of overflowing the stack")
    func hostileNesting() {
        let error = thrownError(JSONError.self) { try parse(String(repeating: "[", count: 100_000)) }
        #expect(error?.offset == 32)
        let mixed = String(repeating: #"{"k":["#, count: 50_000)
        #expect(throws: JSONError.self) { try parse(mixed) }
    }

    @Test("scalars at the top level have depth zero, so maxDepth 0 still parses them")
    func scalarsAtDepthZero() throws {
        #expect(try parse("\"x\"", maxDepth: 0) == .string("x"))
        #expect(throws: JSONError.self) { try parse("[]", maxDepth: 0) }
    }

    @Test(
        "1 MiB strings parse, with and without escapes and multi-byte characters",
        arguments: ["a", "é", "😀", "\\n", "\\u00e9", "\\uD83D\\uDE00"])
    func megabyteStrings(unit: String) throws {
        let count = (1 << 20) / unit.utf8.count
        let text = "\"" + String(repeating: unit, count: count) + "\""
        let expectedUnit = try #require(try parse("\"\(unit)\"").string)
        let value = try parse(text)
        #expect(value.string?.utf8.count == expectedUnit.utf8.count * count)
        #expect(value.string?.hasPrefix(expectedUnit + expectedUnit) == true)
    }

    @Test("a 1 MiB string without its closing quote is an error at the end of the input")
    func megabyteUnterminated() {
        let text = "\"" + String(repeating: "x", count: 1 << 20)
        let error = thrownError(JSONError.self) { try parse(text) }
        #expect(error?.offset == (1 << 20) + 1)
    }

    @Test("duplicate keys are found in large objects too")
    func duplicatesInLargeObjects() throws {
        let keys = (0..<40).map { "\"k\($0)\":\($0)" }
        let unique = try parse("{" + keys.joined(separator: ",") + "}")
        #expect(unique.members?.count == 40)
        #expect(unique["k39"] == .number(39))
        let duplicated = "{" + keys.joined(separator: ",") + ",\"k3\":0}"
        let error = thrownError(JSONError.self) { try parse(duplicated) }
        #expect(error?.message == #"duplicate key "k3" in object"#)
        #expect(error?.offset == duplicated.utf8.count - 7)
    }

    @Test("keys written with escapes are compared after decoding")
    func escapedDuplicateKeys() {
        let error = thrownError(JSONError.self) { try parse(#"{"op":1,"\u006fp":2}"#) }
        #expect(error?.offset == 8)
    }

    @Test("parses from slices and from collections without contiguous storage")
    func anyCollection() throws {
        let line = Array(#"xx{"op":"get"}yy"#.utf8)
        #expect(try JSONParser.parse(line[2..<(line.count - 2)]) == object(("op", .string("get"))))
        let lazy = Array(#"{"op":"get"}"#.utf8).lazy.map { $0 }
        #expect(try JSONParser.parse(lazy) == object(("op", .string("get"))))
        #expect(try JSONParser.parse(#"[1,"é"]"#.utf8) == .array([.number(1), .string("é")]))
    }

    @Test("accessors return the value of the matching kind and nil otherwise")
    func accessors() throws {
        let value = try parse(#"{"s":"x","n":2,"b":true,"a":[],"o":{},"z":null}"#)
        #expect(value["s"]?.string == "x")
        #expect(value["n"]?.number == 2)
        #expect(value["b"]?.bool == true)
        #expect(value["a"]?.array == [])
        #expect(value["o"]?.members == [])
        #expect(value["z"] == .null)
        #expect(value["missing"] == nil)
        #expect(value["s"]?.number == nil)
        #expect(JSONValue.array([])["s"] == nil)
        #expect(value.members?.map(\.key) == ["s", "n", "b", "a", "o", "z"])
        #expect(value.members?.map(\.value.kindDescription) == ["a string", "a number", "a Boolean", "an array", "an object", "null"])
    }
}

@Suite("JSON encoder")
struct JSONEncoderTests {
    @Test("every control character is escaped as \\u00XX and parses back", arguments: Array(UInt32(0)..<0x20) + [0x7F])
    func controlCharacters(code: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(code))
        let s = "a" + String(Character(scalar)) + "b"
        let quoted = jsonQuoted(s)
        let hex = String(code, radix: 16)
        #expect(quoted == "\"a\\u00" + (hex.count == 1 ? "0" : "") + hex + "b\"")
        #expect(!quoted.utf8.contains { $0 < 0x20 || $0 == 0x7F })
        #expect(try parse(quoted) == .string(s))
    }

    @Test(
        "quotes and backslashes are escaped, everything else is kept as UTF-8",
        arguments: [
            ("", #""""#),
            ("player", #""player""#),
            ("say \"hi\"", #""say \"hi\"""#),
            ("C:\\dir", #""C:\\dir""#),
            ("a/b", #""a/b""#),
            ("é😀 ü", "\"é😀 ü\""),
            ("\u{2028}\u{85}", "\"\u{2028}\u{85}\""),
        ])
    func quoting(text: String, expected: String) throws {
        #expect(jsonQuoted(text) == expected)
        #expect(try parse(expected) == .string(text))
    }

    @Test("non-ASCII from every plane and the replacement character round-trip")
    func unicodeRoundTrip() throws {
        let codes: [UInt32] = [0x80, 0xFF, 0x100, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFEFF, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF]
        var s = "\u{0}\"\\\n"
        for code in codes { s.unicodeScalars.append(try #require(Unicode.Scalar(code))) }
        #expect(try parse(jsonQuoted(s)) == .string(s))
        #expect(try parse(jsonQuoted(s)).string.map { Array($0.utf8) } == Array(s.utf8))
    }

    @Test(
        "numbers: integers bare, others shortest, non-finite as null",
        arguments: [
            (0.0, "0"), (-0.0, "0"), (20, "20"), (-3, "-3"), (1.5, "1.5"), (0.1, "0.1"), (-9.80665, "-9.80665"),
            (1e-5, "1e-05"), (1e300, "1e+300"), (0x1p62, "4611686018427387904"), (-0x1p63, "-9223372036854775808"),
            (0x1p63, "9.223372036854776e+18"), (.nan, "null"), (.infinity, "null"), (-.infinity, "null"),
        ])
    func numbers(value: Double, expected: String) {
        #expect(jsonNumber(value) == expected)
    }

    @Test(
        "every finite number reads back exactly",
        arguments: [
            0.0, 1, -1, 0.1, 1.0 / 3, .pi, -9.80665, 1e-7, 123_456.789, 0x1p53 + 2, -0x1p53 + 1, 1e21,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude,
        ])
    func numberRoundTrip(value: Double) throws {
        #expect(try parse(jsonNumber(value)) == .number(value))
    }

    @Test("a value encodes to compact JSON that parses back equal")
    func valueRoundTrip() throws {
        let value = object(
            ("type", .string("ok")), ("list", .array([.null, .bool(false), .bool(true), .number(-2.5), .string("a\"\u{1}")])),
            ("nested", object(("é", .array([])), ("", .object([])))))
        let text = value.json()
        #expect(text == #"{"type":"ok","list":[null,false,true,-2.5,"a\"\u0001"],"nested":{"é":[],"":{}}}"#)
        #expect(try parse(text) == value)
    }
}
