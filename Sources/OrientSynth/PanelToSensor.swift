import OrientProtocol

/// Maps panel-frame vectors back into the sensor frame, the inverse of
/// `MountMatrix.apply`: `matrix.apply(PanelToSensor(matrix)(p)) == p` up to
/// rounding.
///
/// For an orthonormal matrix that is the transpose. Otherwise it is the general
/// inverse, scaled to the panel vector's magnitude, because `apply` rescales a
/// non-orthonormal result to the raw vector's magnitude.
struct PanelToSensor: Sendable {
    private enum Kind: Sendable {
        case identity
        case transpose(Vector3, Vector3, Vector3)
        case inverse(Vector3, Vector3, Vector3)
    }

    private let kind: Kind

    init(_ matrix: MountMatrix) {
        let (r0, r1, r2) = matrix.rows
        if matrix.isIdentity {
            kind = .identity
        } else if matrix.isOrthonormal {
            // Columns of Mᵀ are the rows of M: s = Mᵀp = r0·p.x + r1·p.y + r2·p.z.
            kind = .transpose(r0, r1, r2)
        } else {
            // Inverse by the adjugate: the columns of M⁻¹ are the cross products of rows.
            let c0 = cross(r1, r2)
            let c1 = cross(r2, r0)
            let c2 = cross(r0, r1)
            let det = (r0 * c0).sum()
            if det == 0 || !det.isFinite {
                kind = .identity  // validated matrices are never singular; be safe anyway
            } else {
                // M⁻¹ = [c0 c1 c2] / det as columns, since rᵢ·cⱼ = det·δᵢⱼ.
                kind = .inverse(c0 / det, c1 / det, c2 / det)
            }
        }
    }

    func callAsFunction(_ panel: Vector3) -> Vector3 {
        switch kind {
        case .identity:
            return panel
        case let .transpose(r0, r1, r2):
            return r0 * panel.x + r1 * panel.y + r2 * panel.z
        case let .inverse(c0, c1, c2):
            let s = c0 * panel.x + c1 * panel.y + c2 * panel.z
            let sLength = (s * s).sum().squareRoot()
            let pLength = (panel * panel).sum().squareRoot()
            guard sLength > 0, sLength.isFinite, pLength.isFinite else { return s }
            return s * (pLength / sLength)
        }
    }
}
