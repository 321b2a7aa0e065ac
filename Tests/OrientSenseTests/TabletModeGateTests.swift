import OrientSynth
import Testing

@testable import OrientSense
import OrientProtocol

/// Tablet mode and `[daemon] auto-rotate` in the engine (docs/behaviour.md,
/// Tablet mode): outside tablet mode the effective orientation stays natural,
/// the physical one is still reported, and folding rotates at once.
@Suite("Tablet mode gate")
struct TabletModeGateTests {
    /// An engine that has turned to left-up (a brisk 90° turn, replayed whole).
    static func engineAtLeftUp(policy: AutoRotate, mode: TabletMode) -> (engine: OrientationEngine, states: [StateMessage]) {
        var engine = OrientationEngine(sensor: .active)
        _ = engine.setAutoRotate(policy, atMs: 0)
        _ = engine.setTabletMode(mode, atMs: 0)
        let states = OrientationEngineTests.publish(Scenarios.brisk90Turn().samples(rateHz: 20), to: &engine)
        return (engine, states)
    }

    @Test("the policy table: always follows, never does not, tablet-mode only in tablet mode")
    func policyTable() {
        for mode in TabletMode.allCases {
            #expect(AutoRotate.always.follows(mode))
            #expect(!AutoRotate.never.follows(mode))
            #expect(AutoRotate.tabletMode.follows(mode) == (mode == .tablet), "\(mode)")
        }
    }

    @Test("laptop mode under tablet-mode: physical left-up, orientation normal; the state carries both")
    func laptopHoldsNatural() throws {
        let (engine, states) = TabletModeGateTests.engineAtLeftUp(policy: .tabletMode, mode: .laptop)
        #expect(engine.state.physical == .leftUp)
        #expect(engine.state.orientation == .normal)
        #expect(engine.state.rotation == 0)
        #expect(states.allSatisfy { $0.orientation == .normal })
        #expect(engine.state.tabletMode == .laptop && engine.state.autoRotate == .tabletMode)
        #expect(engine.state.json().contains("\"tablet_mode\":\"laptop\",\"auto_rotate\":\"tablet-mode\""))
    }

    @Test("folding into a tablet rotates in the very next state, with no hold")
    func foldingRotatesAtOnce() throws {
        var (engine, _) = TabletModeGateTests.engineAtLeftUp(policy: .tabletMode, mode: .laptop)
        let folded = try OrientationEngineTests.changed(engine.setTabletMode(.tablet, atMs: engine.state.tMs + 1))
        #expect(folded.orientation == .leftUp && folded.rotation == 90 && folded.tabletMode == .tablet)
        let unfolded = try OrientationEngineTests.changed(engine.setTabletMode(.laptop, atMs: folded.tMs + 1))
        #expect(unfolded.orientation == .normal && unfolded.physical == .leftUp)
    }

    @Test("unknown under tablet-mode does not rotate; under always it does")
    func unknownMode() {
        #expect(TabletModeGateTests.engineAtLeftUp(policy: .tabletMode, mode: .unknown).engine.state.orientation == .normal)
        #expect(TabletModeGateTests.engineAtLeftUp(policy: .always, mode: .unknown).engine.state.orientation == .leftUp)
        #expect(TabletModeGateTests.engineAtLeftUp(policy: .always, mode: .laptop).engine.state.orientation == .leftUp)
    }

    @Test("never: natural even in tablet mode, but the lock and the constraints still apply")
    func neverKeepsLockAndConstraints() throws {
        var (engine, _) = TabletModeGateTests.engineAtLeftUp(policy: .never, mode: .tablet)
        #expect(engine.state.orientation == .normal)
        let locked = try OrientationEngineTests.changed(engine.setLock(.rightUp, atMs: engine.state.tMs + 1))
        #expect(locked.orientation == .rightUp)
        _ = engine.setLock(nil, atMs: locked.tMs + 1)
        let constrained = try OrientationEngineTests.changed(
            engine.setConstraints([[.leftUp, .rightUp]], atMs: locked.tMs + 2))
        // Natural is not allowed: the allowed orientation nearest to natural, not to physical.
        #expect(constrained.orientation == .leftUp && constrained.physical == .leftUp)
    }

    @Test("a state line without the fields (an older daemon) reads as unknown and always")
    func olderStateLine() throws {
        let head = #"{"type":"state","orientation":"normal","physical":"left-up","tilt":"vertical","rotation":0,"layout":"portrait","axis":"vertical","allowed":["normal"],"locked":null,"sensor":"active","#
        let state = try StateMessage(jsonLine: Array((head + #""t_ms":5}"#).utf8))
        #expect(state.tabletMode == .unknown && state.autoRotate == .always)
        let round = try StateMessage(jsonLine: Array(TabletModeGateTests.engineAtLeftUp(policy: .tabletMode, mode: .laptop).engine.state.json().utf8))
        #expect(round.tabletMode == .laptop && round.autoRotate == .tabletMode)
        #expect(throws: ProtocolDecodeError.self) {
            try StateMessage(jsonLine: Array((head + #""tablet_mode":"folded","t_ms":5}"#).utf8))
        }
    }
}
