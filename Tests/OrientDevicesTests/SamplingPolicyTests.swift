import Foundation
import Testing

@testable import OrientDevices
import OrientProtocol
import OrientSynth

/// Upright, normal: (0, −g, 0) in the panel frame.
private let upright = Vector3(0, -9.80665, 0)

/// `upright` turned by `degrees` about z (towards left-up).
private func turned(_ degrees: Double, magnitude: Double = 9.80665) -> Vector3 {
    let a = degrees * .pi / 180
    return Vector3(magnitude * sin(a), -magnitude * cos(a), 0)
}

/// A policy as the daemon builds it for a 20 Hz sensor (cap: half the default
/// max-sample-gap), with the default thresholds and a 250 ms still interval.
private func defaultPolicy(_ change: (inout SamplingPolicy.Settings) -> Void = { _ in }) -> SamplingPolicy {
    var settings = SamplingPolicy.Settings()
    settings.stillIntervalMs = 250
    settings.stillAfterMs = 1000
    change(&settings)
    return SamplingPolicy(settings, fastIntervalMs: 50, longestIntervalMs: 500)
}

/// Feeds `readings` (time, vector, settling) and returns the interval after each.
private func intervals(_ policy: inout SamplingPolicy, _ readings: [(Double, Vector3, Bool)]) -> [Double] {
    readings.map { t, v, settling in policy.interval(after: v, atMs: t, settling: settling) }
}

@Suite("Sampling policy")
struct SamplingPolicyTests {
    @Test("the defaults: 400 ms while still, 2000 ms of full rate after motion, 2°, 0.5 m/s²")
    func defaults() {
        let settings = SamplingPolicy.Settings()
        #expect(settings.stillIntervalMs == 400)
        #expect(settings.stillAfterMs == 2000)
        #expect(settings.motionAngleDeg == 2)
        #expect(settings.motionMagnitude == 0.5)
        let policy = SamplingPolicy(settings, fastIntervalMs: 50, longestIntervalMs: 500)
        #expect(policy.fastIntervalMs == 50)
        #expect(policy.stillIntervalMs == 400)
    }

    @Test("a session starts at the full rate and slows down once the device has rested for still-after")
    func startsFastThenSlows() {
        var policy = defaultPolicy()
        policy.start(atMs: 1000)
        var t = 1000.0
        var seen: [(Double, Double)] = []
        while t < 4000 {
            let interval = policy.interval(after: upright, atMs: t, settling: false)
            seen.append((t, interval))
            t += interval
        }
        // Full rate for the first second (from the start; the first reading is only the reference).
        #expect(seen.filter { $0.0 < 2000 }.allSatisfy { $0.1 == 50 })
        #expect(seen.filter { $0.0 >= 2000 }.allSatisfy { $0.1 == 250 })
        // 20 readings in the first second, then 4 a second.
        #expect(seen.filter { $0.0 < 2000 }.count == 20)
        #expect(seen.filter { $0.0 >= 3000 && $0.0 < 4000 }.count == 4)
    }

    @Test("a turn seen while still brings back the full rate at once, for still-after after the last motion")
    func motionBringsBackFullRate() {
        var policy = defaultPolicy()
        policy.start(atMs: 0)
        _ = intervals(&policy, [(0, upright, false), (1000, upright, false)])
        #expect(policy.interval(after: upright, atMs: 1250, settling: false) == 250)
        // The turn: 30° then 90°, then rest at 90°.
        #expect(policy.interval(after: turned(30), atMs: 1500, settling: false) == 50)
        #expect(policy.interval(after: turned(90), atMs: 1550, settling: false) == 50)
        #expect(policy.interval(after: turned(90), atMs: 2500, settling: false) == 50, "950 ms after the last motion")
        #expect(policy.interval(after: turned(90), atMs: 2550, settling: false) == 250)
    }

    @Test(
        "motion is an angle or a magnitude change beyond the thresholds, measured from the last moving reading",
        arguments: [
            (turned(1.5), false), (turned(2.5), true), (turned(-2.5), true), (turned(0, magnitude: 10.2), false),
            (turned(0, magnitude: 10.4), true), (turned(0, magnitude: 9.2), true), (Vector3(0, 9.80665, 0), true),
            (Vector3(0, -9.5, 2.5), true),
        ])
    func motionThresholds(reading: Vector3, isMotion: Bool) {
        var policy = defaultPolicy()
        policy.start(atMs: 0)
        _ = policy.interval(after: upright, atMs: 0, settling: false)
        let interval = policy.interval(after: reading, atMs: 5000, settling: false)
        #expect(interval == (isMotion ? 50 : 250))
    }

    @Test("a slow drift below the angle per reading still counts once it adds up")
    func slowDriftAddsUp() {
        var policy = defaultPolicy()
        policy.start(atMs: 0)
        _ = policy.interval(after: upright, atMs: 0, settling: false)
        // 0.8° per 250 ms reading: the third reading is 2.4° from the reference.
        #expect(policy.interval(after: turned(0.8), atMs: 5000, settling: false) == 250)
        #expect(policy.interval(after: turned(1.6), atMs: 5250, settling: false) == 250)
        #expect(policy.interval(after: turned(2.4), atMs: 5500, settling: false) == 50)
    }

    @Test("sensor noise well under the thresholds keeps the still interval")
    func noiseStaysStill() {
        var policy = defaultPolicy()
        policy.start(atMs: 0)
        var generator = GaussianNoise(seed: 7)
        var t = 0.0
        var slow = 0
        for _ in 0..<400 {
            let noise = generator.nextVector() * 0.05
            let interval = policy.interval(after: upright + noise, atMs: t, settling: false)
            if t > 1000 { #expect(interval == 250) }
            if interval == 250 { slow += 1 }
            t += interval
        }
        #expect(slow == 380, "20 readings in the first second, then only still intervals")
    }

    @Test("while the consumer is settling the rate stays full, and still-after counts from its last settling reading")
    func settlingKeepsFullRate() {
        var policy = defaultPolicy()
        policy.start(atMs: 0)
        _ = intervals(&policy, [(0, upright, false)])
        #expect(policy.interval(after: upright, atMs: 3000, settling: true) == 50)
        #expect(policy.interval(after: upright, atMs: 3900, settling: false) == 50)
        #expect(policy.interval(after: upright, atMs: 4000, settling: false) == 250)
    }

    @Test("a failed read keeps the current rate without counting as motion")
    func failedReadKeepsRate() {
        var policy = defaultPolicy()
        policy.start(atMs: 0)
        #expect(policy.interval(atMs: 500) == 50)
        #expect(policy.interval(atMs: 1000) == 250)
        _ = policy.interval(after: upright, atMs: 1000, settling: false)
        #expect(policy.interval(atMs: 1250) == 250)
    }

    @Test("non-finite readings are not motion and do not move the reference")
    func nonFiniteIgnored() {
        var policy = defaultPolicy()
        policy.start(atMs: 0)
        _ = policy.interval(after: upright, atMs: 0, settling: false)
        #expect(policy.interval(after: Vector3(.nan, 0, 0), atMs: 2000, settling: false) == 250)
        #expect(policy.interval(after: Vector3(.infinity, 0, 0), atMs: 2250, settling: false) == 250)
        #expect(policy.interval(after: turned(1), atMs: 2500, settling: false) == 250)
    }

    @Test("a zero vector is motion by its magnitude; two zero vectors are not")
    func zeroVector() {
        var policy = defaultPolicy()
        policy.start(atMs: 0)
        _ = policy.interval(after: upright, atMs: 0, settling: false)
        #expect(policy.interval(after: .zero, atMs: 2000, settling: false) == 50)
        #expect(policy.interval(after: .zero, atMs: 3500, settling: false) == 250)
    }

    @Test(
        "the still interval is never shorter than the sensor's period nor longer than the cap",
        arguments: [(250.0, 50.0, 500.0, 250.0), (0, 50, 500, 50), (30, 50, 500, 50), (1000, 50, 500, 500), (250, 100, 1000, 250)])
    func stillIntervalBounds(still: Double, fast: Double, cap: Double, expected: Double) {
        var settings = SamplingPolicy.Settings()
        settings.stillIntervalMs = still
        let policy = SamplingPolicy(settings, fastIntervalMs: fast, longestIntervalMs: cap)
        #expect(policy.stillIntervalMs == expected)
        #expect(policy.interval(atMs: 1e9) == expected)
    }

    @Test("still-after 0 slows down after the first resting reading")
    func stillAfterZero() {
        var policy = defaultPolicy { $0.stillAfterMs = 0 }
        policy.start(atMs: 0)
        #expect(policy.interval(after: upright, atMs: 0, settling: false) == 250)
        #expect(policy.interval(after: turned(45), atMs: 250, settling: false) == 250)
    }

    @Test("differs compares by angle and by magnitude, with the configured thresholds")
    func differs() {
        let policy = defaultPolicy { $0.motionAngleDeg = 10; $0.motionMagnitude = 1 }
        #expect(!policy.differs(upright, turned(9)))
        #expect(policy.differs(upright, turned(11)))
        #expect(!policy.differs(upright, turned(0, magnitude: 10.7)))
        #expect(policy.differs(upright, turned(0, magnitude: 10.9)))
        #expect(policy.differs(upright, -upright))
        #expect(!policy.differs(.zero, .zero))
    }

    @Test(
        "a brisk 300 ms turn sampled from rest is caught within one still interval of its start, whatever the phase",
        arguments: [250.0, 400])
    func briskTurnCaught(still: Double) {
        // Raised-cosine 0° → 90° over 300 ms, starting at every phase of the still interval.
        for phase in stride(from: 0.0, to: still, by: 5) {
            var policy = defaultPolicy { $0.stillIntervalMs = still }
            policy.start(atMs: 0)
            var t = 0.0
            let turnStart = 3000 + phase
            var caughtAt: Double?
            while t < turnStart + 600 {
                let s = min(max((t - turnStart) / 300, 0), 1)
                let angle = 90 * (1 - cos(.pi * s)) / 2
                let interval = policy.interval(after: turned(angle), atMs: t, settling: false)
                if caughtAt == nil, t >= turnStart, interval == 50 { caughtAt = t }
                t += interval
            }
            // Within the turn when the still interval is shorter than it (less the
            // first 2°, about 28 ms); otherwise at the first reading after it.
            let bound = still < 300 ? 300 : still + 28
            #expect(caughtAt.map { $0 - turnStart <= bound } == true, "phase \(phase): caught at \(String(describing: caughtAt))")
        }
    }
}
