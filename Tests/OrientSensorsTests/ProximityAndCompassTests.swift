import TestSupport
import Testing

@testable import OrientSensors

@Suite("Proximity threshold")
struct ProximityThresholdTests {
    /// The decisions for `levels`, one per reading, from far.
    func decisions(_ levels: [Double], nearLevel: Double = 100) -> [Bool] {
        var threshold = ProximityThreshold(nearLevel: nearLevel)
        return levels.map { threshold.update(raw: $0) }
    }

    @Test("near at or above the near level; far again only below it minus the band")
    func hysteresis() {
        #expect(decisions([0, 99, 100, 95, 90, 89.9, 95, 99.9, 100]) == [false, false, true, true, true, false, false, false, true])
    }

    @Test("a level sitting on the near level does not flap")
    func noFlappingAtTheLevel() {
        #expect(decisions(Array(repeating: 100, count: 20)) == Array(repeating: true, count: 20))
        let jitter = (0..<40).map { 100 + ($0 % 2 == 0 ? 0.001 : -0.001) }
        #expect(Set(decisions(jitter).dropFirst()).count == 1)
    }

    @Test("a level wandering within ±5 % of the near level changes its decision once at most", arguments: [100.0, 7.0, 2500.0])
    func noFlappingWithinFivePercent(nearLevel: Double) {
        // A triangle wave from L − 5 % to L + 5 % and back, ten times.
        let wandering = (0..<200).map { n -> Double in
            let phase = Double(n % 20) / 10
            return nearLevel * (0.95 + 0.1 * (phase <= 1 ? phase : 2 - phase))
        }
        let made = decisions(wandering, nearLevel: nearLevel)
        let changes = zip(made, made.dropFirst()).filter { $0 != $1 }.count
        #expect(changes <= 1)
        #expect(made.last == true)
    }

    @Test("a reading that is not finite keeps the decision")
    func nonFinite() {
        #expect(decisions([150, .nan, .infinity, -.infinity]) == [true, true, true, true])
    }

    @Test("the band is clamped to [0, 0.9], also when set directly")
    func bandClamped() {
        #expect(abs(ProximityThreshold(nearLevel: 100, band: 5).farBelow - 10) < 1e-9)
        #expect(ProximityThreshold(nearLevel: 100, band: -1).farBelow == 100)
        var threshold = ProximityThreshold(nearLevel: 100)
        threshold.band = .nan
        #expect(threshold.farBelow == 90)
    }

    @Test("near levels parse as finite numbers above 0; others are errors naming their source", arguments: [
        "", "0", "-5", "abc", "nan", "1e999", String(repeating: "1", count: 1000), "5 5",
    ])
    func badNearLevels(text: String) {
        let error = thrownError(AttributeError.self) { try ProximityThreshold.nearLevel(text, from: "PROXIMITY_NEAR_LEVEL") }
        #expect(error?.attribute == "PROXIMITY_NEAR_LEVEL")
    }

    @Test("a near level from udev or sysfs")
    func goodNearLevel() throws {
        #expect(try ProximityThreshold.nearLevel("100\n", from: "in_proximity_nearlevel") == 100)
        #expect(try ProximityThreshold.nearLevel(" 2.5 ", from: "PROXIMITY_NEAR_LEVEL") == 2.5)
    }
}

@Suite("Compass heading")
struct CompassHeadingTests {
    @Test("headings wrap into [0, 360)", arguments: [
        (0.0, 1.0, 0.0, 0.0), (90, 1, 0, 90), (360, 1, 0, 0), (720.5, 1, 0, 0.5), (-90, 1, 0, 270), (-360, 1, 0, 0),
        (-0.0, 1, 0, 0), (3599, 0.1, 0, 359.9), (10, 1, 355, 5), (-1e-15, 1, 0, 0),
    ])
    func wraps(raw: Double, scale: Double, offset: Double, expected: Double) throws {
        let heading = try #require(CompassHeading.degrees(raw: raw, scale: scale, offset: offset))
        #expect(heading >= 0 && heading < 360)
        #expect(heading.sign == .plus)
        #expect(abs(heading - expected) < 1e-9)
    }

    @Test("values that are not finite, or a scale not above 0, give no heading")
    func noHeading() {
        #expect(CompassHeading.degrees(raw: .nan, scale: 1, offset: 0) == nil)
        #expect(CompassHeading.degrees(raw: 1e308, scale: 10, offset: 0) == nil)
        #expect(CompassHeading.degrees(raw: 10, scale: 0, offset: 0) == nil)
        #expect(CompassHeading.degrees(raw: 10, scale: -1, offset: 0) == nil)
        #expect(CompassHeading.unknown == -1)
    }
}
