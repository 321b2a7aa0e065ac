import OrientProtocol

extension Scenarios {
    // MARK: - Demo

    /// About 60 s of realistic handling (noise σ = 0.08 m/s², hand tremor): upright
    /// `normal`; to left-up and back; to right-up and back; put down face-up on a
    /// table for 5 s; picked up into left-up; a jolt; back to portrait and a 10 s
    /// walk; upside down and back; ends in `normal`. Marks every step, and says
    /// in words what the hand does in each (`phases`, which `make run` shows).
    package static func demo(seed: UInt64 = 1) -> Scenario {
        let held = 15.0
        var s = Scenario(start: Pose(theta: 0, phi: held), seed: seed, noiseSigma: 0.08)
        s.summary = "60 s of handling: turns to both landscapes, on a table, picked up, a jolt, a walk, upside down"
        func step(_ name: String, to pose: Pose, over ms: Double, hold: Double, in s: inout Scenario) {
            s.mark(name)
            s.move(to: pose, over: ms)
            s.hold(hold)
        }
        s.phase("held upright")
        s.hold(4000)
        s.phase("turned to left-up")
        step("to-left-up", to: Pose(theta: 90, phi: held), over: 400, hold: 4000, in: &s)
        s.phase("turned back upright")
        step("to-normal-1", to: Pose(theta: 0, phi: held), over: 400, hold: 3500, in: &s)
        s.phase("turned to right-up")
        step("to-right-up", to: Pose(theta: 270, phi: held), over: 400, hold: 4000, in: &s)
        s.phase("turned back upright")
        step("to-normal-2", to: Pose(theta: 0, phi: held), over: 400, hold: 2500, in: &s)
        let handledUntil = s.durationMs
        // Put down face-up (θ drifts a little as the hand lets go), a small landing tap.
        s.mark("put-down")
        s.phase("laid flat on a table")
        s.move(toTheta: 8, phi: 90, over: 700)
        s.addImpulse(at: s.durationMs - 40, duration: 40, peak: Vector3(0, 0, 3))
        s.hold(5000)
        s.mark("pick-up")
        s.phase("picked up into left-up")
        s.move(toTheta: 90, phi: held, over: 600)
        let pickedUp = s.durationMs
        s.hold(3500)
        s.mark("jolt")
        s.phase("a jolt, held in left-up")
        s.addImpulse(at: s.durationMs, duration: 100, peak: Vector3(-1.2 * standardGravity, 0.4 * standardGravity, 0))
        s.hold(2000)
        s.phase("turned back upright")
        step("to-portrait-for-walk", to: Pose(theta: 0, phi: 25), over: 500, hold: 1000, in: &s)
        s.mark("walk-start")
        s.phase("walking with it upright")
        let walkFrom = s.durationMs
        s.hold(10_000)
        addWalk(to: &s, from: walkFrom, to: s.durationMs, tremor: false)  // the hand's tremor is already on
        s.mark("walk-end")
        s.phase("stops, held upright")
        step("walk-settle", to: Pose(theta: 0, phi: held), over: 800, hold: 2000, in: &s)
        s.mark("to-bottom-up")
        s.phase("turned upside down")
        s.move(toTheta: 180, phi: held, over: 500)
        s.hold(3500)
        s.mark("to-normal-3")
        s.phase("turned back upright")
        s.move(toTheta: 360, phi: held, over: 500)
        s.hold(max(60_000 - s.durationMs, 3000))
        // Hand tremor whenever the device is in the hand (not on the table).
        addHandTremor(to: &s, from: 0, to: handledUntil)
        addHandTremor(to: &s, from: pickedUp, to: s.durationMs + 1)
        return s
    }

    // MARK: - Building blocks

    /// Walking with the device in hand: 2 Hz ±0.3 g bounce along world-up, 1 Hz
    /// ±0.1 g lateral sway, and (unless `tremor` is false) the hand's tremor.
    static func addWalk(to s: inout Scenario, from: Double, to: Double, tremor: Bool = true) {
        s.addWorldOscillation(from: from, to: to, frequencyHz: 2, amplitude: 0.3 * standardGravity)
        s.addOscillation(from: from, to: to, frequencyHz: 1, amplitude: Vector3(0.1 * standardGravity, 0, 0))
        if tremor { addHandTremor(to: &s, from: from, to: to) }
    }

    /// A hand's physiological tremor (±0.6° at 9 Hz) over a slow sway (±1.5° at
    /// 0.3 Hz on θ, ±1° on φ).
    static func addHandTremor(to s: inout Scenario, from: Double, to: Double) {
        s.addTremor(from: from, to: to, degrees: 0.6, frequencyHz: 9, phiDegrees: 0.4)
        s.addTremor(from: from, to: to, degrees: 1.5, frequencyHz: 0.3, phiDegrees: 1)
    }
}
