import Testing
@testable import OrientSynth
import OrientProtocol

/// The synthetic trajectory generator (docs/traces.md, How the generator models a trajectory) that feeds the
/// classifier tests and writes traces/.
@Suite("Trajectory")
struct TrajectoryTests {
    private let g = standardGravity

    private func close(_ a: Vector3, _ b: Vector3, within tolerance: Double) -> Bool {
        let d = a - b
        return (d * d).sum().squareRoot() <= tolerance
    }

    private func magnitude(_ v: Vector3) -> Double { (v * v).sum().squareRoot() }

    // MARK: Frame convention

    @Test(
        "cardinal poses read the frame vectors of docs/behaviour.md",
        arguments: [
            (Pose(theta: 0, phi: 0), Vector3(0, -1, 0)),  // upright normal
            (Pose(theta: 90, phi: 0), Vector3(1, 0, 0)),  // left edge up
            (Pose(theta: 180, phi: 0), Vector3(0, 1, 0)),  // upside down
            (Pose(theta: 270, phi: 0), Vector3(-1, 0, 0)),  // right edge up
            (Pose(theta: -90, phi: 0), Vector3(-1, 0, 0)),  // right edge up, the other way round
            (Pose(theta: 0, phi: 90), Vector3(0, 0, 1)),  // face-up on a table
            (Pose(theta: 0, phi: -90), Vector3(0, 0, -1)),  // face-down, overhead
        ])
    func cardinalPoses(pose: Pose, expected: Vector3) {
        #expect(pose.gravityReading == expected * g)
        let samples = Scenario(start: pose, noiseSigma: 0).samples(rateHz: 20)
        #expect(samples.count == 1)
        #expect(samples.first?.vector == expected * g)
    }

    @Test("a tilted pose reads g in every direction")
    func tiltedPoseMagnitude() {
        for theta in stride(from: 0.0, to: 360, by: 17) {
            for phi in stride(from: -90.0, through: 90, by: 11) {
                #expect(abs(magnitude(Pose(theta: theta, phi: phi).gravityReading) - g) < 1e-12)
            }
        }
    }

    // MARK: Timeline

    @Test("a move takes θ the short way round")
    func shortWay() {
        var s = Scenario(start: Pose(theta: 0, phi: 10))
        s.move(to: Pose(theta: 270, phi: 10), over: 400, easing: .linear)
        #expect(abs(s.pose(at: 200).theta - 315) < 1e-9)
        #expect(s.pose(at: 400) == Pose(theta: 270, phi: 10))
        #expect(s.durationMs == 400)
    }

    @Test("a literal move passes through the angles between")
    func literalMove() {
        var s = Scenario(start: Pose(theta: 0, phi: 10))
        s.move(toTheta: 180, phi: 10, over: 400)
        #expect(abs(s.pose(at: 200).theta - 90) < 1e-9)
        s.move(toTheta: 360, phi: 10, over: 400)
        #expect(abs(s.pose(at: 600).theta - 270) < 1e-9)
        #expect(s.pose(at: 800).theta == 0)
    }

    @Test("a smooth move starts and ends at rest, a linear one keeps its speed")
    func easing() {
        var s = Scenario(start: Pose(theta: 0, phi: 0))
        s.move(to: Pose(theta: 90, phi: 0), over: 1000)
        #expect(s.pose(at: 10).theta < 0.05)
        #expect(abs(s.pose(at: 500).theta - 45) < 1e-9)
        #expect(s.pose(at: 990).theta > 89.95)
        var l = Scenario(start: Pose(theta: 0, phi: 0))
        l.move(to: Pose(theta: 90, phi: 0), over: 1000, easing: .linear)
        #expect(abs(l.pose(at: 100).theta - 9) < 1e-9)
    }

    @Test("the pose before the start and after the end is held")
    func holdsOutsideTheTimeline() {
        var s = Scenario(start: Pose(theta: 0, phi: 5))
        s.hold(100)
        s.move(to: Pose(theta: 90, phi: 20), over: 100)
        #expect(s.pose(at: -50) == Pose(theta: 0, phi: 5))
        #expect(s.pose(at: 10_000) == Pose(theta: 90, phi: 20))
    }

    // MARK: Determinism and rates

    @Test("the same seed gives identical samples")
    func sameSeed() {
        let a = Scenarios.demo(seed: 7).samples(rateHz: 20)
        let b = Scenarios.demo(seed: 7).samples(rateHz: 20)
        #expect(a == b)
        let c = Scenarios.demo(seed: 8).samples(rateHz: 20)
        #expect(a.map(\.tMs) == c.map(\.tMs))
        #expect(a != c)
    }

    @Test("different rates sample the same trajectory", arguments: [5.0, 20.0, 100.0])
    func ratesAgree(rateHz: Double) {
        var s = Scenarios.brisk90Turn()
        s.noiseSigma = 0
        let samples = s.samples(rateHz: rateHz)
        #expect(samples.count == Int(s.durationMs * rateHz / 1000) + 1)
        #expect(samples.first?.tMs == 0)
        #expect(samples.last?.tMs == s.durationMs)
        for sample in samples {
            #expect(close(sample.vector, s.cleanReading(at: sample.tMs), within: 1e-12))
        }
        // Times shared by every rate give the same reading.
        let reference = Dictionary(uniqueKeysWithValues: s.samples(rateHz: 5).map { ($0.tMs, $0.vector) })
        for sample in samples {
            if let expected = reference[sample.tMs] {
                #expect(sample.vector == expected)
            }
        }
    }

    @Test("noise has the requested σ on each axis")
    func noiseSigma() {
        let s = { () -> Scenario in
            var s = Scenario(start: .normal, seed: 3, noiseSigma: 0.1)
            s.hold(200_000)
            return s
        }()
        let samples = s.samples(rateHz: 20)
        let clean = Pose.normal.gravityReading
        var sum = Vector3.zero
        var sumSquares = Vector3.zero
        for sample in samples {
            let d = sample.vector - clean
            sum += d
            sumSquares += d * d
        }
        let n = Double(samples.count)
        let mean = sum / n
        for axis in 0..<3 {
            #expect(abs(mean[axis]) < 0.005)
            #expect(abs((sumSquares[axis] / n).squareRoot() - 0.1) < 0.005)
        }
    }

    // MARK: Overlays

    @Test("an impulse is a half-sine pulse on top of gravity")
    func impulse() {
        var s = Scenario(start: .normal, noiseSigma: 0)
        s.hold(1000)
        s.addImpulse(at: 100, duration: 100, peak: Vector3(2 * g, 0, 0))
        #expect(s.cleanReading(at: 99) == Pose.normal.gravityReading)
        #expect(close(s.cleanReading(at: 150), Vector3(2 * g, -g, 0), within: 1e-9))
        #expect(s.cleanReading(at: 201) == Pose.normal.gravityReading)
    }

    @Test("free fall leaves only the residual magnitude")
    func freeFall() {
        var s = Scenario(start: Pose(theta: 30, phi: 20), noiseSigma: 0)
        s.hold(1000)
        s.freeFall(from: 200, to: 500, residual: 0.3)
        #expect(abs(magnitude(s.cleanReading(at: 300)) - 0.3) < 1e-12)
        #expect(abs(magnitude(s.cleanReading(at: 600)) - g) < 1e-12)
    }

    @Test("the walking bounce runs along world-up, not a device axis")
    func worldOscillation() {
        var s = Scenario(start: Pose(theta: 90, phi: 30), noiseSigma: 0)
        s.hold(2000)
        s.addWorldOscillation(from: 0, to: 2000, frequencyHz: 1, amplitude: 3)
        let peak = s.cleanReading(at: 250)  // sin(π/2): a quarter period in
        let direction = Pose(theta: 90, phi: 30).gravityDirection
        #expect(close(peak, direction * (g + 3), within: 1e-9))
    }

    @Test("a tremor moves θ by up to its amplitude")
    func tremor() {
        var s = Scenario(start: Pose(theta: 45, phi: 10), noiseSigma: 0)
        s.hold(2000)
        s.addTremor(from: 0, to: 2000, degrees: 10, frequencyHz: 1)
        #expect(abs(s.pose(at: 250).theta - 55) < 1e-9)
        #expect(abs(s.pose(at: 750).theta - 35) < 1e-9)
        #expect(s.pose(at: 2000).theta == 45)
    }

    // MARK: Gaps, inserted samples, on-change

    @Test("gaps remove samples")
    func gaps() {
        let s = Scenarios.sensorGap()
        let samples = s.samples(rateHz: 20)
        #expect(!samples.contains { $0.tMs >= 2000 && $0.tMs < 4000 })
        #expect(samples.contains { $0.tMs == 1950 })
        #expect(samples.contains { $0.tMs == 4000 })
        #expect(samples.count == Int(s.durationMs / 50) + 1 - 40)
        // The device was turned during the gap: it resumes in left-up.
        if let resumed = samples.first(where: { $0.tMs == 4000 }) {
            #expect(resumed.vector.x > 9)
        }
    }

    @Test("inserted samples appear in time order")
    func insertedSamples() {
        let samples = Scenarios.corruptedSamples().samples(rateHz: 20)
        let times = samples.map(\.tMs)
        #expect(times == times.sorted())
        let index = samples.firstIndex { $0.tMs == 1525 }
        #expect(index.map { samples[$0].vector } == Vector3(203.7, 266.8, 0))
        #expect(index.map { samples[$0 - 1].tMs } == 1500)
        #expect(index.map { samples[$0 + 1].tMs } == 1550)
        #expect(samples.contains { $0.tMs == 2025 && $0.vector == .zero })
        #expect(samples.contains { $0.tMs == 2525 && $0.vector.x.isNaN })
        #expect(samples.count == 4000 / 50 + 1 + 3)
    }

    @Test("a sample inserted at a regular time follows the regular one")
    func insertedAtRegularTime() {
        var s = Scenario(start: .normal, noiseSigma: 0)
        s.hold(100)
        s.insert(.zero, at: 50)
        s.insert(Vector3(1, 1, 1), at: 50)
        let samples = s.samples(rateHz: 20)
        #expect(samples.map(\.tMs) == [0, 50, 50, 50, 100])
        #expect(samples[1].vector == Pose.normal.gravityReading)
        #expect(samples[2].vector == .zero)
        #expect(samples[3].vector == Vector3(1, 1, 1))
    }

    @Test("on-change traces stay silent while still")
    func onChangeSilentWhileStill() {
        let still = Scenarios.cardinal(theta: 90).trace(rateHz: 20, onChange: true)
        #expect(still.onChange)
        #expect(still.samples.count == 1)

        let turn = Scenarios.brisk90Turn()
        let samples = turn.samples(rateHz: 20, onChange: true)
        let start = turn.markTime("turn-start") ?? 0
        let end = turn.markTime("turn-end") ?? 0
        #expect(samples.first?.tMs == 0)
        // Nothing between the first sample and the turn, nothing after it ends.
        #expect(!samples.contains { $0.tMs > 0 && $0.tMs < start })
        #expect(!samples.contains { $0.tMs > end })
        #expect(samples.count > 3)
        // Consecutive emitted readings differ by more than the threshold.
        for (a, b) in zip(samples, samples.dropFirst()) {
            #expect(magnitude(b.vector - a.vector) > Scenario.onChangeThreshold)
        }
        // No noise: the last emitted reading is within the threshold of the end pose.
        if let last = samples.last {
            #expect(close(last.vector, turn.cleanReading(at: end), within: Scenario.onChangeThreshold))
        }
    }

    // MARK: Traces and mount matrices

    @Test(
        "a trace with a mount matrix maps back to the panel frame through MountMatrix.apply",
        arguments: [
            "1, 0, 0; 0, 1, 0; 0, 0, 1",
            "0, -1, 0; -1, 0, 0; 0, 0, 1",
            "0, 1, 0; -1, 0, 0; 0, 0, 1",
            "-1, 0, 0; 0, -1, 0; 0, 0, -1",
            "0.866025403784439, -0.5, 0; 0.5, 0.866025403784439, 0; 0, 0, 1",
            "1, 0, 0; 0, -1, 0; 1, 0, 0",  // singular in the hwdb; its z row is rebuilt
            "2, 0, 0; 0, 1.5, 0; 0.2, 0, 1",  // not orthonormal: apply keeps the raw magnitude
        ])
    func mountMatrixRoundTrip(matrixText: String) throws {
        let matrix = try MountMatrix(parsing: matrixText)
        let scenario = Scenarios.demo()
        let panel = scenario.samples(rateHz: 20)
        let trace = scenario.trace(rateHz: 20, mountMatrix: matrix)
        #expect(trace.mountMatrix == matrix)
        #expect(trace.samples.count == panel.count)
        #expect(trace.samples.map(\.tMs) == panel.map(\.tMs))
        var differs = false
        for (sensor, expected) in zip(trace.samples, panel) {
            #expect(close(matrix.apply(sensor.vector), expected.vector, within: 1e-9))
            if !close(sensor.vector, expected.vector, within: 1e-6) { differs = true }
        }
        #expect(differs == !matrix.isIdentity)
    }

    @Test("a trace carries its metadata and reads back through TraceReader")
    func traceRoundTrip() throws {
        let matrix = try MountMatrix(parsing: "0, -1, 0; -1, 0, 0; 0, 0, 1")
        let trace = Scenarios.corruptedSamples().trace(rateHz: 20, mountMatrix: matrix)
        #expect(trace.rateHz == 20)
        #expect(trace.onChange == false)
        #expect(trace.description == Scenarios.corruptedSamples().summary)
        #expect(trace.extraHeaders.map(\.key) == ["marks", "duration_ms", "generator"])
        let text = trace.serialized()
        let again = try TraceReader.parse(text.utf8, file: "corrupted.trace")
        #expect(again.mountMatrix == matrix)
        #expect(again.samples.count == trace.samples.count)
        #expect(again.extraHeaders.first?.value == "spike@1525 zero@2025 nan@2525")
    }

    // MARK: The named scenarios

    @Test("every named scenario builds a sampled, time-ordered trace")
    func catalog() {
        #expect(Set(Scenarios.catalog.map(\.name)).count == Scenarios.catalog.count)
        for entry in Scenarios.catalog {
            let scenario = entry.build(1)
            let samples = scenario.samples(rateHz: scenario.preferredRateHz)
            #expect(samples.count > 20, "\(entry.name)")
            #expect(samples.map(\.tMs) == samples.map(\.tMs).sorted(), "\(entry.name)")
            #expect(scenario.summary != nil, "\(entry.name)")
            #expect(Set(scenario.marks.map(\.name)).count == scenario.marks.count, "\(entry.name) repeats a mark")
        }
    }

    @Test("the demo lasts about a minute, goes through every orientation and ends in normal")
    func demo() {
        let demo = Scenarios.demo()
        #expect(demo.durationMs >= 55_000 && demo.durationMs <= 65_000)
        #expect(demo.endPose.normalized == Pose(theta: 0, phi: 15))
        let thetas = [2000.0, 6000, 14_000, 22_000, 27_000, 47_000].map { demo.pose(at: $0) }
        #expect(abs(thetas[0].theta - 0) < 3 || abs(thetas[0].theta - 360) < 3)
        #expect(abs(thetas[1].theta - 90) < 3)
        #expect(abs(thetas[2].theta - 270) < 3)
        #expect(thetas[3].phi == 90)  // on the table
        #expect(abs(thetas[4].theta - 90) < 3)
        #expect(abs(thetas[5].theta - 180) < 3)
    }

    @Test("the end-over-end tip goes through face-up to bottom-up")
    func endOverEnd() {
        var s = Scenarios.endOverEnd()
        s.noiseSigma = 0
        let start = s.markTime("tip-start") ?? 0
        #expect(close(s.cleanReading(at: start), Vector3(0, -g, 0), within: 1e-9))
        #expect(close(s.cleanReading(at: start + 300), Vector3(0, 0, g), within: 1e-9))
        #expect(close(s.cleanReading(at: start + 600), Vector3(0, g, 0), within: 1e-9))
        // Continuous through the θ jump at face-up.
        #expect(close(s.cleanReading(at: start + 299), s.cleanReading(at: start + 301), within: 0.2))
    }
}
