import Testing

@testable import OrientProtocol
import OrientSynth

// MARK: Helpers

private let fileName = "test.trace"

private func parse(_ text: String) throws(TraceError) -> Trace {
    try TraceReader.parse(Array(text.utf8), file: fileName)
}

/// The error parsing `bytes` throws, or nil if it parses.
private func parseError(_ bytes: [UInt8], maxSamples: Int = TraceReader.maxSamples) -> TraceError? {
    do {
        _ = try TraceReader.parse(bytes, file: fileName, maxSamples: maxSamples)
        return nil
    } catch {
        return error
    }
}

private func parseError(_ text: String) -> TraceError? { parseError(Array(text.utf8)) }

/// Checks an error's position and that its message contains `fragment`.
private func expectError(
    _ error: TraceError?, line: Int, column: Int, _ fragment: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error else {
        Issue.record("expected an error at \(line):\(column) containing \"\(fragment)\"; the trace parsed",
                     sourceLocation: sourceLocation)
        return
    }
    #expect(error.file == fileName, sourceLocation: sourceLocation)
    #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
    #expect(error.column == column, "\(error)", sourceLocation: sourceLocation)
    #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
}

/// Samples equal bit for bit, so NaN compares equal to NaN.
private func sameSamples(_ a: [Sample], _ b: [Sample]) -> Bool {
    a.count == b.count
        && zip(a, b).allSatisfy { s, t in
            s.tMs.bitPattern == t.tMs.bitPattern
                && (0..<3).allSatisfy { s.vector[$0].bitPattern == t.vector[$0].bitPattern }
        }
}

// MARK: Valid traces

@Suite("TraceReader")
struct TraceReaderTests {
    @Test("a valid trace with every header parses into its metadata and samples")
    func validTraceWithAllHeaders() throws {
        let trace = try parse(
            """
            # orientd-trace: 1
            # description: Yoga 9 turned to the left, then face down
            # mount_matrix: 0, -1, 0; -1, 0, 0; 0, 0, -1
            # rate_hz: 100
            # on_change: false
            # device: Lenovo Yoga 9 14IAP7
            # recorded-by: orientctl record
            # Recorded in the office, device held by hand.
            t_ms,x,y,z
            0,0,-9.81,0.1
            10.5,  -0.2 ,-9.79,0
            20,1e1,-9.8e0,-0.5

            """)
        #expect(trace.version == 1)
        #expect(trace.description == "Yoga 9 turned to the left, then face down")
        #expect(try trace.mountMatrix == MountMatrix(rows: [0, -1, 0], [-1, 0, 0], [0, 0, -1]))
        #expect(trace.rateHz == 100)
        #expect(trace.onChange == false)
        #expect(trace.extraHeaders.map(\.key) == ["device", "recorded-by"])
        #expect(trace.extraHeaders.map(\.value) == ["Lenovo Yoga 9 14IAP7", "orientctl record"])
        #expect(trace.samples == [
            Sample(tMs: 0, x: 0, y: -9.81, z: 0.1),
            Sample(tMs: 10.5, x: -0.2, y: -9.79, z: 0),
            Sample(tMs: 20, x: 10, y: -9.8, z: -0.5),
        ])
    }

    @Test("a trace without headers gets the defaults")
    func defaults() throws {
        let trace = try parse("t_ms,x,y,z\n0,0,-9.81,0\n")
        #expect(trace == Trace(samples: [Sample(tMs: 0, x: 0, y: -9.81, z: 0)]))
        #expect(trace.mountMatrix.isIdentity)
    }

    @Test("on_change true marks an on-change sensor")
    func onChangeTrue() throws {
        #expect(try parse("# on_change: true\nt_ms,x,y,z\n0,0,0,9.81\n").onChange)
    }

    @Test("a mount matrix whose z row is not an axis is repaired with a warning, not an error")
    func degenerateMountMatrixWarns() throws {
        let trace = try parse("# mount_matrix: 1, 0, 0; 0, -1, 0; 1, 0, 0\nt_ms,x,y,z\n0,0,0,9.81\n")
        #expect(!trace.mountMatrix.warnings.isEmpty)
        #expect(trace.mountMatrix.rows.2 == Vector3(0, 0, -1))
    }

    @Test("comment lines without the key: value shape are plain comments")
    func plainComments() throws {
        let trace = try parse(
            """
            # Recorded on a Yoga: upright, then left
            # see https://example.com/traces
            #!
            #
            # 12: 30
            # rate_hz:fast
            t_ms,x,y,z
            0,0,0,9.81
            """)
        #expect(trace.rateHz == nil)
        #expect(trace.extraHeaders.isEmpty)
    }

    @Test("headers between the column header and the first sample still count")
    func headerAfterColumnHeader() throws {
        let trace = try parse("t_ms,x,y,z\n# rate_hz: 20\n0,0,0,9.81\n")
        #expect(trace.rateHz == 20)
    }

    @Test("comments after the first sample are ignored, even ones shaped like headers")
    func commentsAfterSamples() throws {
        let trace = try parse(
            "# rate_hz: 100\nt_ms,x,y,z\n0,0,0,9.81\n# rate_hz: 5\n# orientd-trace: 9\n# note: x\n10,0,0,9.81\n")
        #expect(trace.rateHz == 100)
        #expect(trace.extraHeaders.isEmpty)
        #expect(trace.samples.count == 2)
    }

    @Test("CRLF line endings, blank lines, a byte order mark and spaces around fields are tolerated")
    func tolerantWhitespace() throws {
        let text = "\u{FEFF}# rate_hz: 50 \r\n\r\n \t t_ms , x,\ty ,z \r\n\r\n  0 ,\t1 , 2 , 3\t\r\n   \r\n5,4,5,6"
        let trace = try parse(text)
        #expect(trace.rateHz == 50)
        #expect(trace.samples == [Sample(tMs: 0, x: 1, y: 2, z: 3), Sample(tMs: 5, x: 4, y: 5, z: 6)])
    }

    @Test("nan, inf and -inf are accepted for x, y and z so corrupted-sensor traces replay")
    func nonFiniteComponents() throws {
        let trace = try parse("t_ms,x,y,z\n0,nan,inf,-inf\n1, -inf , nan ,inf\n")
        let first = trace.samples[0].vector, second = trace.samples[1].vector
        #expect(first.x.isNaN && first.y == .infinity && first.z == -.infinity)
        #expect(second.x == -.infinity && second.y.isNaN && second.z == .infinity)
    }

    @Test("equal times are allowed: times only must not decrease")
    func equalTimes() throws {
        #expect(try parse("t_ms,x,y,z\n5,0,0,1\n5,0,0,2\n").samples.count == 2)
        #expect(try parse("t_ms,x,y,z\n-10,0,0,1\n-10,0,0,2\n0.5,0,0,3\n").samples.count == 3)
    }

    @Test("non-ASCII text is fine in comments and headers")
    func unicodeText() throws {
        let trace = try parse("# description: café ☕ 🎉 — 90°\n# Ünïcode comment\nt_ms,x,y,z\n0,0,0,9.81\n")
        #expect(trace.description == "café ☕ 🎉 — 90°")
    }

    @Test("a line of exactly 4096 bytes is accepted, with or without CRLF")
    func longestLine() throws {
        let comment = "#" + String(repeating: "a", count: 4095)
        #expect(try parse(comment + "\nt_ms,x,y,z\n0,0,0,1\n").samples.count == 1)
        #expect(try parse(comment + "\r\nt_ms,x,y,z\r\n0,0,0,1\r\n").samples.count == 1)
    }

    @Test("bytes from any collection parse the same")
    func anyCollection() throws {
        let text = "# rate_hz: 10\nt_ms,x,y,z\n0,1,2,3\n100,4,5,6\n"
        let expected = try parse(text)
        let padded = Array("xx".utf8) + Array(text.utf8)
        #expect(try TraceReader.parse(padded.dropFirst(2), file: fileName) == expected)
        #expect(try TraceReader.parse(text.utf8, file: fileName) == expected)
        #expect(try TraceReader.parse(Array(text.utf8).lazy.map { $0 }, file: fileName) == expected)
    }

    @Test("a one-minute 100 Hz trace parses completely")
    func oneMinuteTrace() throws {
        var text = "# rate_hz: 100\nt_ms,x,y,z\n"
        for i in 0..<6000 { text += "\(i * 10),0.0123,-9.8066,0.4567\n" }
        let trace = try parse(text)
        #expect(trace.samples.count == 6000)
        #expect(trace.samples.last?.tMs == 59_990)
    }

    @Test("the error's description is file:line:column: message")
    func errorDescription() {
        let error = TraceError(file: "a.trace", line: 3, column: 7, message: "bad")
        #expect(error.description == "a.trace:3:7: bad")
        #expect(parseError("t_ms,x,y,z\n0,1,x,2\n")?.description.hasPrefix("test.trace:2:5: ") == true)
    }
}

// MARK: Errors

@Suite("TraceReader errors")
struct TraceReaderErrorTests {
    /// A line of a table test: the text of line 2 (after `t_ms,x,y,z`), where the
    /// error must be, and a fragment of its message.
    struct BadLine: Sendable, CustomTestStringConvertible {
        var text: String
        var column: Int
        var message: String
        var testDescription: String { "'\(text)' → column \(column)" }
    }

    @Test("an empty file is missing its header line")
    func emptyFile() {
        expectError(parseError(""), line: 1, column: 1, "missing header line t_ms,x,y,z: the file is empty")
        expectError(parseError([0xEF, 0xBB, 0xBF]), line: 1, column: 1, "the file is empty")
    }

    @Test("a file with only comments and blank lines is missing its header line")
    func onlyComments() {
        expectError(parseError("# a\n\n# rate_hz: 5\n"), line: 4, column: 1, "missing header line t_ms,x,y,z")
        expectError(parseError("# a\n# b"), line: 2, column: 4, "only comments")
    }

    @Test("a header line without samples has no samples")
    func onlyHeaderLine() {
        expectError(parseError("# orientd-trace: 1\nt_ms,x,y,z\n"), line: 3, column: 1, "no samples")
        expectError(parseError("t_ms,x,y,z\n# later\n\n"), line: 4, column: 1, "on line 1")
        expectError(parseError("t_ms,x,y,z"), line: 1, column: 11, "no samples")
    }

    @Test("samples without the column header name the header that was expected")
    func missingColumnHeader() {
        expectError(
            parseError("# rate_hz: 5\n0,0,-9.81,0\n"), line: 2, column: 1,
            "expected the header line t_ms,x,y,z; found '0,0,-9.81,0' (add the line")
    }

    @Test(
        "a column header that is not t_ms,x,y,z is an error at its first character",
        arguments: ["time,x,y,z", "t_ms,x,y", "t_ms,x,y,z,w", "t_ms,x,z,y", "T_MS,X,Y,Z", "t_ms x y z", "t_ms,x,y,z,"])
    func wrongColumnHeader(line: String) {
        expectError(parseError("# a\n  \(line)\n0,0,0,0\n"), line: 2, column: 3, "expected the header line t_ms,x,y,z")
    }

    @Test(
        "a bad sample line names its line, the column of the offending field and what was found",
        arguments: [
            BadLine(text: "0,1,2", column: 6, message: "expected 4 fields (t_ms,x,y,z); found 3 (missing z)"),
            BadLine(text: "0", column: 2, message: "found 1 (missing x,y,z)"),
            BadLine(text: "0,1,2,3,4", column: 8, message: "expected 4 fields (t_ms,x,y,z); found 5"),
            BadLine(text: "0,1,2,3,4,5,6", column: 8, message: "found 7"),
            BadLine(text: "0,1,2,3,", column: 8, message: "found a trailing ',' after z"),
            BadLine(text: "0,1,2,3, \t", column: 8, message: "trailing ','"),
            BadLine(text: "0,0,9,81,0", column: 9, message: "found 5 (numbers use '.' as the decimal separator"),
            BadLine(text: "0;0;9,81;0", column: 1, message: "for t_ms (like 1250 or 12.5); found '0;0;9'"),
            BadLine(text: "0,,2,3", column: 3, message: "expected a number in m/s² for x; found nothing"),
            BadLine(text: ",1,2,3", column: 1, message: "for t_ms; found nothing"),
            BadLine(text: "0,1,2,  ", column: 7, message: "for z; found nothing"),
            BadLine(text: "0x10,0,0,0", column: 1, message: "found '0x10'"),
            BadLine(text: "0,0x10,0,0", column: 3, message: "for x (like -9.81), or nan, inf, -inf; found '0x10'"),
            BadLine(text: "0,0,0,0x1p3", column: 7, message: "for z (like -9.81), or nan, inf, -inf; found '0x1p3'"),
            BadLine(text: "1e999,0,0,0", column: 1, message: "t_ms '1e999' is out of range"),
            BadLine(text: "0,0,1e999,0", column: 5, message: "y '1e999' is out of range"),
            BadLine(text: "0,-1e999,0,0", column: 3, message: "x '-1e999' is out of range"),
            BadLine(text: "nan,0,0,0", column: 1, message: "t_ms must be a finite decimal number of milliseconds; found 'nan'"),
            BadLine(text: "inf,0,0,0", column: 1, message: "must be a finite decimal"),
            BadLine(text: "-inf,0,0,0", column: 1, message: "must be a finite decimal"),
            BadLine(text: "0,NaN,0,0", column: 3, message: "found 'NaN'"),
            BadLine(text: "0,+inf,0,0", column: 3, message: "found '+inf'"),
            BadLine(text: "0,Infinity,0,0", column: 3, message: "found 'Infinity'"),
            BadLine(text: "0,1 2,3,4", column: 3, message: "found '1 2'"),
            BadLine(text: "0,1e,2,3", column: 3, message: "found '1e'"),
            BadLine(text: "0,-,2,3", column: 3, message: "found '-'"),
            BadLine(text: "0,.,2,3", column: 3, message: "found '.'"),
            BadLine(text: "0,1,2,3 # note", column: 7, message: "for z (like -9.81), or nan, inf, -inf; found '3 # note'"),
            BadLine(text: "  0 ,\t1 , 2 , x ", column: 15, message: "for z"),
            BadLine(text: "0,٣,0,0", column: 3, message: "found '٣'"),
            BadLine(text: "0,é,1,2,3", column: 3, message: "found 'é'"),
            BadLine(text: "0,1,2,3,é", column: 8, message: "found 5"),
            BadLine(text: "t_ms,x,y,z", column: 1, message: "found 't_ms'"),
            BadLine(
                text: "0," + String(repeating: "9", count: 40) + "x,0,0", column: 3,
                message: "found '" + String(repeating: "9", count: 32) + "...'"),
        ])
    func badSampleLine(bad: BadLine) {
        expectError(parseError("t_ms,x,y,z\n\(bad.text)\n1,0,0,0\n"), line: 2, column: bad.column, bad.message)
    }

    @Test("a sample line with three fields names its line and column")
    func threeFields() {
        expectError(parseError("t_ms,x,y,z\n0,0,0,9.81\n\n10,0,9.81\n"), line: 4, column: 10, "found 3")
    }

    @Test("time going backwards names the time column and both values")
    func timeBackwards() {
        expectError(
            parseError("t_ms,x,y,z\n0,0,0,9.8\n10.5,0,0,9.8\n# pause\n 5,0,0,9.8\n"), line: 5, column: 2,
            "time goes backwards: t_ms 5 is before 10.5 on line 3")
    }

    @Test(
        "a bad header value is an error at the value, saying what was expected",
        arguments: [
            BadLine(text: "# orientd-trace: 2", column: 18, message: "unsupported trace version: found '2'; this reader reads version 1"),
            BadLine(text: "# orientd-trace: 1.0", column: 18, message: "unsupported trace version: found '1.0'"),
            BadLine(text: "# orientd-trace:", column: 17, message: "unsupported trace version: found nothing"),
            BadLine(text: "# rate_hz: 0", column: 12, message: "rate_hz must be a positive decimal number"),
            BadLine(text: "# rate_hz: -5", column: 12, message: "found '-5'"),
            BadLine(text: "# rate_hz: fast", column: 12, message: "found 'fast'"),
            BadLine(text: "# rate_hz: nan", column: 12, message: "found 'nan'"),
            BadLine(text: "# rate_hz: inf", column: 12, message: "found 'inf'"),
            BadLine(text: "# rate_hz: 1e999", column: 12, message: "found '1e999'"),
            BadLine(text: "# rate_hz: 100 Hz", column: 12, message: "found '100 Hz'"),
            BadLine(text: "# rate_hz: 12,5", column: 12, message: "found '12,5'"),
            BadLine(text: "#\trate_hz:\t\t", column: 11, message: "found nothing"),
            BadLine(text: "# on_change: yes", column: 14, message: "on_change must be 'true' or 'false'; found 'yes'"),
            BadLine(text: "# on_change: TRUE", column: 14, message: "found 'TRUE'"),
            BadLine(text: "# on_change: 1", column: 14, message: "found '1'"),
            BadLine(text: "# mount_matrix: 1, 0, 0; 0, 1, 0; 0, 0", column: 39, message: "mount_matrix: a mount matrix has 9 values"),
            BadLine(text: "# mount_matrix: 1, 0, 0; 0, x, 0; 0, 0, 1", column: 29, message: "'x' is not a decimal number"),
            BadLine(text: "# mount_matrix: 0, 0, 0; 0, 1, 0; 0, 0, 1", column: 17, message: "row 1 is all zeros"),
            BadLine(text: "# mount_matrix: 1,0,0;1,0,0;0,0,1", column: 23, message: "parallel"),
            BadLine(text: "# mount_matrix: 1, 0, 0, 0; 0, 1, 0; 0, 0, 1", column: 24, message: "expected ';' here"),
            BadLine(text: "# mount_matrix:", column: 16, message: "expected a number in the mount matrix"),
            BadLine(text: "# mount_matrix: ½, 0, 0; 0, 1, 0; 0, 0, 1", column: 17, message: "'½' is not a decimal number"),
        ])
    func badHeader(bad: BadLine) {
        expectError(parseError("# a comment\n\(bad.text)\nt_ms,x,y,z\n0,0,0,9.81\n"), line: 2, column: bad.column, bad.message)
    }

    @Test("a repeated known header key is an error naming where it first appeared")
    func repeatedHeader() {
        expectError(
            parseError("# rate_hz: 100\n# note: a\n# rate_hz: 50\nt_ms,x,y,z\n0,0,0,0\n"), line: 3, column: 3,
            "header 'rate_hz' is repeated (first on line 1)")
    }

    @Test("free-form key: value comments may repeat and are kept in order")
    func repeatedFreeFormHeader() throws {
        let trace = try TraceReader.parse(Array("# TODO: a\n# TODO: b\nt_ms,x,y,z\n0,0,0,9.81\n".utf8), file: "t")
        #expect(trace.extraHeaders.map(\.value) == ["a", "b"])
    }

    @Test("invalid UTF-8 is an error at the offending byte")
    func invalidUTF8() {
        let head = Array("t_ms,x,y,z\n".utf8)
        expectError(parseError(head + Array("0,1,".utf8) + [0xFF] + Array(",2\n".utf8)), line: 2, column: 5, "invalid UTF-8 (byte 0xFF)")
        // A sequence cut short by the end of the line.
        expectError(parseError(Array("# caf".utf8) + [0xC3] + Array("\n".utf8) + head), line: 1, column: 6, "byte 0xC3")
        // Overlong encoding of '/', a UTF-16 surrogate, a stray continuation byte, a value past U+10FFFF.
        expectError(parseError(Array("# a".utf8) + [0xC0, 0xAF] + head), line: 1, column: 4, "byte 0xC0")
        expectError(parseError(Array("# a".utf8) + [0xED, 0xA0, 0x80] + head), line: 1, column: 4, "byte 0xED")
        expectError(parseError(Array("# é".utf8) + [0x80] + head), line: 1, column: 4, "byte 0x80")
        expectError(parseError(Array("# ab".utf8) + [0xF4, 0x90, 0x80, 0x80] + head), line: 1, column: 5, "byte 0xF4")
        // Invalid UTF-8 after the samples started is still an error: nothing is replayed from a bad file.
        expectError(parseError(head + Array("0,0,0,1\n# ".utf8) + [0xFE] + Array("\n".utf8)), line: 3, column: 3, "invalid UTF-8")
    }

    @Test("NUL bytes and other control characters are errors at their column")
    func controlCharacters() {
        expectError(parseError("t_ms,x,y,z\n0,0\u{0},0,0\n"), line: 2, column: 4, "control character U+0000 is not allowed")
        expectError(parseError("# a\u{0}b\nt_ms,x,y,z\n0,0,0,0\n"), line: 1, column: 4, "U+0000")
        expectError(parseError("# a\rb\nt_ms,x,y,z\n0,0,0,0\n"), line: 1, column: 4, "U+000D")
        expectError(parseError("# é\u{7F}\nt_ms,x,y,z\n0,0,0,0\n"), line: 1, column: 4, "U+007F")
        expectError(parseError("# \u{85}\nt_ms,x,y,z\n0,0,0,0\n"), line: 1, column: 3, "U+0085")
        expectError(parseError([UInt8](repeating: 0, count: 100)), line: 1, column: 1, "U+0000")
    }

    @Test("a 1 MiB line without a newline is an error at column 4097")
    func hugeLine() {
        let huge = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        expectError(parseError(huge), line: 1, column: 4097, "line is longer than 4096 bytes")
        let digits = Array("t_ms,x,y,z\n".utf8) + [UInt8](repeating: UInt8(ascii: "1"), count: 1 << 20)
        expectError(parseError(digits), line: 2, column: 4097, "longer than 4096")
        let justOver = "#" + String(repeating: "a", count: 4096) + "\r\nt_ms,x,y,z\n0,0,0,0\n"
        expectError(parseError(justOver), line: 1, column: 4097, "longer than 4096")
    }

    @Test("a long line's column counts characters, and the byte limit may fall inside one")
    func hugeLineOfWideCharacters() {
        // '#' then 2-byte characters: byte 4097 is the second byte of the 2048th 'é', column 2049.
        expectError(parseError("#" + String(repeating: "é", count: 3000) + "\n"), line: 1, column: 2049, "longer than 4096")
        // Invalid UTF-8 inside the first 4096 bytes comes first.
        expectError(parseError(Array("# ".utf8) + [0xFF] + [UInt8](repeating: 0x61, count: 5000)), line: 1, column: 3, "invalid UTF-8")
    }

    @Test("more samples than the limit is an error at the first sample too many")
    func tooManySamples() {
        let three = "t_ms,x,y,z\n0,0,0,1\n1,0,0,1\n2,0,0,1\n"
        #expect(parseError(Array(three.utf8), maxSamples: 3) == nil)
        expectError(
            parseError(Array((three + "  3,0,0,1\n").utf8), maxSamples: 3), line: 5, column: 3,
            "too many samples: a trace holds at most 3")
    }
}

// MARK: Writer

@Suite("TraceWriter")
struct TraceWriterTests {
    @Test("a trace with only samples writes the version header, the column header and the samples")
    func minimalOutput() {
        let trace = Trace(samples: [Sample(tMs: 0, x: 0, y: -9.81, z: 0.5), Sample(tMs: 12.5, x: -0.0, y: 1000, z: 1e-7)])
        #expect(trace.serialized() == "# orientd-trace: 1\nt_ms,x,y,z\n0,0,-9.81,0.5\n12.5,0,1000,1e-07\n")
    }

    @Test(
        "numbers are written shortest, integral values without a fraction, -0 as 0",
        arguments: [
            (1000.0, "1000"), (-0.0, "0"), (0.0, "0"), (0.1, "0.1"), (-9.81, "-9.81"), (1e20, "1e+20"),
            (1e15, "1000000000000000"), (9_007_199_254_740_992.0, "9007199254740992"), (1e16, "1e+16"), (123_456_789_012_345.0, "123456789012345"), (-42.0, "-42"),
            (Double.leastNonzeroMagnitude, "5e-324"), (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
            (Double.nan, "nan"), (Double.infinity, "inf"), (-Double.infinity, "-inf"),
        ])
    func numberText(value: Double, text: String) {
        #expect(traceNumberText(value) == text)
    }

    @Test("every header is written and reads back")
    func allHeadersRoundTrip() throws {
        let matrix = try MountMatrix(rows: [0, -1, 0], [0.7071067811865476, 0, 0.7071067811865476], [-0.7071067811865476, 0, 0.7071067811865476])
        let trace = Trace(
            mountMatrix: matrix, rateHz: 12.5, onChange: true, description: "a turn: left, then back",
            extraHeaders: [(key: "device", value: "Yoga 9"), (key: "recorded.at", value: "")],
            samples: [Sample(tMs: 0, x: 1, y: 2, z: 3), Sample(tMs: 0, x: -0.5, y: 9.80665, z: 1e-300)])
        let text = trace.serialized()
        #expect(text.hasPrefix("# orientd-trace: 1\n# mount_matrix: 0, -1, 0; 0.7071067811865476, 0, 0.7071067811865476;"))
        #expect(text.contains("\n# rate_hz: 12.5\n# on_change: true\n# description: a turn: left, then back\n# device: Yoga 9\n# recorded.at:\nt_ms,x,y,z\n"))
        #expect(try TraceReader.parse(text.utf8, file: fileName) == trace)
    }

    @Test("a seeded pseudo-random trace survives the writer and the reader unchanged")
    func randomRoundTrip() throws {
        var rng = SplitMix64(seed: 20_240_917)
        var samples: [Sample] = []
        var t = -1000.0
        func component() -> Double {
            switch rng.next() % 8 {
            case 0: return Double(Int.random(in: -20...20, using: &rng))
            case 1: return Double.random(in: -1e-300...1e-300, using: &rng)
            case 2: return Double(bitPattern: rng.next() & 0x000F_FFFF_FFFF_FFFF)  // subnormal
            case 3: return Double.random(in: -1e300...1e300, using: &rng)
            case 4: return -0.0
            default: return Double.random(in: -40...40, using: &rng)
            }
        }
        for _ in 0..<5000 {
            if rng.next() % 10 != 0 { t += Double.random(in: 0...50, using: &rng) }
            samples.append(Sample(tMs: t, x: component(), y: component(), z: component()))
        }
        let trace = Trace(rateHz: 1000.0 / 7, description: "seeded", samples: samples)
        let again = try TraceReader.parse(trace.serialized().utf8, file: fileName)
        // Name the first differing sample rather than printing 5000 of them.
        try #require(again.samples.count == samples.count)
        let firstDifference = samples.indices.first { again.samples[$0] != samples[$0] }
        #expect(firstDifference == nil, "\(firstDifference.map { "sample \($0): \(again.samples[$0]) != \(samples[$0])" } ?? "")")
        var metadata = again, expectedMetadata = trace
        metadata.samples = []
        expectedMetadata.samples = []
        #expect(metadata == expectedMetadata)
        // Bit for bit too, apart from -0, which is written as 0.
        let normalized = samples.map { s in
            Sample(tMs: s.tMs + 0, vector: Vector3(s.vector.x + 0, s.vector.y + 0, s.vector.z + 0))
        }
        #expect(sameSamples(again.samples, normalized))
    }

    @Test("numbers in samples read exactly as DecimalNumber reads them, short or long")
    func numbersMatchDecimalNumber() throws {
        var rng = SplitMix64(seed: 7)
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(rng.next() % 10)) })
        }
        var tokens = [
            "0", "-0", "+0.5", "0.", ".5", "00012.5000", "9007199254740992", "9007199254740993", "-9007199254740993",
            "0.1", "0.30000000000000004", "1.0000000000000000000001", "0.0000000000000000000001", "123456789.123456789",
            "99999999999999999999", "1e3", "-1.5E-3", "4.9e-324", "1e-400",
        ]
        for _ in 0..<3000 {
            let sign = ["", "-", "+"][Int(rng.next() % 3)]
            let integer = digits(Int(rng.next() % 18))
            let fraction = rng.next() % 4 == 0 ? "" : "." + digits(Int(rng.next() % 26))
            let exponent = rng.next() % 5 == 0 ? "e\(Int(rng.next() % 40) - 20)" : ""
            let token = sign + integer + fraction + exponent
            if DecimalNumber.parse(token) != nil { tokens.append(token) }
        }
        let text = "t_ms,x,y,z\n" + tokens.map { "0,\($0),\($0),\($0)\n" }.joined()
        let trace = try parse(text)
        for (token, sample) in zip(tokens, trace.samples) {
            let expected = try #require(DecimalNumber.parse(token))
            #expect(sample.vector.x.bitPattern == expected.bitPattern, "\(token)")
        }
        #expect(trace.samples.count == tokens.count)
    }

    @Test("nan, inf and -inf components survive the round trip")
    func nonFiniteRoundTrip() throws {
        let samples = [Sample(tMs: 0, x: .nan, y: .infinity, z: -.infinity), Sample(tMs: 1, x: 0, y: 0, z: 9.81)]
        let again = try TraceReader.parse(Trace(samples: samples).serialized().utf8, file: fileName)
        #expect(sameSamples(again.samples, samples))
    }

    @Test("header values are kept on one line, and unwritable extra headers are left out")
    func sanitizedHeaders() throws {
        let trace = Trace(
            description: "  first line\nsecond\r\nthird\u{0}\t",
            extraHeaders: [
                (key: "device", value: "a\nb"), (key: "bad key", value: "x"), (key: "rate_hz", value: "5"),
                (key: "device", value: "again"), (key: "9lives", value: "x"), (key: "", value: "x"),
            ],
            samples: [Sample(tMs: 0, x: 0, y: 0, z: 9.81)])
        let text = trace.serialized()
        #expect(text == "# orientd-trace: 1\n# description: first line second  third\n# device: a b\n# device: again\nt_ms,x,y,z\n0,0,0,9.81\n")
        let again = try TraceReader.parse(text.utf8, file: fileName)
        #expect(again.description == "first line second  third")
        #expect(again.extraHeaders.map(\.key) == ["device", "device"])
    }

    @Test("the identity mount matrix, no rate, on_change false and no description write no header")
    func defaultHeadersOmitted() {
        let text = Trace(samples: [Sample(tMs: 0, x: 0, y: 0, z: 1)]).serialized()
        #expect(!text.contains("mount_matrix") && !text.contains("rate_hz") && !text.contains("on_change"))
        #expect(!text.contains("description"))
    }
}

// MARK: Optional columns (light, proximity)

@Suite("TraceReader light and proximity columns")
struct TraceColumnTests {
    @Test("a trace without optional columns reads as before: no columns, no readings")
    func withoutColumns() throws {
        let trace = try parse("t_ms,x,y,z\n0,0,-9.8,0\n")
        #expect(trace.columns.isEmpty)
        #expect(trace.environment.isEmpty)
        #expect(trace.lightUnit == .lux)
    }

    @Test("light and proximity columns give readings; empty fields and short lines give none")
    func readings() throws {
        let trace = try parse(
            """
            # light_unit: vendor
            t_ms,x,y,z,light,proximity
            0,0,-9.8,0,300,0
            50,0,-9.8,0
            100,0,-9.8,0,,1
            120,,,,5
            150, , , ,  , 0
            200,0,-9.8,0,4.5,
            """)
        #expect(trace.columns == [.light, .proximity])
        #expect(trace.lightUnit == .vendor)
        #expect(trace.samples.map(\.tMs) == [0, 50, 100, 200])
        #expect(
            trace.environment == [
                EnvironmentSample(tMs: 0, light: 300, proximity: false),
                EnvironmentSample(tMs: 100, proximity: true),
                EnvironmentSample(tMs: 120, light: 5),
                EnvironmentSample(tMs: 150, proximity: false),
                EnvironmentSample(tMs: 200, light: 4.5),
            ])
    }

    @Test("the optional columns may come in either order, and alone")
    func columnOrder() throws {
        let trace = try parse("t_ms,x,y,z, proximity ,light\n0,0,0,9.8,1,20\n")
        #expect(trace.columns == [.proximity, .light])
        #expect(trace.environment == [EnvironmentSample(tMs: 0, light: 20, proximity: true)])
        #expect(try parse("t_ms,x,y,z,proximity\n0,0,0,9.8,1\n").columns == [.proximity])
    }

    @Test(
        "a bad column header names the problem",
        arguments: [
            ("t_ms,x,y,z,lux", 1, "unknown column 'lux' (the optional columns after z are base_x,base_y,base_z, light and proximity)"),
            ("t_ms,x,y,z,light,light", 18, "column 'light' is repeated"),
            ("t_ms,x,y,z,light,", 1, "unknown column"),
            ("t_ms,x,y,light", 1, "expected the header line t_ms,x,y,z"),
        ])
    func badColumnHeader(line: String, column: Int, fragment: String) {
        expectError(parseError("\(line)\n0,0,0,0\n"), line: 1, column: column, fragment)
    }

    @Test(
        "a bad value in an optional column names its line, column and what was found",
        arguments: [
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,-1", column: 9, message: "expected a light level of 0 or more in lux (like 312.5), or nothing for no reading; found '-1'"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,nan", column: 9, message: "found 'nan'"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,inf", column: 9, message: "found 'inf'"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,3 1", column: 9, message: "found '3 1'"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,1e999", column: 9, message: "found '1e999'"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,bright", column: 9, message: "found 'bright'"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,5,2", column: 11, message: "expected proximity 1 (near) or 0 (far), or nothing for no reading; found '2'"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,5,true", column: 11, message: "found 'true'"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,5,near", column: 11, message: "found 'near'"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,5,1,7", column: 12, message: "expected 4 to 6 fields (t_ms,x,y,z,light,proximity); found 7"),
            TraceReaderErrorTests.BadLine(text: "0,0,0", column: 6, message: "expected 4 to 6 fields (t_ms,x,y,z,light,proximity); found 3 (missing z)"),
            TraceReaderErrorTests.BadLine(text: "0,,,,,", column: 3, message: "a line with x, y and z empty must give a reading of light or proximity; it gives none"),
            TraceReaderErrorTests.BadLine(text: "0,,,", column: 3, message: "expected a number in m/s² for x; found nothing"),
            TraceReaderErrorTests.BadLine(text: "0,1,,,5", column: 5, message: "expected a number in m/s² for y; found nothing"),
            TraceReaderErrorTests.BadLine(text: "x,,,,5", column: 1, message: "for t_ms"),
        ])
    func badValue(bad: TraceReaderErrorTests.BadLine) {
        expectError(
            parseError("t_ms,x,y,z,light,proximity\n\(bad.text)\n1,0,0,0\n"), line: 2, column: bad.column, bad.message)
    }

    @Test("a light_unit other than lux or vendor is an error at its value")
    func badLightUnit() {
        expectError(parseError("# light_unit: lumen\nt_ms,x,y,z\n0,0,0,0\n"), line: 1, column: 15, "light_unit must be 'lux' or 'vendor'; found 'lumen'")
    }

    @Test("times of reading lines must not go backwards either")
    func readingTimeBackwards() {
        expectError(
            parseError("t_ms,x,y,z,light\n0,0,0,9.8\n100,,,,5\n50,0,0,9.8\n"), line: 4, column: 1,
            "time goes backwards: t_ms 50 is before 100 on line 3")
    }

    @Test("a trace of readings alone has no samples")
    func readingsOnly() {
        expectError(parseError("t_ms,x,y,z,light\n0,,,,5\n"), line: 3, column: 1, "no samples")
    }

    @Test("readings count towards the sample limit")
    func readingsCount() {
        expectError(
            parseError(Array("t_ms,x,y,z,light\n0,,,,5\n1,0,0,0\n2,,,,4\n".utf8), maxSamples: 2), line: 4, column: 1,
            "too many samples")
    }

    @Test("a trace with readings survives the writer and the reader, readings before samples of their time")
    func roundTrip() throws {
        var trace = Trace(rateHz: 20, samples: [Sample(tMs: 0, x: 0, y: -9.8, z: 0), Sample(tMs: 50, x: 0.1, y: -9.8, z: 0)])
        trace.columns = [.light, .proximity]
        trace.lightUnit = .vendor
        trace.environment = [
            EnvironmentSample(tMs: 0, light: 300), EnvironmentSample(tMs: 20, proximity: true),
            EnvironmentSample(tMs: 50, light: 12.25, proximity: false), EnvironmentSample(tMs: 70, light: 0),
        ]
        let text = trace.serialized()
        #expect(
            text == """
                # orientd-trace: 1
                # rate_hz: 20
                # light_unit: vendor
                t_ms,x,y,z,light,proximity
                0,,,,300
                0,0,-9.8,0
                20,,,,,1
                50,,,,12.25,0
                50,0.1,-9.8,0
                70,,,,0

                """)
        #expect(try parse(text) == trace)
    }

    @Test("the writer adds the columns its readings need, and writes none for a trace without readings")
    func writtenColumns() throws {
        var trace = Trace(samples: [Sample(tMs: 0, x: 0, y: 0, z: 9.8)])
        #expect(trace.serialized().contains("\nt_ms,x,y,z\n"))
        trace.environment = [EnvironmentSample(tMs: 0, proximity: true)]
        #expect(trace.serialized().contains("\nt_ms,x,y,z,proximity\n0,,,,1\n"))
        #expect(EnvironmentSample(tMs: 5, light: 3).traceLine(columns: [.proximity]) == "")
    }

    @Test("today's reader rule holds: a trace with the columns names its column header in the error of a reader without them")
    func oldReaderMessage() {
        // What an older orientd says of such a trace (documented in docs/traces.md):
        // its column header check is the `expected the header line` error.
        expectError(parseError("t_ms,x,y,z,pressure\n0,0,0,0\n"), line: 1, column: 1, "expected the header line t_ms,x,y,z; found 't_ms,x,y,z,pressure'")
    }
}
