#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

@testable import OrientSense
import OrientProtocol

/// The display's and the base's readings for a hinge angle, the base turned
/// `pitch` about the hinge and `roll` out of the horizontal, in the frames of
/// `HingeAngle` with lying face up reading `zSign`·g (−1: as the ChromeOS EC).
func hingePair(_ hinge: Double, pitch: Double = 0, roll: Double = 0, zSign: Double = -1, g: Double = 9.80665) -> (lid: Vector3, base: Vector3) {
    func turnX(_ v: Vector3, _ degrees: Double) -> Vector3 {
        let a = degrees * .pi / 180
        return Vector3(v.x, cos(a) * v.y - sin(a) * v.z, sin(a) * v.y + cos(a) * v.z)
    }
    let r = roll * .pi / 180
    let rolled = Vector3(-sin(r) * g, 0, -cos(r) * g)
    let base = turnX(rolled, pitch)
    let lid = turnX(base, hinge - 180)
    let flip = Vector3(1, 1, -zSign)
    return (lid * flip, base * flip)
}

private let chromeos: HingeConfig = {
    var config = HingeConfig()
    config.zSign = -1
    return config
}()

@Suite("Hinge angle")
struct HingeAngleTests {
    @Test(
        "the angle is the hinge's, from closed through flat to folded back, whatever the base's pitch and either z sign",
        arguments: [1.0, 45, 90, 110, 159, 180, 201, 270, 300, 359], [0.0, -30, 40])
    func angles(hinge: Double, pitch: Double) throws {
        for zSign in [-1.0, 1] {
            var config = HingeConfig()
            config.zSign = zSign
            let (lid, base) = hingePair(hinge, pitch: pitch, roll: 20, zSign: zSign)
            let angle = try #require(HingeAngle.degrees(lid: lid, base: base, config: config))
            #expect(abs(angle - hinge) < 1e-9, "z sign \(zSign): \(angle)")
        }
    }

    @Test("with the wrong z sign the angle is mirrored: a laptop at 120° reads 240°")
    func wrongZSign() throws {
        let (lid, base) = hingePair(120)
        let angle = try #require(HingeAngle.degrees(lid: lid, base: base, config: HingeConfig()))
        #expect(abs(angle - 240) < 1e-9)
    }

    @Test("at 180° the two readings are equal, and at 360° the base reads the display's (x, −y, −z)")
    func frameConvention() {
        let flat = hingePair(180, pitch: 25, roll: 30)
        #expect(length(flat.lid - flat.base) < 1e-9)
        let folded = hingePair(360, pitch: 25, roll: 30)
        #expect(length(folded.base - folded.lid * Vector3(1, -1, -1)) < 1e-9)
    }

    @Test("no angle with the hinge within 27.5° of vertical, a zero or a non-finite reading")
    func unknowable() {
        let (lid, base) = hingePair(110, roll: 63)
        #expect(HingeAngle.degrees(lid: lid, base: base, config: chromeos) == nil)
        let (lid2, base2) = hingePair(110, roll: 62)
        #expect(HingeAngle.degrees(lid: lid2, base: base2, config: chromeos) != nil)
        #expect(HingeAngle.degrees(lid: Vector3(0, 0, 0), base: base2, config: chromeos) == nil)
        #expect(HingeAngle.degrees(lid: lid2, base: Vector3(.nan, 1, 1), config: chromeos) == nil)
        #expect(HingeAngle.degrees(lid: Vector3(.infinity, 1, 1), base: base2, config: chromeos) == nil)
        #expect(HingeAngle.degrees(lid: Vector3(9.8, 0, 0), base: Vector3(9.8, 0, 0), config: chromeos) == nil)
    }
}

private func length(_ v: Vector3) -> Double { (v * v).sum().squareRoot() }

@Suite("Hinge tablet-mode detector")
struct HingeModeDetectorTests {
    /// A detector decided at `hinge` by one clear reading at t = 0.
    static func decided(at hinge: Double) -> HingeModeDetector {
        var detector = HingeModeDetector(config: chromeos)
        let (lid, base) = hingePair(hinge)
        detector.update(tMs: 0, lid: lid, base: base)
        return detector
    }

    @Test("it starts unknown with no angle")
    func start() {
        let detector = HingeModeDetector()
        #expect(detector.mode == .unknown && detector.angle == nil && detector.hold == nil)
        #expect(detector.config == HingeConfig())
    }

    @Test(
        "the first clear reading decides: tablet from 200° on, else laptop, in the folded zone too",
        arguments: [(5.0, TabletMode.laptop), (110, .laptop), (170, .laptop), (199, .laptop), (200, .tablet), (250, .tablet), (355, .tablet)])
    func firstDecision(hinge: Double, mode: TabletMode) {
        #expect(Self.decided(at: hinge).mode == mode)
    }

    @Test(
        "hysteresis: from laptop 199° stays and 201° is tablet; from tablet 161° stays and 159° is laptop",
        arguments: [(110.0, 199.0, TabletMode.laptop), (110, 201, .tablet), (300, 161, .tablet), (300, 159, .laptop), (300, 180, .tablet), (110, 180, .laptop)])
    func hysteresis(from: Double, to: Double, mode: TabletMode) throws {
        var detector = Self.decided(at: from)
        let (lid, base) = hingePair(to, pitch: 10)
        #expect(detector.update(tMs: 100, lid: lid, base: base) == mode)
        let angle = try #require(detector.angle)
        #expect(abs(angle - to) < 1e-9)
        #expect(detector.hold == nil)
    }

    @Test("within 20° of closed or folded flat, a decided mode holds", arguments: [(110.0, 345.0), (110, 5), (300, 10), (300, 350)])
    func foldedZone(from: Double, to: Double) {
        var detector = Self.decided(at: from)
        let before = detector.mode
        let (lid, base) = hingePair(to)
        #expect(detector.update(tMs: 100, lid: lid, base: base) == before)
        #expect(detector.hold == .folded)
    }

    @Test("with the hinge near vertical the last decision and angle hold")
    func hingeVertical() {
        var detector = Self.decided(at: 300)
        let (lid, base) = hingePair(100, roll: 80)
        #expect(detector.update(tMs: 100, lid: lid, base: base) == .tablet)
        #expect(detector.hold == .hingeVertical && detector.angle.map { abs($0 - 300) < 1e-9 } == true)
    }

    @Test("moving hard holds the decision, and for 500 ms after the last hard reading")
    func movingHard() {
        var detector = Self.decided(at: 300)
        let (lid, base) = hingePair(100)
        #expect(detector.update(tMs: 1000, lid: lid * 1.2, base: base * 1.2) == .tablet)
        #expect(detector.hold == .moving)
        // The two magnitudes differ by more than 1 m/s², each within 1 of g.
        #expect(detector.update(tMs: 1100, lid: lid * 1.09, base: base * 0.95) == .tablet)
        #expect(detector.hold == .moving)
        #expect(detector.update(tMs: 1599, lid: lid, base: base) == .tablet)
        #expect(detector.hold == .moving)
        #expect(detector.update(tMs: 1600, lid: lid, base: base) == .laptop)
        #expect(detector.hold == nil)
    }

    @Test("a reading with a non-finite component, a zero vector or a non-finite time changes nothing")
    func unusable() {
        var detector = Self.decided(at: 300)
        let (lid, base) = hingePair(100)
        for (t, l, b) in [(100.0, Vector3(.nan, 0, 0), base), (200, lid, Vector3(0, 0, 0)), (.nan, lid, base), (300, lid, Vector3(.infinity, 0, 1))] {
            #expect(detector.update(tMs: t, lid: l, base: b) == .tablet)
            #expect(detector.hold == .unusable)
        }
        #expect(detector.update(tMs: 400, lid: lid, base: base) == .laptop)
    }

    @Test("a lid wobbling between the thresholds for a minute, with noise, is decided once and never changes", arguments: [176.0, 180, 184])
    func noFlapping(centre: Double) {
        var detector = HingeModeDetector(config: chromeos)
        var changes = 0, last = TabletMode.unknown
        var seed: UInt64 = 0x1234_5678
        func noise() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) - 0.5
        }
        for i in 0..<1200 {
            let t = Double(i) * 50
            let hinge = centre + 12 * sin(t / 700) + 2 * noise()
            let (lid, base) = hingePair(hinge, pitch: 10 * sin(t / 3000))
            let mode = detector.update(tMs: t, lid: lid + Vector3(noise(), noise(), noise()) * 0.2, base: base)
            if mode != last { changes += 1; last = mode }
        }
        #expect(changes == 1, "\(changes) changes")
    }

    @Test("ZSign applies its sign to a HingeConfig")
    func zSign() {
        let sign = ZSign.decide(setting: .auto, driverName: "cros-ec-accel")
        #expect(sign.applied(to: HingeConfig()).zSign == -1)
        #expect(ZSign.decide(setting: .fixed(1), driverName: "cros-ec-accel").applied(to: chromeos).zSign == 1)
    }

    @Test("the defaults have no problems; values the detector cannot run with are named")
    func problems() {
        #expect(HingeConfig().problems().isEmpty)
        var config = HingeConfig()
        config.tabletEnterDeg = 170
        config.tabletExitDeg = 190
        config.zSign = 0
        config.accelTolerance = .nan
        let problems = config.problems()
        #expect(problems.contains { $0.contains("tablet enter angle") })
        #expect(problems.contains { $0.contains("tablet exit angle") })
        #expect(problems.contains { $0.contains("z sign") })
        #expect(problems.contains { $0.contains("finite") })
    }
}

@Suite("Rotation gate")
struct RotationGateTests {
    @Test(
        "always rotates, never does not, tablet-mode only in tablet mode (unknown does not rotate)",
        arguments: [
            (AutoRotate.always, TabletMode.tablet, true), (.always, .laptop, true), (.always, .unknown, true),
            (.tabletMode, .tablet, true), (.tabletMode, .laptop, false), (.tabletMode, .unknown, false),
            (.never, .tablet, false), (.never, .laptop, false), (.never, .unknown, false),
        ])
    func table(policy: AutoRotate, mode: TabletMode, follows: Bool) {
        #expect(policy.follows(mode) == follows)
    }

    @Test("the config words are always, tablet-mode and never; the modes tablet, laptop, unknown")
    func names() {
        #expect(AutoRotate.allCases.map(\.rawValue) == ["always", "tablet-mode", "never"])
        #expect(TabletMode.allCases.map(\.rawValue) == ["tablet", "laptop", "unknown"])
    }
}
