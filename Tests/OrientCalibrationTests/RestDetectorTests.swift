import OrientCalibration
import OrientProtocol
import Testing

@Suite("Rest detection")
struct RestDetectorTests {
    let detector = RestDetector()

    @Test("a still device with ordinary sensor noise rests, at its mean reading")
    func stillWithNoise() throws {
        let rest = try detector.rest(in: samples(Vector3(0.2, -9.8, 0.3), count: 40, noise: 0.05))
        #expect(rest.count == 40)
        #expect(rest.durationMs == 1950)
        #expect(((rest.mean - Vector3(0.2, -9.8, 0.3)) * (rest.mean - Vector3(0.2, -9.8, 0.3))).sum() < 0.01)
    }

    @Test("the longest rest wins over a short one before it")
    func longestRest() throws {
        let before = samples(Vector3(g, 0, 0), count: 10)
        let after = samples(Vector3(0, -g, 0), count: 30, startMs: 500)
        let rest = try detector.rest(in: before + after)
        #expect(rest.startMs == 500)
    }

    @Test("the same rest at 5, 20 and 100 Hz is found the same way", arguments: [200.0, 50, 10])
    func rateIndependent(intervalMs: Double) throws {
        let count = Int(1600 / intervalMs) + 1
        let rest = try detector.rest(in: samples(Vector3(0, -g, 0), count: count, intervalMs: intervalMs))
        #expect(rest.durationMs == 1600)
    }

    @Test("a device turning the whole time is refused as moving")
    func moving() {
        let turning = (0..<60).map { i in
            Sample(tMs: Double(i) * 50, vector: rotated(Vector3(0, -g, 0), about: Vector3(0, 0, 1), degrees: Double(i)))
        }
        #expect(throws: PoseProblem.self) { try detector.rest(in: turning) }
        do {
            _ = try detector.rest(in: turning)
        } catch {
            guard case .moved(let degrees, _) = error else {
                Issue.record("expected moved, got \(error)")
                return
            }
            #expect(degrees > 30)
            #expect(error.description.contains("the device moved"))
        }
    }

    @Test("readings scattered around a steady direction are refused as noisy")
    func noisy() {
        do {
            _ = try detector.rest(in: samples(Vector3(0, -g, 0), count: 80, noise: 1.5))
            Issue.record("a noisy device was accepted")
        } catch {
            guard case .noisy = error else {
                Issue.record("expected noisy, got \(error)")
                return
            }
            #expect(error.description.contains("too noisy"))
        }
    }

    @Test("a rest that is not about g long is refused with the scale to blame")
    func wrongScale() {
        do {
            _ = try detector.rest(in: samples(Vector3(0, -4.9, 0), count: 40))
            Issue.record("a rest of 4.9 m/s² was accepted")
        } catch {
            guard case .notGravity(let magnitude, _) = error else {
                Issue.record("expected notGravity, got \(error)")
                return
            }
            #expect(abs(magnitude - 4.9) < 1e-9)
            #expect(error.description.contains("scale is wrong"))
        }
    }

    @Test("too few readings are refused, saying how long a rest must be")
    func tooShort() {
        #expect(throws: PoseProblem.tooShort(samples: 3, durationMs: 100, neededMs: 1000)) {
            try detector.rest(in: samples(Vector3(0, -g, 0), count: 3))
        }
    }

    @Test("garbage readings (NaN, zero) are skipped, not averaged")
    func garbage() throws {
        var readings = samples(Vector3(0, -g, 0), count: 30)
        readings[5].vector = Vector3(.nan, 0, 0)
        readings[6].vector = .zero
        let rest = try detector.rest(in: readings)
        #expect(rest.count == 28)
    }

    @Test("a live reader sees the rest only once the last second has been still")
    func trailing() {
        let moving = (0..<20).map { i in
            Sample(tMs: Double(i) * 50, vector: rotated(Vector3(0, -g, 0), about: Vector3(0, 0, 1), degrees: Double(i) * 6))
        }
        #expect(detector.trailingRest(in: moving) == nil)
        let still = samples(rotated(Vector3(0, -g, 0), about: Vector3(0, 0, 1), degrees: 150), count: 21, startMs: 1000)
        #expect(detector.trailingRest(in: moving + still)?.startMs == 1000)
    }
}

@Suite("Pose sets")
struct PoseSetTests {
    @Test("one recording of the three poses, moved between, gives them in order")
    func sequence() throws {
        var readings = samples(Vector3(0, -g, 0), count: 30)
        readings += (0..<6).map { Sample(tMs: 1500 + Double($0) * 50, vector: rotated(Vector3(0, -g, 0), about: Vector3(0, 0, 1), degrees: Double($0) * 15)) }
        readings += samples(Vector3(g, 0, 0), count: 30, startMs: 1800)
        readings += samples(Vector3(g, 0, 0) * 0.5 + Vector3(0, 0, g) * 0.5, count: 3, startMs: 3300)
        readings += samples(Vector3(0, 0, g), count: 30, startMs: 3450)
        let poses = try PoseSet(sequence: readings, detector: RestDetector())
        #expect(poses.upright.startMs == 0)
        #expect(poses.leftUp.startMs == 1800)
        #expect(poses.faceUp.startMs == 3450)
    }

    @Test("a recording with two rests is refused, saying it needs three")
    func twoRests() {
        let readings = samples(Vector3(0, -g, 0), count: 30) + samples(Vector3(g, 0, 0), count: 30, startMs: 2000)
        #expect {
            try PoseSet(sequence: readings, detector: RestDetector())
        } throws: { error in
            "\(error)".contains("holds 2 rests") && "\(error)".contains("exactly three")
        }
    }

    @Test("one recording per pose: a moving one is refused, naming the pose")
    func perPose() {
        let moving = (0..<40).map {
            Sample(tMs: Double($0) * 50, vector: rotated(Vector3(g, 0, 0), about: Vector3(0, 0, 1), degrees: Double($0) * 3))
        }
        #expect {
            try PoseSet(perPose: [samples(Vector3(0, -g, 0), count: 30), moving, samples(Vector3(0, 0, g), count: 30)],
                detector: RestDetector())
        } throws: { error in
            "\(error)".hasPrefix("pose left-up (left edge up): the device moved")
        }
    }
}
