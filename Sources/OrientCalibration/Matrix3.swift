#if canImport(Glibc)
import Glibc
#endif
package import OrientProtocol

/// A plain 3×3 matrix of rows, for the calibration maths: products, the
/// determinant, the inverse and the nearest orthogonal matrix.
///
/// `MountMatrix` is the validated value the daemon uses; this is the scratch
/// arithmetic behind fitting one.
package struct Matrix3: Sendable, Equatable, CustomStringConvertible {
    package var r0: Vector3
    package var r1: Vector3
    package var r2: Vector3

    package init(_ r0: Vector3, _ r1: Vector3, _ r2: Vector3) {
        self.r0 = r0
        self.r1 = r1
        self.r2 = r2
    }

    package static let identity = Matrix3(Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))

    /// The rows of a mount matrix.
    package init(_ matrix: MountMatrix) {
        self.init(matrix.rows.0, matrix.rows.1, matrix.rows.2)
    }

    package var rows: [Vector3] { [r0, r1, r2] }

    package var transposed: Matrix3 {
        Matrix3(
            Vector3(r0.x, r1.x, r2.x),
            Vector3(r0.y, r1.y, r2.y),
            Vector3(r0.z, r1.z, r2.z))
    }

    package var determinant: Double { dot(r0, cross(r1, r2)) }

    /// The sum of the diagonal.
    package var trace: Double { r0.x + r1.y + r2.z }

    /// `self · v`.
    package func apply(_ v: Vector3) -> Vector3 {
        Vector3(dot(r0, v), dot(r1, v), dot(r2, v))
    }

    /// `a · b`.
    package static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let t = b.transposed
        return Matrix3(
            Vector3(dot(a.r0, t.r0), dot(a.r0, t.r1), dot(a.r0, t.r2)),
            Vector3(dot(a.r1, t.r0), dot(a.r1, t.r1), dot(a.r1, t.r2)),
            Vector3(dot(a.r2, t.r0), dot(a.r2, t.r1), dot(a.r2, t.r2)))
    }

    /// The inverse, or nil when the matrix is (nearly) singular.
    package var inverse: Matrix3? {
        let det = determinant
        let scale = length(r0) * length(r1) * length(r2)
        guard det.isFinite, scale > 0, abs(det) > 1e-9 * scale else { return nil }
        // Rows of the inverse are the columns of the adjugate: cross products of rows, over det.
        let c0 = cross(r1, r2), c1 = cross(r2, r0), c2 = cross(r0, r1)
        return Matrix3(c0 / det, c1 / det, c2 / det).transposed
    }

    /// The orthogonal matrix nearest to this one (the orthogonal factor of its
    /// polar decomposition), with the same sign of determinant; nil when singular.
    ///
    /// Newton's iteration X ← (X + X⁻ᵀ)/2 converges quadratically from any
    /// non-singular start.
    package var nearestOrthogonal: Matrix3? {
        var x = self
        for _ in 0..<60 {
            guard let inverse = x.inverse else { return nil }
            let next = Matrix3((x.r0 + inverse.transposed.r0) / 2, (x.r1 + inverse.transposed.r1) / 2,
                (x.r2 + inverse.transposed.r2) / 2)
            let change = length(next.r0 - x.r0) + length(next.r1 - x.r1) + length(next.r2 - x.r2)
            x = next
            if change < 1e-13 { break }
        }
        return x
    }

    /// The angle of the rotation taking `self` to `other`, in degrees, for two
    /// orthogonal matrices with determinants of the same sign (nil otherwise).
    package func angleDegrees(to other: Matrix3) -> Double? {
        guard (determinant > 0) == (other.determinant > 0) else { return nil }
        let cosine = ((transposed * other).trace - 1) / 2
        return acosDegrees(cosine)
    }

    /// Entries rounded to `places` decimals, `-0` as `0`.
    package func rounded(places: Int) -> Matrix3 {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        func round(_ v: Vector3) -> Vector3 {
            Vector3(((v.x * scale).rounded() / scale) + 0, ((v.y * scale).rounded() / scale) + 0,
                ((v.z * scale).rounded() / scale) + 0)
        }
        return Matrix3(round(r0), round(r1), round(r2))
    }

    /// Every signed permutation matrix (48: 6 permutations × 8 sign patterns).
    package static let signedPermutations: [Matrix3] = {
        let axes = [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)]
        let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        var out: [Matrix3] = []
        for order in orders {
            for signs in 0..<8 {
                func sign(_ bit: Int) -> Double { signs & (1 << bit) == 0 ? 1 : -1 }
                out.append(Matrix3(axes[order[0]] * sign(0), axes[order[1]] * sign(1), axes[order[2]] * sign(2)))
            }
        }
        return out
    }()

    /// The mount-matrix text form, `x1, y1, z1; x2, y2, z2; x3, y3, z3`, numbers
    /// in their shortest form (`1`, `-0.5`, `0.8660`).
    package var description: String {
        rows.map { row in [row.x, row.y, row.z].map(formatNumber).joined(separator: ", ") }.joined(separator: "; ")
    }
}

func dot(_ a: Vector3, _ b: Vector3) -> Double { (a * b).sum() }

/// The angle between two non-zero vectors, in degrees.
func angleDegrees(_ a: Vector3, _ b: Vector3) -> Double {
    let lengths = length(a) * length(b)
    guard lengths > 0 else { return 180 }
    return acosDegrees(dot(a, b) / lengths)
}

func acosDegrees(_ cosine: Double) -> Double {
    acos(min(1, max(-1, cosine))) * 180 / .pi
}
