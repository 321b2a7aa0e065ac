// fuzz-mount-matrix: the text form of a mount matrix (udev's ACCEL_MOUNT_MATRIX,
// sysfs mount_matrix, the config key, the trace header) through
// MountMatrix(parsing:), and `apply` on what it accepts.
//
// Invariants beyond "no crash":
// - an accepted matrix has finite, non-zero rows within ±MountMatrix.maximumValue
//   and an x and y that span a plane;
// - its description re-parses to an equal matrix without warnings (the canonical
//   form is already repaired), and MountMatrix(rows:) accepts the same rows;
// - `apply` maps a finite reading to a finite one and, when the matrix is not
//   orthonormal, keeps the reading's magnitude (for matrices of sane magnitude);
// - an error's column lies within the text (or one past its end).
import FuzzSupport
import OrientProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMountMatrix(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    let matrix: MountMatrix
    do {
        matrix = try MountMatrix(parsing: text)
    } catch {
        let length = text.utf8.count
        fuzzCheck(error.column >= 1 && error.column <= max(length, 512) + 1, "error column \(error.column) in \(length) bytes: \(error)")
        fuzzCheck(!error.message.isEmpty, "error without a message")
        return 0
    }
    let rows = [matrix.rows.0, matrix.rows.1, matrix.rows.2]
    for (index, row) in rows.enumerated() {
        fuzzCheck(row.x.isFinite && row.y.isFinite && row.z.isFinite, "row \(index + 1) \(row) is not finite: \(shown(text))")
        fuzzCheck(row != .zero, "row \(index + 1) is zero after parsing \(shown(text)): \(matrix)")
        fuzzCheck(
            max(abs(row.x), abs(row.y), abs(row.z)) <= MountMatrix.maximumValue,
            "row \(index + 1) \(row) beyond ±\(MountMatrix.maximumValue): \(shown(text))")
    }

    let canonical = matrix.description
    do {
        let again = try MountMatrix(parsing: canonical)
        fuzzCheck(again == matrix, "\(shown(canonical)) parses to \(again), not \(matrix)")
        fuzzCheck(again.warnings.isEmpty, "the canonical form \(shown(canonical)) still needs repair: \(again.warnings)")
    } catch {
        fuzzCheck(false, "the description \(shown(canonical)) of \(shown(text)) does not parse: \(error)")
    }
    do {
        let same = try MountMatrix(rows: matrix.rows.0, matrix.rows.1, matrix.rows.2)
        fuzzCheck(same == matrix, "MountMatrix(rows:) gives \(same), not \(matrix)")
    } catch {
        fuzzCheck(false, "MountMatrix(rows:) refuses the parsed rows of \(shown(text)): \(error)")
    }

    // Only for matrices a sensor could plausibly have: entries 0 or within 1e-100…1e100.
    let sane = rows.allSatisfy { row in
        [row.x, row.y, row.z].allSatisfy { $0 == 0 || (abs($0) >= 1e-100 && abs($0) <= 1e100) }
    }
    for reading in readings {
        let out = matrix.apply(reading)
        guard sane else { continue }
        fuzzCheck(out.x.isFinite && out.y.isFinite && out.z.isFinite, "apply(\(reading)) = \(out) for \(matrix)")
        if !matrix.isOrthonormal, out != .zero {
            let ratio = length(out) / length(reading)
            fuzzCheck(abs(ratio - 1) < 1e-9, "apply(\(reading)) = \(out) changes the magnitude by \(ratio) for \(matrix)")
        }
    }
    return 0
}

/// Readings a held or lying device gives, and a few odd ones.
let readings: [SIMD3<Double>] = [
    SIMD3(0, -9.80665, 0), SIMD3(9.80665, 0, 0), SIMD3(0, 0, 9.80665), SIMD3(-6.93, -6.93, 0),
    SIMD3(1, 2, 3), SIMD3(-3.5, 7.25, 0.125), SIMD3(0, 0, 0),
]

func length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
