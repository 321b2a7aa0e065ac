#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol

extension Scenarios {
    // MARK: - Light and proximity

    /// A phone call, then a room going dark: held upright in a 300 lux room;
    /// raised to the ear (the proximity sensor reads near) for 4 s; lowered
    /// (far again); then the light falls from 300 to 5 lux over 3 s, as when
    /// the lights go out, and stays dark. Readings come when they change, the
    /// light every 250 ms while it falls. Marks every step.
    package static func callAndDarkRoom(seed: UInt64 = 1) -> Scenario {
        let held = 15.0
        var s = Scenario(start: Pose(theta: 0, phi: held), seed: seed)
        s.summary = "a phone call (held to the ear: proximity near, then far), then the room goes dark (300 to 5 lux)"
        s.light(300, at: 0)
        s.proximity(near: false, at: 0)
        s.hold(2000)
        s.mark("to-ear")
        s.move(to: Pose(theta: 10, phi: 0), over: 600)
        s.mark("near", at: s.durationMs - 100)
        s.proximity(near: true, at: s.durationMs - 100)
        s.hold(4000)
        s.mark("from-ear")
        s.move(to: Pose(theta: 0, phi: held), over: 600)
        s.mark("far", at: s.durationMs - 400)
        s.proximity(near: false, at: s.durationMs - 400)
        s.hold(1400)
        s.mark("lights-out")
        let start = s.durationMs
        // Exponential fall, 300 → 5 lux in 12 steps of 250 ms, to 0.1 lux.
        for step in 1...12 {
            let lux = 300 * pow(5.0 / 300, Double(step) / 12)
            s.light((lux * 10).rounded() / 10, at: start + Double(step) * 250)
        }
        s.mark("dark", at: start + 3000)
        s.hold(5000)
        return s
    }
}
