/// A 3-vector in m/s²: x, y, z.
public typealias Vector3 = SIMD3<Double>

/// The 3×3 matrix that maps the sensor's axes onto the panel's frame, as the
/// kernel's `mount_matrix` attributes and systemd's `ACCEL_MOUNT_MATRIX` give it.
///
/// Written `x1, y1, z1; x2, y2, z2; x3, y3, z3` (rows separated by `;`, values by
/// `,`, spaces optional, `-0` and decimals allowed). Row *i* gives output axis *i*
/// as a combination of the sensor's x, y and z.
///
/// Real-world matrices are not always rotations: systemd's hwdb has singular ones
/// whose third row is a stray copy of another row (`1, 0, 0; 0, -1, 0; 1, 0, 0`).
/// Such a z row is not a real axis, so parsing rebuilds it as x × y and records a
/// warning; and `apply` keeps the magnitude of the raw vector when the matrix is
/// not orthonormal, so magnitude gates never trust a made-up axis.
public struct MountMatrix: Sendable, Hashable, CustomStringConvertible {
    /// Rows of the matrix as given (after any repair of a degenerate z row).
    @inlinable
    public var rows: (Vector3, Vector3, Vector3) { (Vector3(x1, y1, z1), Vector3(x2, y2, z2), Vector3(x3, y3, z3)) }
    // Nine Doubles, not three SIMD3 rows: a 32-byte-aligned SIMD3<Double> kept
    // across an await miscompiles the async frame (swiftlang/swift#91639), and a
    // Trace holding this matrix does live across awaits.
    @usableFromInline let x1, y1, z1, x2, y2, z2, x3, y3, z3: Double
    /// What was wrong with the matrix as written and how it was repaired; empty if nothing.
    public let warnings: [String]
    /// True when the rows are orthonormal (so `apply` preserves magnitude by itself).
    public let isOrthonormal: Bool
    /// True for the identity, so `apply` can skip the arithmetic.
    public let isIdentity: Bool

    /// Largest magnitude accepted for a matrix value (real ones are near ±1).
    public static let maximumValue = 1000.0

    /// The identity: the sensor frame is the panel frame.
    public static let identity = MountMatrix(
        validatedRows: (Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)), warnings: [])

    /// Equal when the rows are (warnings do not count).
    public static func == (a: MountMatrix, b: MountMatrix) -> Bool {
        a.rows.0 == b.rows.0 && a.rows.1 == b.rows.1 && a.rows.2 == b.rows.2
    }

    /// Hashes the rows, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        for row in [rows.0, rows.1, rows.2] {
            hasher.combine(row.x); hasher.combine(row.y); hasher.combine(row.z)
        }
    }

    private init(validatedRows rows: (Vector3, Vector3, Vector3), warnings: [String]) {
        (x1, y1, z1) = (rows.0.x, rows.0.y, rows.0.z)
        (x2, y2, z2) = (rows.1.x, rows.1.y, rows.1.z)
        (x3, y3, z3) = (rows.2.x, rows.2.y, rows.2.z)
        self.warnings = warnings
        let tolerance = 1e-6
        func unit(_ v: Vector3) -> Bool { abs((v * v).sum() - 1) < tolerance }
        func orthogonal(_ a: Vector3, _ b: Vector3) -> Bool { abs((a * b).sum()) < tolerance }
        isOrthonormal = unit(rows.0) && unit(rows.1) && unit(rows.2)
            && orthogonal(rows.0, rows.1) && orthogonal(rows.0, rows.2) && orthogonal(rows.1, rows.2)
        isIdentity = rows.0 == Vector3(1, 0, 0) && rows.1 == Vector3(0, 1, 0) && rows.2 == Vector3(0, 0, 1)
    }

    /// Builds a matrix from three rows, validating it as `init(parsing:)` does.
    public init(rows r0: Vector3, _ r1: Vector3, _ r2: Vector3) throws(MountMatrixError) {
        self = try MountMatrix.validate([r0, r1, r2], columns: [1, 1, 1])
    }

    /// Parses the text form. Throws with a 1-based column into `text` on malformed
    /// input, a zero row, or an x and y row that do not span a plane.
    public init(parsing text: some StringProtocol) throws(MountMatrixError) {
        let chars = Array(String(text).utf8)
        guard chars.count <= 512 else {
            throw MountMatrixError(column: 513, message: "mount matrix is too long (\(chars.count) bytes, at most 512)")
        }
        var values: [Double] = []
        var rowStartColumns: [Int] = []
        var rowValues = 0
        var i = 0
        func skipSpace() { while i < chars.count, chars[i] == 0x20 || chars[i] == 0x09 { i += 1 } }
        skipSpace()
        rowStartColumns.append(i + 1)
        while true {
            skipSpace()
            let start = i
            while i < chars.count, chars[i] != 0x2C, chars[i] != 0x3B, chars[i] != 0x20, chars[i] != 0x09 { i += 1 }
            let token = chars[start..<i]
            guard !token.isEmpty else {
                throw MountMatrixError(column: start + 1, message: "expected a number in the mount matrix")
            }
            guard let value = DecimalNumber.parse(token) else {
                let shown = String(decoding: token.prefix(32), as: UTF8.self)
                throw MountMatrixError(column: start + 1, message: "'\(shown)' is not a decimal number")
            }
            values.append(value)
            rowValues += 1
            skipSpace()
            if i == chars.count { break }
            if chars[i] == 0x2C {  // ,
                guard rowValues < 3 else {
                    throw MountMatrixError(column: i + 1, message: "a mount matrix row has 3 values; expected ';' here")
                }
                i += 1
            } else if chars[i] == 0x3B {  // ;
                guard rowValues == 3 else {
                    throw MountMatrixError(column: i + 1, message: "a mount matrix row has 3 values; this row has \(rowValues)")
                }
                guard rowStartColumns.count < 3 else {
                    throw MountMatrixError(column: i + 1, message: "a mount matrix has 3 rows; unexpected ';'")
                }
                rowValues = 0
                i += 1
                skipSpace()
                rowStartColumns.append(i + 1)
            } else {
                throw MountMatrixError(column: i + 1, message: "unexpected character in the mount matrix (expected ',' or ';')")
            }
        }
        guard values.count == 9 else {
            throw MountMatrixError(
                column: chars.count + 1,
                message: "a mount matrix has 9 values (x1, y1, z1; x2, y2, z2; x3, y3, z3); found \(values.count)")
        }
        let rows = [
            Vector3(values[0], values[1], values[2]),
            Vector3(values[3], values[4], values[5]),
            Vector3(values[6], values[7], values[8]),
        ]
        self = try MountMatrix.validate(rows, columns: rowStartColumns)
    }

    private static func validate(_ rows: [Vector3], columns: [Int]) throws(MountMatrixError) -> MountMatrix {
        for (index, row) in rows.enumerated() {
            guard row.x.isFinite, row.y.isFinite, row.z.isFinite else {
                throw MountMatrixError(column: columns[index], message: "mount matrix row \(index + 1) is not finite")
            }
            // Real matrices hold values near ±1; huge ones would overflow x × y (found by fuzzing).
            guard abs(row.x) <= MountMatrix.maximumValue, abs(row.y) <= MountMatrix.maximumValue,
                abs(row.z) <= MountMatrix.maximumValue
            else {
                throw MountMatrixError(
                    column: columns[index],
                    message: "mount matrix row \(index + 1) has a value beyond ±\(Int(MountMatrix.maximumValue))")
            }
            if row == .zero {
                throw MountMatrixError(column: columns[index], message: "mount matrix row \(index + 1) is all zeros")
            }
        }
        let x = rows[0], y = rows[1]
        let xy = cross(x, y)
        let scale = length(x) * length(y)
        guard length(xy) > 1e-6 * scale else {
            throw MountMatrixError(
                column: columns[1],
                message: "mount matrix rows 1 and 2 are parallel: they do not give an x and a y axis")
        }
        var z = rows[2]
        var warnings: [String] = []
        // A z row that is (nearly) in the plane of x and y is not a real axis.
        let det = (xy * z).sum()
        if abs(det) < 1e-3 * length(xy) * length(z) {
            // Capped at maximumValue so the rebuilt row parses back from `description` like
            // any other (x and y rows may be up to √3 × maximumValue long; found by fuzz-mount-matrix).
            let rebuilt = xy / length(xy) * min((length(x) + length(y)) / 2, MountMatrix.maximumValue)
            warnings.append(
                "mount matrix row 3 \(format(z)) is not an axis (it lies in the plane of rows 1 and 2); using x × y = \(format(rebuilt)) instead")
            z = rebuilt
        }
        return MountMatrix(validatedRows: (x, y, z), warnings: warnings)
    }

    /// Maps a sensor-frame vector into the panel frame. When the matrix is not
    /// orthonormal the result is rescaled to the raw vector's magnitude.
    @inlinable
    public func apply(_ v: Vector3) -> Vector3 {
        if isIdentity { return v }
        let out = Vector3((rows.0 * v).sum(), (rows.1 * v).sum(), (rows.2 * v).sum())
        if isOrthonormal { return out }
        let outLength = (out * out).sum().squareRoot()
        guard outLength > 0 else { return out }
        return out * ((v * v).sum().squareRoot() / outLength)
    }

    /// The canonical text form, `x1, y1, z1; x2, y2, z2; x3, y3, z3`.
    public var description: String {
        [rows.0, rows.1, rows.2].map { row in
            [row.x, row.y, row.z].map(formatNumber).joined(separator: ", ")
        }.joined(separator: "; ")
    }
}

/// A mount matrix that could not be used, with the 1-based column in its text.
public struct MountMatrixError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based column in the matrix text where the problem is.
    public var column: Int
    /// What is wrong, for a person.
    public var message: String
    /// `column N: message`.
    public var description: String { "column \(column): \(message)" }
}

@usableFromInline
package func length(_ v: Vector3) -> Double { (v * v).sum().squareRoot() }

package func cross(_ a: Vector3, _ b: Vector3) -> Vector3 {
    Vector3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

private func format(_ v: Vector3) -> String {
    "(\(formatNumber(v.x)), \(formatNumber(v.y)), \(formatNumber(v.z)))"
}

/// Formats a number the short way: integers without a fraction, `-0` as `0`.
package func formatNumber(_ value: Double) -> String {
    if value == 0 { return "0" }
    if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}
