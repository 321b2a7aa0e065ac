import OrientSynth
import Testing

import OrientProtocol

/// docs/classifier.md: the same trajectory sampled at 5, 10, 12.5, 20 and 100 Hz gives the same events,
/// with commit times that agree within one sample period plus 20 ms (plus the
/// steady path's need for a second reading at low rates). 10 and 12.5 Hz are
/// what a Qualcomm phone's Sensor Core sends (libssc's mock, and the firmware
/// of some phones), at which the firmware, not orientd, sets the rate.
@Suite("Sample-rate independence")
struct SampleRateIndependenceTests {
    /// Scenarios without vibration above 2.5 Hz (the 5 Hz Nyquist limit): a real
    /// sensor's anti-aliasing filter removes those, a synthetic one cannot.
    static let scenarios = Scenarios.catalog.map(\.name).filter {
        !["shaking", "shaking-then-landscape", "car-dock", "jolt", "free-fall"].contains($0)
    }

    @Test("the same trajectory at 5, 10, 12.5, 20 and 100 Hz gives the same events", arguments: scenarios)
    func sameEvents(name: String) throws {
        let scenario = try #require(Scenarios.named(name)).build(1)
        let reference = drive(scenario, rateHz: 20)
        for rate in [5.0, 10, 12.5, 100] {
            let run = drive(scenario, rateHz: rate)
            #expect(run.orientations == reference.orientations, "\(name) at \(rate) Hz: \(run.changes) vs \(reference.changes)")
            guard run.orientations == reference.orientations else { continue }
            let allowance = 1000 / min(rate, 20) + 20 + (rate < 20 ? 1000 / rate : 0)
            for (a, b) in zip(run.changes, reference.changes) {
                #expect(abs(a.tMs - b.tMs) <= allowance, "\(name) at \(rate) Hz: \(a) vs \(b)")
            }
        }
    }

    @Test("jolts, shaking and vibration give no event at 12.5, 20 and 100 Hz", arguments: ["jolt", "free-fall", "shaking", "car-dock"])
    func disturbances(name: String) throws {
        let scenario = try #require(Scenarios.named(name)).build(1)
        for rate in [12.5, 20, 100] {
            #expect(drive(scenario, rateHz: rate).laterChanges.isEmpty, "\(name) at \(rate) Hz")
        }
    }
}
