import Testing

import OrientProtocol

/// Inputs the fuzzers in FuzzTesting/ found, kept exactly as found (one test per
/// finding, the input inline), so a finding stays fixed without running libFuzzer.
/// Each test checks the invariant the fuzz target asserts, not just "no crash".
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    // MARK: fuzz-mount-matrix

    /// Found by fuzz-mount-matrix in its first 20 s. The x and y rows are finite
    /// and span a plane, but |x × y| overflows to infinity, so validation takes
    /// the z row for degenerate and "rebuilds" it as x × y / ∞ = (0, 0, 0): the
    /// parser returns a zero row, and its description ("…; 0, 0, 0") is refused
    /// by the same parser. Fixed: values beyond ±MountMatrix.maximumValue are refused.
    @Test(
        "a mount matrix whose x × y overflows is refused, not given a zero z row",
        arguments: [
            "-111e15, 0, 0; 0,-11e150, 0; 0, 01,1",  // as the fuzzer found it
            "1e150, 0, 0; 0, 1e150, 0; 0, 0, 1",
        ])
    func mountMatrixCrossProductOverflow(text: String) {
        #expect(throws: MountMatrixError.self) { try MountMatrix(parsing: text) }
    }

    /// Found by fuzz-mount-matrix's round trip once values were bounded: a z row in
    /// the plane of x and y is rebuilt as x × y scaled to the mean length of x and
    /// y, which for rows of values near ±1000 is up to √3 × 1000, so the repaired
    /// matrix's description was refused ("row 3 has a value beyond ±1000") — and a
    /// trace recorded with it could not be read back. Fixed: the rebuilt row's
    /// length is capped at `MountMatrix.maximumValue`.
    @Test(
        "a repaired z row stays within the value bound, so the description parses back",
        arguments: [
            "1000, 1000, 1000; 1000, -1000, 0; 1000, 1000, 1000",
            "-1000, 1000, 1000; 1000, 1000, -1000; 0, 1, 0",
        ])
    func repairedRowWithinBound(text: String) throws {
        let matrix = try MountMatrix(parsing: text)
        #expect(!matrix.warnings.isEmpty, "row 3 should have been repaired")
        let z = matrix.rows.2
        #expect(max(abs(z.x), abs(z.y), abs(z.z)) <= MountMatrix.maximumValue)
        #expect((try? MountMatrix(parsing: matrix.description)) == matrix, "\(matrix.description) does not parse back")
    }

    /// The same finding as a trace reader sees it: a `mount_matrix` header the
    /// reader accepts must come back from `serialized()`, or a recorded trace
    /// (whose header the daemon writes from the matrix's description) cannot be
    /// read again.
    @Test("a trace whose mount matrix overflows x × y is refused or round-trips")
    func traceMountMatrixOverflow() {
        let text = "# mount_matrix: 1e150, 0, 0; 0, 1e150, 0; 0, 0, 1\nt_ms,x,y,z\n0,0,-9.81,0\n"
        guard let trace = try? TraceReader.parse(Array(text.utf8), file: "fuzz.trace") else { return }  // refused
        #expect((try? TraceReader.parse(Array(trace.serialized().utf8), file: "fuzz.trace")) == trace)
    }
}
