import Testing

@testable import OrientProtocol

// Bad lines are TraceReaderTests.swift's BadLine.

private let fileName = "base.trace"

private func parse(_ text: String) throws(TraceError) -> Trace {
    try TraceReader.parse(Array(text.utf8), file: fileName)
}

private func parseError(_ bytes: [UInt8], maxSamples: Int = TraceReader.maxSamples) -> TraceError? {
    do {
        _ = try TraceReader.parse(bytes, file: fileName, maxSamples: maxSamples)
        return nil
    } catch {
        return error
    }
}

private func parseError(_ text: String) -> TraceError? { parseError(Array(text.utf8)) }

private func expectError(
    _ error: TraceError?, line: Int, column: Int, _ fragment: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error else {
        Issue.record("expected an error containing '\(fragment)', but the trace parsed", sourceLocation: sourceLocation)
        return
    }
    #expect(error.file == fileName, sourceLocation: sourceLocation)
    #expect(error.line == line && error.column == column, "\(error)", sourceLocation: sourceLocation)
    #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
}

@Suite("TraceReader base accelerometer columns")
struct TraceBaseColumnTests {
    @Test("a trace without base columns has no base samples and an identity base matrix")
    func withoutBase() throws {
        let trace = try parse("# mount_matrix: 0, 1, 0; -1, 0, 0; 0, 0, 1\nt_ms,x,y,z\n0,0,-9.8,0\n")
        #expect(trace.baseSamples.isEmpty)
        #expect(trace.baseMountMatrix == .identity)
        #expect(trace.columns.isEmpty)
        #expect(trace.serialized() == "# orientd-trace: 1\n# mount_matrix: 0, 1, 0; -1, 0, 0; 0, 0, 1\nt_ms,x,y,z\n0,0,-9.8,0\n")
    }

    @Test("base columns give base samples on the display's lines and on lines of their own")
    func readings() throws {
        let trace = try parse(
            """
            # base_mount_matrix: -1, 0, 0; 0, -1, 0; 0, 0, 1
            t_ms,x,y,z,base_x,base_y,base_z
            0,0.5,-7.5,-6,0.05,1.6,-9.1
            50,0.4,-7.6,-6
            75,,,,0,1.7,-9.2
            100, 0.4 ,-7.6,-6, nan , inf , -inf
            100,0.4,-7.6,-6,,,
            """)
        #expect(trace.columns == [.base])
        // Parsed outside #expect: swift-testing 6.0 (Debian 13) refuses `try` in its autoclosure.
        let flipped = try MountMatrix(parsing: "-1, 0, 0; 0, -1, 0; 0, 0, 1")
        #expect(trace.baseMountMatrix == flipped)
        #expect(trace.samples.map(\.tMs) == [0, 50, 100, 100])
        #expect(trace.baseSamples.count == 3)
        #expect(trace.baseSamples[0] == Sample(tMs: 0, x: 0.05, y: 1.6, z: -9.1))
        #expect(trace.baseSamples[1] == Sample(tMs: 75, x: 0, y: 1.7, z: -9.2))
        #expect(trace.baseSamples[2].tMs == 100 && trace.baseSamples[2].vector.x.isNaN)
        #expect(trace.baseSamples[2].vector.y == .infinity && trace.baseSamples[2].vector.z == -.infinity)
    }

    @Test("the base's three columns may come before or after light and proximity, always together")
    func columnOrder() throws {
        let after = try parse("t_ms,x,y,z,light,base_x,base_y,base_z,proximity\n0,0,0,9.8,20,1,2,3,1\n")
        #expect(after.columns == [.light, .base, .proximity])
        #expect(after.baseSamples == [Sample(tMs: 0, x: 1, y: 2, z: 3)])
        #expect(after.environment == [EnvironmentSample(tMs: 0, light: 20, proximity: true)])
        let before = try parse("t_ms,x,y,z,base_x,base_y,base_z,light\n0,0,0,9.8,,,,20\n5,,,,1,2,3\n")
        #expect(before.columns == [.base, .light])
        #expect(before.baseSamples == [Sample(tMs: 5, x: 1, y: 2, z: 3)])
        #expect(before.environment == [EnvironmentSample(tMs: 0, light: 20)])
    }

    @Test(
        "a bad base column header names the problem at its column",
        arguments: [
            ("t_ms,x,y,z,base_x", 18, "expected column 'base_y' after 'base_x'"),
            ("t_ms,x,y,z,base_x,base_y", 25, "expected column 'base_z' after 'base_y'"),
            ("t_ms,x,y,z,base_x,base_z,base_y", 19, "expected column 'base_y' after 'base_x'"),
            ("t_ms,x,y,z,base_y,base_x,base_z", 12, "column 'base_y' must follow base_x"),
            ("t_ms,x,y,z,light,base_z", 18, "column 'base_z' must follow base_x"),
            ("t_ms,x,y,z,base_x,base_y,base_z,base_x,base_y,base_z", 33, "column 'base_x' is repeated"),
            ("t_ms,x,y,z,base", 1, "unknown column 'base' (the optional columns after z are base_x,base_y,base_z, light and proximity)"),
            ("t_ms,x,y,z,base_w", 1, "unknown column 'base_w'"),
            ("t_ms,x,y,z,base_x,base_y,base_z,light,proximity,light", 49, "column 'light' is repeated"),
        ])
    func badColumnHeader(line: String, column: Int, fragment: String) {
        expectError(parseError("\(line)\n0,0,0,0\n"), line: 1, column: column, fragment)
    }

    @Test(
        "a bad base value names its line, column and what was found",
        arguments: [
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,1,2", column: 12, message: "base_z is empty while the base's other columns are given"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,1,,3", column: 11, message: "base_y is empty while the base's other columns are given: the base's reading is base_x, base_y and base_z together, or none of them"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,,2,3", column: 9, message: "base_x is empty"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,1,,,5", column: 11, message: "base_y is empty"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,1,2,x", column: 13, message: "expected a decimal number in m/s² for base_z (like -9.81), or nan, inf, -inf; found 'x'"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,1e999,2,3", column: 9, message: "base_x '1e999' is out of range"),
            TraceReaderErrorTests.BadLine(text: "0,0,0,0,1,2,3,5,6", column: 16, message: "expected 4 to 8 fields (t_ms,x,y,z,base_x,base_y,base_z,light); found 9"),
            TraceReaderErrorTests.BadLine(text: "0,,,,,,,", column: 3, message: "a line with x, y and z empty must give a reading of base or light; it gives none"),
            TraceReaderErrorTests.BadLine(text: "0,,,,1,2", column: 9, message: "base_z is empty"),
        ])
    func badValue(bad: TraceReaderErrorTests.BadLine) {
        expectError(
            parseError("t_ms,x,y,z,base_x,base_y,base_z,light\n\(bad.text)\n1,0,0,0\n"), line: 2, column: bad.column, bad.message)
    }

    @Test("a bad base_mount_matrix is an error at its value; a repeated one names the first")
    func badBaseMatrix() {
        expectError(
            parseError("# base_mount_matrix: 1, 0, 0; 0, 1, 0\nt_ms,x,y,z\n0,0,0,0\n"), line: 1, column: 38,
            "base_mount_matrix: a mount matrix has 9 values")
        expectError(
            parseError("# base_mount_matrix: 1, 0, 0; 0, 1, 0; 0, 0, 1\n# base_mount_matrix: 1, 0, 0; 0, 1, 0; 0, 0, 1\nt_ms,x,y,z\n0,0,0,0\n"),
            line: 2, column: 3, "header 'base_mount_matrix' is repeated (first on line 1)")
    }

    @Test("base times must not go backwards, across the display's lines too")
    func timeBackwards() {
        expectError(
            parseError("t_ms,x,y,z,base_x,base_y,base_z\n0,0,0,9.8\n100,,,,0,0,9.8\n50,0,0,9.8\n"), line: 4, column: 1,
            "time goes backwards: t_ms 50 is before 100 on line 3")
    }

    @Test("base samples count towards the sample limit, and a trace of base samples alone has no samples")
    func limits() {
        expectError(
            parseError(Array("t_ms,x,y,z,base_x,base_y,base_z\n0,,,,1,2,3\n1,0,0,0\n2,,,,1,2,3\n".utf8), maxSamples: 2), line: 4, column: 1,
            "too many samples")
        expectError(parseError("t_ms,x,y,z,base_x,base_y,base_z\n0,,,,1,2,3\n"), line: 3, column: 1, "no samples")
    }

    @Test("the writer puts a base sample on the line of a display sample of its time, else on its own, and reads back equal")
    func roundTrip() throws {
        var trace = Trace(rateHz: 10, samples: [
            Sample(tMs: 0, x: 0.5, y: -7.5, z: -6), Sample(tMs: 100, x: 0.4, y: -7.6, z: -6), Sample(tMs: 100, x: 0.3, y: -7.6, z: -6),
        ])
        trace.baseMountMatrix = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")
        trace.baseSamples = [
            Sample(tMs: 0, x: 0.05, y: 1.6, z: -9.1), Sample(tMs: 50, x: 0, y: 1.7, z: -9.2),
            Sample(tMs: 100, x: .nan, y: 1, z: 2), Sample(tMs: 100, x: 1, y: 1, z: 1), Sample(tMs: 100, x: 2, y: 2, z: 2),
            Sample(tMs: 150, x: 3, y: 3, z: 3),
        ]
        trace.environment = [EnvironmentSample(tMs: 50, light: 7), EnvironmentSample(tMs: 120, proximity: true)]
        trace.columns = [.base, .light, .proximity]
        let text = trace.serialized()
        #expect(
            text == """
                # orientd-trace: 1
                # base_mount_matrix: 0, 1, 0; -1, 0, 0; 0, 0, 1
                # rate_hz: 10
                t_ms,x,y,z,base_x,base_y,base_z,light,proximity
                0,0.5,-7.5,-6,0.05,1.6,-9.1
                50,,,,,,,7
                50,,,,0,1.7,-9.2
                100,0.4,-7.6,-6,nan,1,2
                100,0.3,-7.6,-6,1,1,1
                100,,,,2,2,2
                120,,,,,,,,1
                150,,,,3,3,3

                """)
        let again = try parse(text)
        #expect(again.samples == trace.samples && again.environment == trace.environment)
        #expect(again.baseSamples.count == trace.baseSamples.count && again.baseSamples[2].vector.x.isNaN)
        #expect(again.baseSamples.enumerated().allSatisfy { $0.offset == 2 || $0.element == trace.baseSamples[$0.offset] })
        #expect(again.baseMountMatrix == trace.baseMountMatrix && again.columns == trace.columns)
    }

    @Test("the writer adds the base columns when there are base samples, after the light and proximity ones")
    func writtenColumns() throws {
        var trace = Trace(samples: [Sample(tMs: 0, x: 0, y: 0, z: 9.8)])
        trace.environment = [EnvironmentSample(tMs: 0, light: 3)]
        trace.baseSamples = [Sample(tMs: 0, x: 0, y: 0, z: -9.8)]
        let text = trace.serialized()
        #expect(text.contains("\nt_ms,x,y,z,light,base_x,base_y,base_z\n0,,,,3\n0,0,0,9.8,,0,0,-9.8\n"))
        #expect(try parse(text) == Trace(samples: trace.samples, columns: [.light, .base], environment: trace.environment, baseSamples: trace.baseSamples))
        #expect(EnvironmentSample(tMs: 5, light: 3).traceLine(columns: [.base, .light]) == "5,,,,,,,3\n")
        #expect(EnvironmentSample(tMs: 5, light: 3).traceLine(columns: [.base]) == "")
        #expect(Sample(tMs: 5, x: 1, y: 2, z: 3).baseTraceLine(columns: [.light, .base]) == "5,,,,,1,2,3\n")
        #expect(Sample(tMs: 5, x: 1, y: 2, z: 3).traceLine(base: Vector3(4, 5, 6), columns: [.base, .proximity]) == "5,1,2,3,4,5,6\n")
    }

    @Test("a reader without base columns refuses such a trace at its column header (today's rule)")
    func oldReaderRule() {
        // The unknown-column error of today's reader is what an older orientd says.
        expectError(parseError("t_ms,x,y,z,base_v,base_y,base_z\n0,0,0,0\n"), line: 1, column: 1, "expected the header line t_ms,x,y,z; found 't_ms,x,y,z,base_v,base_y,base_z'")
    }
}
