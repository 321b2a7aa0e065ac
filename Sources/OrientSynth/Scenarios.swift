import OrientProtocol

/// The named scenarios of docs/traces.md, Bundled traces, as data: each builds a
/// `Scenario` (trajectory, overlays, marks) and says nothing about the expected
/// events, which the classifier tests check.
///
/// Every scenario that turns the device first holds its start pose for 1.5 s so
/// that a classifier starting in `undefined` commits it before the motion. Marks
/// name the instants the tests measure from (`turn-start`, `turn-end`, …).
///
/// ```swift
/// let samples = Scenarios.brisk90Turn().samples(rateHz: 20)
/// ```
package enum Scenarios {
    /// A device held in the hand leans back a little: φ = 10°.
    package static let handTilt = 10.0
    /// Time held in the start pose before anything happens, ms.
    package static let settleMs = 1500.0

    /// A named scenario for `tracegen` and the bundled traces.
    package struct Entry: Sendable {
        /// File name stem, kebab-case (`brisk90` → `traces/brisk90.trace`).
        package var name: String
        /// Builds the scenario with a seed.
        package var build: @Sendable (UInt64) -> Scenario
    }

    /// Every named scenario, in the order of docs/traces.md, Bundled traces, then `demo`.
    package static let catalog: [Entry] = [
        Entry(name: "cardinal-normal") { cardinal(theta: 0, seed: $0) },
        Entry(name: "cardinal-left-up") { cardinal(theta: 90, seed: $0) },
        Entry(name: "cardinal-bottom-up") { cardinal(theta: 180, seed: $0) },
        Entry(name: "cardinal-right-up") { cardinal(theta: 270, seed: $0) },
        Entry(name: "brisk90") { brisk90Turn(seed: $0) },
        Entry(name: "brisk90-right") { brisk90Turn(toTheta: 270, seed: $0) },
        Entry(name: "slow-turn") { slowTurn(seed: $0) },
        Entry(name: "dwell-on-diagonal") { dwellOnDiagonal(seed: $0) },
        Entry(name: "dwell-near-switch") { dwellOnDiagonal(center: 62, swing: 3, seed: $0) },
        Entry(name: "hysteresis-back") { hysteresisBack(seed: $0) },
        Entry(name: "lying-flat") { lyingFlat(seed: $0) },
        Entry(name: "put-down") { putDown(seed: $0) },
        Entry(name: "pick-up") { pickUp(seed: $0) },
        Entry(name: "tilt-limits") { tiltLimits(seed: $0) },
        Entry(name: "overhead-in-bed") { overheadInBed(seed: $0) },
        Entry(name: "jolt") { jolt(seed: $0) },
        Entry(name: "walking") { walking(seed: $0) },
        Entry(name: "shaking") { shaking(seed: $0) },
        Entry(name: "shaking-then-landscape") { shaking(restTheta: 90, seed: $0) },
        Entry(name: "free-fall") { freeFall(seed: $0) },
        Entry(name: "corrupted-samples") { corruptedSamples(seed: $0) },
        Entry(name: "sensor-gap") { sensorGap(seed: $0) },
        Entry(name: "upside-down") { upsideDown(seed: $0) },
        Entry(name: "end-over-end") { endOverEnd(seed: $0) },
        Entry(name: "car-dock") { carDock(seed: $0) },
        Entry(name: "demo") { demo(seed: $0) },
        Entry(name: "calibration-poses") { calibrationPoses(seed: $0) },
        Entry(name: "call-and-dark-room") { callAndDarkRoom(seed: $0) },
    ]

    /// The catalog entry called `name`, if any.
    package static func named(_ name: String) -> Entry? {
        catalog.first { $0.name == name }
    }

    // MARK: - §6.3 scenarios

    /// #1: held still in one orientation (φ = 10°) for 2 s from startup.
    package static func cardinal(theta: Double, seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: theta, phi: handTilt), seed: seed)
        s.summary = "held still at theta \(Int(theta)), phi 10, for 2 s from startup"
        s.hold(2000)
        return s
    }

    /// #2: `normal`, a brisk 300 ms turn to `toTheta` (left-up by default), hold 2 s.
    /// Marks `turn-start` and `turn-end`.
    package static func brisk90Turn(fromTheta: Double = 0, toTheta: Double = 90, seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: fromTheta, phi: handTilt), seed: seed)
        s.summary = "brisk 300 ms turn from theta \(Int(fromTheta)) to \(Int(toTheta)), then hold 2 s"
        s.hold(settleMs)
        s.mark("turn-start")
        s.move(to: Pose(theta: toTheta, phi: handTilt), over: 300)
        s.mark("turn-end")
        s.hold(2000)
        return s
    }

    /// #3: θ 0 → 90 at 20°/s (linear, 4.5 s) at φ = 20°, noise σ = 0.1 m/s².
    /// Marks `turn-start` and `turn-end`; θ passes 67.5° 3.375 s after the start.
    package static func slowTurn(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: 20), seed: seed, noiseSigma: 0.1)
        s.summary = "slow turn 0 -> 90 at 20 deg/s, phi 20, noise 0.1 m/s2"
        s.hold(settleMs)
        s.mark("turn-start")
        s.move(to: Pose(theta: 90, phi: 20), over: 4500, easing: .linear)
        s.mark("turn-end")
        s.hold(2000)
        return s
    }

    /// #4: from `normal`, dwell 20 s at θ = `center` ± `swing` (1 Hz) plus a
    /// ±2° 8 Hz tremor. Marks `dwell-start` and `dwell-end`.
    package static func dwellOnDiagonal(center: Double = 45, swing: Double = 10, seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: handTilt), seed: seed)
        s.summary = "dwell 20 s at theta \(Int(center)) +- \(Int(swing)) (1 Hz) with a 2 deg 8 Hz tremor"
        s.hold(settleMs)
        s.move(to: Pose(theta: center, phi: handTilt), over: 500)
        s.mark("dwell-start")
        let from = s.durationMs
        s.hold(20_000)
        s.addTremor(from: from, to: s.durationMs, degrees: swing, frequencyHz: 1)
        s.addTremor(from: from, to: s.durationMs, degrees: 2, frequencyHz: 8)
        s.mark("dwell-end")
        return s
    }

    /// #5: commit `left-up` (θ → 80°), back to 40° for 5 s, then to 15°.
    /// Marks `at-80`, `at-40` and `at-15` (each at the end of the move).
    package static func hysteresisBack(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: handTilt), seed: seed)
        s.summary = "to theta 80 (left-up), back to 40 for 5 s, then to 15"
        s.hold(settleMs)
        s.move(to: Pose(theta: 80, phi: handTilt), over: 400)
        s.mark("at-80")
        s.hold(2000)
        s.move(to: Pose(theta: 40, phi: handTilt), over: 400)
        s.mark("at-40")
        s.hold(5000)
        s.move(to: Pose(theta: 15, phi: handTilt), over: 400)
        s.mark("at-15")
        s.hold(2500)
        return s
    }

    /// #6: commit `left-up`, tilt to φ = 88° over 1 s, lie there 60 s with
    /// σ = 0.3 m/s² extra x/y noise (θ effectively random). Marks `flat`.
    package static func lyingFlat(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 90, phi: handTilt), seed: seed)
        s.summary = "left-up, then lying flat (phi 88) for 60 s with 0.3 m/s2 x/y noise"
        s.hold(settleMs)
        s.move(to: Pose(theta: 90, phi: 88), over: 1000)
        s.mark("flat")
        let from = s.durationMs
        s.hold(60_000)
        s.setNoise(sigma: Vector3(0.3, 0.3, 0), from: from, to: s.durationMs + 1)
        return s
    }

    /// #7: in `left-up` at φ = 20°, put down over 400 ms: φ → 85° while θ drifts
    /// 90 → 10; then rest 3 s. Marks `put-down-start` and `put-down-end`.
    package static func putDown(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 90, phi: 20), seed: seed)
        s.summary = "left-up at phi 20, put down over 400 ms (phi -> 85, theta drifts 90 -> 10), rest"
        s.hold(settleMs)
        s.mark("put-down-start")
        s.move(toTheta: 10, phi: 85, over: 400)
        s.mark("put-down-end")
        s.hold(3000)
        return s
    }

    /// #8: upright `normal` 1 s, flat on a table 3 s, lifted over 400 ms into
    /// `left-up` at φ = 15°, hold. Marks `flat`, `lift-start`, `lift-end`.
    package static func pickUp(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: handTilt), seed: seed)
        s.summary = "normal 1 s, flat on a table 3 s, lifted over 400 ms into left-up at phi 15"
        s.hold(1000)
        s.move(to: Pose(theta: 0, phi: 90), over: 500)
        s.mark("flat")
        s.hold(3000)
        s.mark("lift-start")
        s.move(to: Pose(theta: 90, phi: 15), over: 400)
        s.mark("lift-end")
        s.hold(2500)
        return s
    }

    /// #9: `normal` at φ = 72° turned to θ = 90 (beyond left-up's tilt limit), then
    /// `left-up` at φ = 40° committed, leant back to 68° and turned to θ = 0.
    /// Marks `turn-at-72`, `turn-at-68` (turn starts).
    package static func tiltLimits(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: handTilt), seed: seed)
        s.summary = "turn to left-up at phi 72 (beyond its limit), then back to normal at phi 68"
        s.hold(settleMs)
        s.move(to: Pose(theta: 0, phi: 72), over: 1000)
        s.hold(1000)
        s.mark("turn-at-72")
        s.move(to: Pose(theta: 90, phi: 72), over: 400)
        s.hold(5000)
        s.move(to: Pose(theta: 90, phi: 40), over: 1000)
        s.hold(2000)
        s.move(to: Pose(theta: 90, phi: 68), over: 1000)
        s.hold(1000)
        s.mark("turn-at-68")
        s.move(to: Pose(theta: 0, phi: 68), over: 400)
        s.hold(3000)
        return s
    }

    /// #10: `normal`, lie back to φ = −50° (screen facing down), turn to θ = 90,
    /// hold 5 s, then raise slowly to φ = −10°. Marks `turn-start`, `raise-start`,
    /// `raise-end` and `exit-latch` (φ crosses −15°).
    package static func overheadInBed(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: handTilt), seed: seed)
        s.summary = "overhead in bed: phi -50, turn to theta 90 and hold 5 s, then raise to phi -10"
        s.hold(settleMs)
        s.move(to: Pose(theta: 0, phi: -50), over: 1500)
        s.hold(1000)
        s.mark("turn-start")
        s.move(to: Pose(theta: 90, phi: -50), over: 400)
        s.hold(5000)
        s.mark("raise-start")
        let raiseStart = s.durationMs
        s.move(to: Pose(theta: 90, phi: -10), over: 2000, easing: .linear)
        s.mark("exit-latch", at: raiseStart + 2000 * 35 / 40)
        s.mark("raise-end")
        s.hold(3000)
        return s
    }

    /// #11: upright `normal`; a 2 g lateral (x) half-sine jolt of 100 ms, later a
    /// 3 g one of 150 ms. Marks `jolt-1` and `jolt-2` (their starts).
    package static func jolt(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: handTilt), seed: seed)
        s.summary = "normal; lateral jolts of 2 g for 100 ms and 3 g for 150 ms"
        s.hold(5000)
        s.addImpulse(at: 1500, duration: 100, peak: Vector3(2 * standardGravity, 0, 0))
        s.mark("jolt-1", at: 1500)
        s.addImpulse(at: 3000, duration: 150, peak: Vector3(3 * standardGravity, 0, 0))
        s.mark("jolt-2", at: 3000)
        return s
    }

    /// #12: portrait at φ = 30° for 60 s, walking from 1 s on: 2 Hz ±0.3 g bounce
    /// along world-up, 1 Hz ±0.1 g lateral sway, hand tremor. Marks `walk-start`.
    package static func walking(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: 30), seed: seed, noiseSigma: 0.08)
        s.summary = "portrait at phi 30 for 60 s, walking: 2 Hz 0.3 g bounce, 1 Hz 0.1 g sway, tremor"
        s.hold(60_000)
        s.mark("walk-start", at: 1000)
        addWalk(to: &s, from: 1000, to: 60_000)
        return s
    }

    /// #13: upright portrait, shaken at 5 Hz ±1.5 g along x for 3 s, then rest at
    /// θ = `restTheta` (0: portrait; 90: the shake ends in landscape). Marks
    /// `shake-start` and `shake-end`.
    package static func shaking(restTheta: Double = 0, seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: handTilt), seed: seed)
        s.summary = restTheta == 0
            ? "portrait, shaken 3 s at 5 Hz 1.5 g along x, then rest in portrait"
            : "portrait, shaken 3 s at 5 Hz 1.5 g along x while turning to theta \(Int(restTheta)), then rest there"
        s.hold(settleMs)
        s.mark("shake-start")
        let from = s.durationMs
        if restTheta == 0 {
            s.hold(3000)
        } else {
            s.hold(1000)
            s.move(to: Pose(theta: restTheta, phi: handTilt), over: 1000)
            s.hold(1000)
        }
        s.addOscillation(from: from, to: from + 3000, frequencyHz: 5, amplitude: Vector3(1.5 * standardGravity, 0, 0))
        s.mark("shake-end")
        s.hold(3000)
        return s
    }

    /// #14: portrait; free fall (|a| ≈ 0.3 m/s²) for 300 ms, a 5 g landing spike
    /// of 30 ms, then rest. Marks `fall-start` and `landing`.
    package static func freeFall(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: handTilt), seed: seed)
        s.summary = "portrait; free fall for 300 ms, a 5 g landing spike of 30 ms, then rest"
        s.hold(4500)
        s.freeFall(from: 1500, to: 1800)
        s.mark("fall-start", at: 1500)
        // The landing pushes along the reading's own direction: |a| peaks near 5 g.
        let down = Pose(theta: 0, phi: handTilt).gravityDirection
        s.addImpulse(at: 1800, duration: 30, peak: down * (4 * standardGravity))
        s.mark("landing", at: 1800)
        return s
    }

    /// #15: a steady portrait stream with three corrupted samples inserted between
    /// regular ones: the iio-sensor-proxy #220 garbage (203.7, 266.8, 0), a zero
    /// vector and a NaN. Marks `spike`, `zero` and `nan`.
    package static func corruptedSamples(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: handTilt), seed: seed)
        s.summary = "portrait with inserted garbage (203.7, 266.8, 0), a zero vector and a NaN"
        s.hold(4000)
        s.insert(Vector3(203.7, 266.8, 0), at: 1525)
        s.mark("spike", at: 1525)
        s.insert(.zero, at: 2025)
        s.mark("zero", at: 2025)
        s.insert(Vector3(.nan, .nan, .nan), at: 2525)
        s.mark("nan", at: 2525)
        return s
    }

    /// #16: portrait, then no samples for 2 s (suspend) while the device is turned,
    /// then samples in `left-up`. Marks `gap-start` and `resume`.
    package static func sensorGap(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: handTilt), seed: seed)
        s.summary = "portrait, a 2 s gap (suspend) while turned, then left-up"
        s.hold(2000)
        s.mark("gap-start")
        s.move(to: Pose(theta: 90, phi: handTilt), over: 1000)
        s.hold(1000)
        s.gap(from: 2000, to: s.durationMs)
        s.mark("resume")
        s.hold(3000)
        return s
    }

    /// #18: `normal`, turned θ 0 → 180 through 90 over 400 ms at φ = 10°, hold.
    /// Marks `turn-start` and `turn-end`.
    package static func upsideDown(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: handTilt), seed: seed)
        s.summary = "normal, turned 0 -> 180 through 90 over 400 ms, hold upside down"
        s.hold(settleMs)
        s.mark("turn-start")
        s.move(toTheta: 180, phi: handTilt, over: 400)
        s.mark("turn-end")
        s.hold(2500)
        return s
    }

    /// #19: from upright `normal`, tipped end over end about the x axis in 600 ms:
    /// the top edge goes back through face-up and ends pointing down, so the
    /// reading goes (0, −g, 0) → (0, 0, g) → (0, g, 0). Marks `tip-start`, `tip-end`.
    package static func endOverEnd(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: 0), seed: seed)
        s.summary = "normal, tipped end over end through face-up in 600 ms, ends bottom-up"
        s.hold(settleMs)
        s.mark("tip-start")
        s.move(toTheta: 0, phi: 90, over: 300, easing: .linear)
        s.move(toTheta: 180, phi: 90, over: 0)  // at face-up θ is immaterial: a continuous path
        s.move(toTheta: 180, phi: 0, over: 300, easing: .linear)
        s.mark("tip-end")
        s.hold(2500)
        return s
    }

    /// #20: landscape in a car dock (φ = 20°), 15 Hz ±0.5 g vibration on all axes
    /// for 30 s. Marks `vibration-start`.
    package static func carDock(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 90, phi: 20), seed: seed)
        s.summary = "landscape in a car dock, 15 Hz 0.5 g vibration on all axes for 30 s"
        s.hold(settleMs)
        s.mark("vibration-start")
        let from = s.durationMs
        s.hold(30_000)
        let a = 0.5 * standardGravity
        s.addOscillation(from: from, to: s.durationMs, frequencyHz: 15, amplitude: Vector3(a, 0, 0))
        s.addOscillation(from: from, to: s.durationMs, frequencyHz: 15, amplitude: Vector3(0, a, 0), phase: 2.1)
        s.addOscillation(from: from, to: s.durationMs, frequencyHz: 15, amplitude: Vector3(0, 0, a), phase: 4.2)
        return s
    }
}
