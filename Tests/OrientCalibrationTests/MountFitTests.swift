import OrientCalibration
import OrientProtocol
import Testing

@Suite("Mount matrix fit")
struct MountFitTests {
    @Test("systemd's hwdb has matrices to test against")
    func hwdbIsThere() {
        #expect(SystemHwdb.matrices.count >= 20, "found \(SystemHwdb.matrices.count) in \(SystemHwdb.path)")
    }

    @Test("every distinct hwdb matrix is recovered from its three poses", arguments: SystemHwdb.matrices)
    func recoversHwdbMatrices(matrix: MountMatrix) throws {
        let poses = poseReadings(matrix)
        let fit = try MountFit(upright: poses.upright, leftUp: poses.leftUp, faceUp: poses.faceUp)
        #expect(fit.matrix == matrix || matrix.warnings.isEmpty == false, "\(fit.matrix) for \(matrix)")
        #expect(MountFit.equivalent(fit.matrix, matrix), "\(fit.matrix) for \(matrix)")
        #expect(fit.kind == .signedPermutation(offsetDegrees: 0))
        #expect(fit.mirrored == (Matrix3(matrix).determinant < 0))
        for pose in CalibrationPose.allCases {
            let reading = [poses.upright, poses.leftUp, poses.faceUp][CalibrationPose.allCases.firstIndex(of: pose)!]
            #expect(PanelPose(raw: reading, matrix: fit.matrix) == PanelPose(raw: reading, matrix: matrix))
        }
    }

    @Test("poses held 10° off still give the exact signed permutation")
    func snapsImpreciseHolds() throws {
        let matrix = try MountMatrix(parsing: "0, -1, 0; -1, 0, 0; 0, 0, 1")
        let poses = poseReadings(matrix)
        let fit = try MountFit(
            upright: rotated(poses.upright, about: Vector3(0, 0, 1), degrees: 10),
            leftUp: rotated(poses.leftUp, about: Vector3(1, 0, 0), degrees: -8),
            faceUp: rotated(poses.faceUp, about: Vector3(0, 1, 0), degrees: 9))
        #expect(fit.matrix == matrix)
        guard case .signedPermutation(let offset) = fit.kind else {
            Issue.record("expected a signed permutation, got \(fit.kind)")
            return
        }
        #expect(offset > 1 && offset < 15)
    }

    @Test("a sensor mounted at 30° gives the exact rotation, not a permutation")
    func mountAtAnAngle() throws {
        // Sensor turned 30° about the panel's z axis: panel = R(30°) · sensor.
        let turn = Matrix3(
            Vector3(0.8660254, -0.5, 0), Vector3(0.5, 0.8660254, 0), Vector3(0, 0, 1))
        let matrix = try MountMatrix(rows: turn.r0, turn.r1, turn.r2)
        let poses = poseReadings(matrix)
        let fit = try MountFit(upright: poses.upright, leftUp: poses.leftUp, faceUp: poses.faceUp)
        guard case .rotation(let offset) = fit.kind else {
            Issue.record("expected a rotation, got \(fit.kind)")
            return
        }
        #expect(abs(offset - 30) < 0.01)
        #expect(fit.matrix.description == "0.866, -0.5, 0; 0.5, 0.866, 0; 0, 0, 1")
        #expect(MountFit.equivalent(fit.matrix, matrix, degrees: 0.01))
        #expect(fit.residualDegrees.values.allSatisfy { $0 < 0.01 })
    }

    @Test("a HID sensor hub's z into the screen gives a mirrored matrix that reads face up as +z")
    func windowsConventionZ() throws {
        // x and y already right, z reads -g lying face up.
        let fit = try MountFit(
            upright: Vector3(0, -g, 0), leftUp: Vector3(g, 0, 0), faceUp: Vector3(0, 0, -g))
        #expect(fit.matrix.description == "1, 0, 0; 0, 1, 0; 0, 0, -1")
        #expect(fit.mirrored)
        #expect(PanelPose(raw: Vector3(0, 0, -g), matrix: fit.matrix).tilt == .faceUp)
    }

    @Test(
        "poses that contradict or are ambiguous are refused, naming the poses",
        arguments: [
            // left-up the same as upright: not turned.
            (Vector3(0, -g, 0), Vector3(0.5, -g, 0), Vector3(0, 0, g), "contradict", "reads the same direction"),
            // left-up opposite to upright: a half turn.
            (Vector3(0, -g, 0), Vector3(0, g, 0), Vector3(0, 0, g), "contradict", "half turn"),
            // face-up the same as upright (not laid down).
            (Vector3(0, -g, 0), Vector3(g, 0, 0), Vector3(0.3, -g, 0.5), "contradict", "same direction"),
            // left-up held diagonally: 45° from upright.
            (Vector3(0, -g, 0), Vector3(g * 0.7071, -g * 0.7071, 0), Vector3(0, 0, g), "ambiguous", "45°"),
            // face-up only half laid down: 45° from upright and 90° from left-up.
            (Vector3(0, -g, 0), Vector3(g, 0, 0), Vector3(0, -g * 0.7071, g * 0.7071), "ambiguous", "face-up"),
        ])
    func refusesDisagreement(upright: Vector3, leftUp: Vector3, faceUp: Vector3, word: String, detail: String) {
        #expect {
            try MountFit(upright: upright, leftUp: leftUp, faceUp: faceUp)
        } throws: { error in
            let text = (error as? CalibrationProblem)?.description ?? ""
            return text.contains(word) && text.contains(detail)
        }
    }

    @Test("matrices that differ only in a degenerate z row count as equivalent")
    func equivalence() throws {
        let stray = try MountMatrix(parsing: "1, 0, 0; 0, -1, 0; 1, 0, 0")  // z rebuilt as x × y
        let proper = try MountMatrix(parsing: "1, 0, 0; 0, -1, 0; 0, 0, -1")
        #expect(MountFit.equivalent(stray, proper))
        #expect(!MountFit.equivalent(proper, try MountMatrix(parsing: "1, 0, 0; 0, -1, 0; 0, 0, 1")))
    }
}

@Suite("3×3 maths")
struct Matrix3Tests {
    @Test("the nearest orthogonal matrix keeps the handedness and is orthonormal")
    func polar() throws {
        let skewed = Matrix3(Vector3(1, 0.1, 0), Vector3(-0.05, 0.98, 0.1), Vector3(0, 0, -1.1))
        let q = try #require(skewed.nearestOrthogonal)
        let product = q * q.transposed
        for (row, axis) in zip(product.rows, Matrix3.identity.rows) {
            #expect(((row - axis) * (row - axis)).sum() < 1e-20)
        }
        #expect(q.determinant < 0)
    }

    @Test("there are 48 signed permutations, half of them mirrored")
    func permutations() {
        #expect(Matrix3.signedPermutations.count == 48)
        #expect(Set(Matrix3.signedPermutations.map(\.description)).count == 48)
        #expect(Matrix3.signedPermutations.filter { $0.determinant < 0 }.count == 24)
    }

    @Test("a singular matrix has no inverse")
    func singular() {
        #expect(Matrix3(Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(1, 1, 0)).inverse == nil)
    }
}

@Suite("Panel pose")
struct PanelPoseTests {
    @Test(
        "the frame convention's cardinal readings give their orientation and tilt",
        arguments: [
            (Vector3(0, -g, 0), "normal, vertical"),
            (Vector3(g, 0, 0), "left-up, vertical"),
            (Vector3(0, g, 0), "bottom-up, vertical"),
            (Vector3(-g, 0, 0), "right-up, vertical"),
            (Vector3(0, 0, g), "flat (keeps the last orientation), face-up"),
            (Vector3(0, 0, -g), "flat (keeps the last orientation), face-down"),
            (Vector3(0, -g * 0.7071, g * 0.7071), "normal, tilted-up"),
        ])
    func cardinal(reading: Vector3, expected: String) {
        #expect(PanelPose(panel: reading).description == expected)
    }
}
