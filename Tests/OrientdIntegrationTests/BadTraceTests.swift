import Testing

/// A malformed trace: exit 65, nothing replayed, `FILE:LINE:COLUMN:` on stderr (docs/traces.md, orientd(8)).
struct BadTrace: CustomTestStringConvertible, Sendable {
    var name: String
    var bytes: [UInt8]
    /// Where the error must point, 1-based; the column counts characters.
    var line: Int
    var column: Int

    var testDescription: String { name }

    init(_ name: String, _ text: String, line: Int, column: Int) {
        self.init(name, Array(text.utf8), line: line, column: column)
    }

    init(_ name: String, _ bytes: [UInt8], line: Int, column: Int) {
        self.name = name
        self.bytes = bytes
        self.line = line
        self.column = column
    }

    static let header = "# orientd-trace: 1\n# rate_hz: 20\nt_ms,x,y,z\n"

    /// 200 good samples (10 s of upright portrait), so a late error proves nothing is replayed early.
    static let goodSamples = (0..<200).map { "\($0 * 50),0.0123,-9.6577,1.7029\n" }.joined()

    static let all: [BadTrace] = [
        BadTrace("wrong column header line", "# orientd-trace: 1\nt_ms,x,y\n0,0,-9.8,0\n", line: 2, column: 1),
        BadTrace("a sample before the column header", "# orientd-trace: 1\n0,0,-9.8,0\n", line: 2, column: 1),
        BadTrace("a letter O in a number", header + "0,0,-9.8066,0\n50,0.0012,-9.8O66,0.5\n", line: 5, column: 11),
        BadTrace("a bad number after spaces", header + "0,0,-9.8,0\n  50 , 0 , -9.8 , zz\n", line: 5, column: 19),
        BadTrace("a decimal comma", header + "0,0,-9.8,0\n100,0,-9,8066,0\n", line: 5, column: 14),
        BadTrace("a bad number after 200 good samples", header + goodSamples + "10000,0,-9.8,1e\n", line: 204, column: 14),
        BadTrace("time going backwards", header + "0,0,-9.8,0\n50,0,-9.8,0\n40,0,-9.8,0\n", line: 6, column: 1),
        BadTrace("a non-finite time", header + "0,0,-9.8,0\nnan,0,-9.8,0\n", line: 5, column: 1),
        BadTrace(
            "invalid UTF-8 in a sample", Array((header + "0,0,-9.8,").utf8) + [0xFF] + Array("\n".utf8),
            line: 4, column: 10),
        BadTrace(
            "invalid UTF-8 after a multi-byte character",
            Array("# orientd-trace: 1\n# description: café ".utf8) + [0xC3, 0x28] + Array("\nt_ms,x,y,z\n0,0,-9.8,0\n".utf8),
            line: 2, column: 21),
        BadTrace("an empty file", "", line: 1, column: 1),
        BadTrace("only comments", "# nothing here\n", line: 2, column: 1),
        BadTrace("a header and no samples", header, line: 4, column: 1),
        BadTrace("an unsupported version", "# orientd-trace: 2\nt_ms,x,y,z\n0,0,-9.8,0\n", line: 1, column: 18),
        BadTrace(
            "a mount matrix with a zero row",
            "# orientd-trace: 1\n# mount_matrix: 1, 0, 0; 0, 0, 0; 0, 0, 1\nt_ms,x,y,z\n0,0,-9.8,0\n", line: 2, column: 26),
        BadTrace(
            "a mount matrix with a word in it",
            "# mount_matrix: 1, 0, 0; 0, x, 0; 0, 0, 1\nt_ms,x,y,z\n0,0,-9.8,0\n", line: 1, column: 29),
        BadTrace(
            "a mount matrix with two rows",
            "# mount_matrix: 1, 0, 0; 0, 1, 0\nt_ms,x,y,z\n0,0,-9.8,0\n", line: 1, column: 33),
    ]
}

@Suite("Bad traces and missing input")
struct BadTraceTests {
    @Test("a malformed trace exits 65, replays nothing and names file, line and column", arguments: BadTrace.all)
    func malformedTrace(trace: BadTrace) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("bad.trace", trace.bytes)
        let run = try runOrientd(["--mock", path, "--speed", "max", "--print", "--exit-at-end"])
        #expect(run.status == 65, "\(run)")
        #expect(run.stdout.isEmpty, "replayed from a bad file: \(run.stdout)")
        #expect(run.stderr.contains("\(path):\(trace.line):\(trace.column): "), "\(run)")
        #expect(run.stderr.hasSuffix("\n"))
    }

    @Test("a malformed trace is refused at real-time speed too, before anything is printed")
    func malformedTraceAtRealTime() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("bad.trace", BadTrace.header + BadTrace.goodSamples + "x\n")
        let run = try runOrientd(["--mock", path, "--print"], timeout: 5)
        #expect(run.status == 65, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.wallSeconds < 5)
    }

    @Test("a trace file that does not exist exits 66 and names it")
    func missingTrace() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("no-such.trace")
        let run = try runOrientd(["--mock", path, "--speed", "max", "--print", "--exit-at-end"])
        #expect(run.status == 66, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(path), "\(run)")
    }

    @Test("a directory given as the trace exits 66 and names it")
    func directoryAsTrace() throws {
        let directory = try TemporaryDirectory()
        let run = try runOrientd(["--mock", directory.path, "--speed", "max", "--print", "--exit-at-end"])
        #expect(run.status == 66, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(directory.path), "\(run)")
    }
}
