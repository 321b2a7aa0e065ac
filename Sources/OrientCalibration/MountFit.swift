package import OrientProtocol

/// The mount matrix three resting poses give, checked.
///
/// Row *i* of a mount matrix is the sensor-frame direction of panel axis *i*,
/// so the poses give it directly: panel +x is where gravity's reaction points
/// with the left edge up, panel +y is opposite to where it points upright, and
/// panel +z is where it points lying face up. Measured poses are never exactly
/// a quarter turn apart, so the fit takes the orthogonal matrix nearest to
/// those rows; then, if that is within `snapDegrees` of a signed permutation
/// (every real hwdb matrix is one), the permutation; otherwise the sensor is
/// mounted at an angle and the exact rotation stands.
///
/// ```swift
/// let fit = try MountFit(upright: u, leftUp: l, faceUp: f)   // sensor-frame rest readings
/// print(fit.matrix)                                           // "0, -1, 0; -1, 0, 0; 0, 0, 1"
/// ```
package struct MountFit: Sendable, Equatable {
    /// How the matrix was chosen.
    package enum Kind: Sendable, Equatable {
        /// Axis-aligned: the nearest signed permutation, `offsetDegrees` from the
        /// rotation the poses measured (how far off the poses were held).
        case signedPermutation(offsetDegrees: Double)
        /// The sensor is mounted at an angle: the measured rotation, which is
        /// `offsetDegrees` from the nearest signed permutation.
        case rotation(offsetDegrees: Double)
    }

    /// The matrix to use, as it will be written (a rotation is rounded to 4 decimals).
    package let matrix: MountMatrix
    package let kind: Kind
    /// True when the frame is mirrored (determinant −1): lying face up reads +z
    /// only because the z row is flipped from x × y. HID sensor hubs report in
    /// the Windows convention and need this; so do most of systemd's hwdb matrices.
    package let mirrored: Bool
    /// For each pose, the angle between what the panel reads under `matrix` and
    /// what it should read, degrees.
    package let residualDegrees: [CalibrationPose: Double]

    /// Poses further than this from a quarter turn apart are ambiguous, degrees.
    package static let agreementTolerance = 20.0
    /// A measured rotation this close to a signed permutation is taken as one, degrees.
    package static let snapDegrees = 15.0
    /// The largest residual accepted, degrees.
    package static let fitTolerance = 25.0

    /// Fits the matrix to three rest readings in the sensor frame (any length;
    /// only directions count).
    ///
    /// - Throws: `CalibrationProblem`: two poses the same or opposite (they
    ///   contradict), two poses neither that nor a quarter turn apart
    ///   (ambiguous), or a pose that no orthogonal matrix brings close enough.
    package init(upright: Vector3, leftUp: Vector3, faceUp: Vector3) throws(CalibrationProblem) {
        let readings: [(CalibrationPose, Vector3)] = [(.upright, upright), (.leftUp, leftUp), (.faceUp, faceUp)]
        for (i, first) in readings.enumerated() {
            for second in readings[(i + 1)...] {
                let degrees = angleDegrees(first.1, second.1)
                if degrees < 45 { throw .samePose(first.0, second.0, degrees: degrees) }
                if degrees > 135 { throw .oppositePoses(first.0, second.0, degrees: degrees) }
                if abs(degrees - 90) > MountFit.agreementTolerance {
                    throw .ambiguous(first.0, second.0, degrees: degrees, toleranceDegrees: MountFit.agreementTolerance)
                }
            }
        }
        let unit = { (v: Vector3) in v / length(v) }
        let measured = Matrix3(unit(leftUp), -unit(upright), unit(faceUp))
        guard let rotation = measured.nearestOrthogonal else { throw .degenerate }
        let mirrored = rotation.determinant < 0
        // The nearest signed permutation of the same handedness: the largest Σ Pᵢⱼ Rᵢⱼ.
        let candidates = Matrix3.signedPermutations.filter { ($0.determinant < 0) == mirrored }
        var best = candidates[0]
        var bestScore = -Double.infinity
        for candidate in candidates {
            let score = dot(candidate.r0, rotation.r0) + dot(candidate.r1, rotation.r1) + dot(candidate.r2, rotation.r2)
            if score > bestScore {
                best = candidate
                bestScore = score
            }
        }
        let offset = best.angleDegrees(to: rotation) ?? 180
        let chosen: Matrix3
        if offset <= MountFit.snapDegrees {
            chosen = best
            kind = .signedPermutation(offsetDegrees: offset)
        } else {
            chosen = rotation.rounded(places: 4)
            kind = .rotation(offsetDegrees: offset)
        }
        do {
            matrix = try MountMatrix(rows: chosen.r0, chosen.r1, chosen.r2)
        } catch {
            throw .degenerate
        }
        self.mirrored = mirrored
        var residuals: [CalibrationPose: Double] = [:]
        for (pose, reading) in readings {
            let degrees = angleDegrees(chosen.apply(reading), pose.panelDirection)
            residuals[pose] = degrees
            if degrees > MountFit.fitTolerance {
                throw .poorFit(pose, degrees: degrees, toleranceDegrees: MountFit.fitTolerance)
            }
        }
        residualDegrees = residuals
    }

    /// Whether `other` gives the same orientation and tilt as this fit's matrix
    /// for every resting direction (their panel readings agree within `degrees`
    /// on the six axis directions).
    package static func equivalent(_ a: MountMatrix, _ b: MountMatrix, degrees: Double = 1) -> Bool {
        let axes = [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)]
        return axes.allSatisfy { angleDegrees(a.apply($0), b.apply($0)) <= degrees }
    }
}
