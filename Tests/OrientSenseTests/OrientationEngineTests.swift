import OrientSynth
import Testing

@testable import OrientSense
import OrientProtocol

/// The pure pipeline: mount matrix → classifier → arbiter → published state
/// (docs/behaviour.md, docs/protocol.md), driven the way the daemon drives it.
@Suite("Orientation engine")
struct OrientationEngineTests {
    /// A mount matrix that swaps x and y and flips both (a reflection, orthonormal).
    static let swappedMatrixText = "0, -1, 0; -1, 0, 0; 0, 0, 1"

    /// Feeds sensor-frame readings to `engine` as the daemon does: a tick at each
    /// deadline that falls before the next reading (and after the last), and every
    /// reading in time order. Returns every state the engine published.
    static func publish(_ samples: [Sample], to engine: inout OrientationEngine) -> [StateMessage] {
        var e = engine
        var published: [StateMessage] = []
        var lastTick = -Double.infinity
        func ticks(before limit: Double?) {
            while let d = e.nextDeadline, d > lastTick, limit.map({ d < $0 }) ?? true {
                lastTick = d
                if let state = e.tick(atMs: d) { published.append(state) }
            }
        }
        for sample in samples {
            ticks(before: sample.tMs)
            if let state = e.process(sample) { published.append(state) }
        }
        ticks(before: nil)
        engine = e
        return published
    }

    /// The state a call returned, failing the test if it returned nil (nothing changed).
    static func changed(_ state: StateMessage?, sourceLocation: SourceLocation = #_sourceLocation) throws -> StateMessage {
        try #require(state, "expected a new state", sourceLocation: sourceLocation)
    }

    /// The values in order with consecutive repeats removed.
    static func collapsed<T: Equatable>(_ values: [T]) -> [T] {
        var out: [T] = []
        for value in values where out.last != value { out.append(value) }
        return out
    }

    /// An engine that has classified the device upright in `normal` (the first
    /// 1.5 s of a brisk turn), and the rest of that turn's readings.
    static func engineAtNormal(
        natural: NaturalGeometry = .portrait, defaultAllowed: OrientationMask = .all
    ) -> (engine: OrientationEngine, rest: [Sample]) {
        let scenario = Scenarios.brisk90Turn()
        let samples = scenario.samples(rateHz: 20)
        let turnStart = scenario.markTime("turn-start") ?? Scenarios.settleMs
        var engine = OrientationEngine(natural: natural, defaultAllowed: defaultAllowed, sensor: .active)
        _ = publish(samples.filter { $0.tMs < turnStart }, to: &engine)
        return (engine, samples.filter { $0.tMs >= turnStart })
    }

    /// An engine that has followed a brisk turn from `normal` to `left-up`.
    static func engineAtLeftUp(natural: NaturalGeometry = .portrait, defaultAllowed: OrientationMask = .all) -> OrientationEngine {
        var (engine, rest) = engineAtNormal(natural: natural, defaultAllowed: defaultAllowed)
        _ = publish(rest, to: &engine)
        return engine
    }

    // MARK: Startup

    @Test(
        "the initial state has physical undefined and the first allowed orientation in preference order",
        arguments: [
            (OrientationMask.all, Orientation.normal),
            ([.leftUp, .bottomUp, .rightUp], .leftUp),
            ([.bottomUp, .rightUp], .rightUp),
            (.bottomUp, .bottomUp),
            ([.leftUp, .rightUp], .leftUp),
            ([], .normal),
        ] as [(OrientationMask, Orientation)])
    func initialState(defaultAllowed: OrientationMask, expected: Orientation) {
        let engine = OrientationEngine(defaultAllowed: defaultAllowed, sensor: .idle, tMs: 42)
        let state = engine.state
        #expect(state.physical == .undefined)
        #expect(state.orientation == expected)
        #expect(state.rotation == expected.rotation)
        #expect(state.tilt == .undefined)
        #expect(state.locked == nil)
        #expect(state.sensor == .idle)
        #expect(state.tMs == 42)
        #expect(state.allowed == (defaultAllowed.isEmpty ? .all : defaultAllowed))
        #expect(state.layout == Layout(orientation: expected, natural: .portrait))
        #expect(engine.nextDeadline == nil, "no timer before the first reading")
    }

    @Test("a lock given at startup is the initial orientation when allowed", arguments: Orientation.cardinal)
    func initialLock(lock: Orientation) {
        let engine = OrientationEngine(lock: lock, sensor: .active)
        #expect(engine.state.orientation == lock)
        #expect(engine.state.locked == lock)
        #expect(engine.state.physical == .undefined)
    }

    @Test("an engine started with lock undefined is unlocked")
    func initialUndefinedLock() {
        let engine = OrientationEngine(lock: .undefined, sensor: .active)
        #expect(engine.state.locked == nil)
        #expect(engine.lock == nil)
    
    }

    @Test(
        "a landscape-native panel gives layout and axis accordingly",
        arguments: [
            (NaturalGeometry.landscape, Layout.landscape, Axis.horizontal, Layout.portrait, Axis.vertical),
            (.portrait, .portrait, .vertical, .landscape, .horizontal),
        ])
    func naturalGeometry(natural: NaturalGeometry, normalLayout: Layout, normalAxis: Axis, turnedLayout: Layout, turnedAxis: Axis) {
        let initial = OrientationEngine(natural: natural, sensor: .active).state
        #expect(initial.layout == normalLayout)
        #expect(initial.axis == normalAxis)
        let turned = Self.engineAtLeftUp(natural: natural).state
        #expect(turned.orientation == .leftUp)
        #expect(turned.rotation == 90)
        #expect(turned.layout == turnedLayout)
        #expect(turned.axis == turnedAxis)
    }

    // MARK: Readings through the mount matrix

    @Test("a brisk turn read through a mount matrix publishes the same states as the panel-frame readings")
    func briskTurnThroughMountMatrix() throws {
        let matrix = try MountMatrix(parsing: Self.swappedMatrixText)
        let scenario = Scenarios.brisk90Turn()
        let trace = scenario.trace(rateHz: 20, mountMatrix: matrix)
        let panel = scenario.samples(rateHz: 20)
        #expect(trace.mountMatrix == matrix)
        #expect(trace.samples.count == panel.count)
        #expect(trace.samples.map(\.tMs) == panel.map(\.tMs))
        #expect(trace.samples.map(\.vector) != panel.map(\.vector), "the sensor frame differs from the panel frame")

        var mounted = OrientationEngine(mountMatrix: matrix, sensor: .mock)
        var plain = OrientationEngine(sensor: .mock)
        let viaMatrix = Self.publish(trace.samples, to: &mounted)
        let direct = Self.publish(panel, to: &plain)

        #expect(viaMatrix == direct)
        #expect(mounted.state == plain.state)
        let initial = OrientationEngine(sensor: .mock).state
        #expect(Self.collapsed(([initial] + viaMatrix).map(\.physical)) == [.undefined, .normal, .leftUp])
        #expect(Self.collapsed(([initial] + viaMatrix).map(\.orientation)) == [.normal, .leftUp])
        let last = try #require(viaMatrix.last)
        #expect(last.orientation == .leftUp)
        #expect(last.rotation == 90)
        #expect(last.layout == .landscape)
        #expect(last.tilt == .vertical)
        #expect(last.sensor == .mock)
        // The turn is published after it happens, not before.
        let turnEnd = try #require(scenario.markTime("turn-end"))
        let firstLeftUp = try #require(viaMatrix.first { $0.physical == .leftUp })
        #expect(firstLeftUp.tMs >= turnEnd - 150 && firstLeftUp.tMs <= turnEnd + 600, "left-up at \(firstLeftUp.tMs)")
    }

    @Test("a run through the identity matrix publishes nothing twice in a row")
    func noDuplicatePublications() {
        var engine = OrientationEngine(sensor: .active)
        let published = Self.publish(Scenarios.brisk90Turn().samples(rateHz: 20), to: &engine)
        #expect(!published.isEmpty)
        for (a, b) in zip(published, published.dropFirst()) {
            #expect(!a.sameContent(as: b), "published twice: \(b.json())")
        }
        #expect(engine.state == published.last)
    }

    // MARK: Constraints

    @Test("constraints change the orientation and the allowed set at once and return the new state")
    func constraintsApplyImmediately() throws {
        var engine = Self.engineAtLeftUp()
        #expect(engine.state.orientation == .leftUp)

        let portrait = OrientationMask.portrait(natural: .portrait)
        let state = try Self.changed(engine.setConstraints([portrait], atMs: 5000))
        #expect(state.orientation == .normal, "left-up is excluded; normal is the one portrait orientation")
        #expect(state.physical == .leftUp)
        #expect(state.allowed == [.normal])
        #expect(state.rotation == 0)
        #expect(state.layout == .portrait)
        #expect(state.tMs == 5000)
        #expect(engine.state == state)
        #expect(engine.constraints == [portrait])

        let released = try Self.changed(engine.setConstraints([], atMs: 6000))
        #expect(released.orientation == .leftUp)
        #expect(released.allowed == .all)
        #expect(engine.state == released)
    }

    @Test("constraints at startup decide the orientation before any reading")
    func constraintsAtStartup() throws {
        var engine = OrientationEngine(sensor: .active)
        let state = try Self.changed(engine.setConstraints([.landscape(natural: .portrait)], atMs: 1))
        #expect(state.physical == .undefined)
        #expect(state.orientation == .leftUp)
        #expect(state.layout == .landscape)
    }

    @Test("setting constraints that change nothing returns nil")
    func constraintsUnchanged() throws {
        var engine = Self.engineAtLeftUp()
        let before = engine.state
        #expect(engine.setConstraints([.all], atMs: 5000) == nil, "all allows what no constraint allows")
        #expect(engine.setConstraints([.allButUpsideDown(natural: .portrait)], atMs: 5001) != nil, "the allowed set changed")
        #expect(engine.setConstraints([.allButUpsideDown(natural: .portrait)], atMs: 5002) == nil, "the same constraint again")
        #expect(engine.setConstraints([.allButUpsideDown(natural: .portrait), .all], atMs: 5003) == nil, "the same intersection")
        #expect(engine.state.tMs == 5001, "an unchanged state keeps its time")
        #expect(engine.state.orientation == before.orientation)
    }

    @Test("conflicting constraints fall back to default-allowed")
    func conflictFallsBack() throws {
        var engine = Self.engineAtLeftUp(defaultAllowed: [.normal, .rightUp])
        #expect(engine.state.orientation == .normal, "left-up is not in default-allowed")
        #expect(engine.state.physical == .leftUp)

        #expect(engine.setConstraints([[.leftUp], [.bottomUp]], atMs: 5000) == nil, "the fallback is what was shown")
        #expect(engine.state.allowed == [.normal, .rightUp])
        #expect(engine.state.orientation == .normal)

        let agreeing = try Self.changed(engine.setConstraints([[.leftUp, .bottomUp], [.leftUp]], atMs: 5100))
        #expect(agreeing.allowed == .leftUp)
        #expect(agreeing.orientation == .leftUp)

        let conflicting = try Self.changed(engine.setConstraints([.bottomUp, .rightUp], atMs: 5200))
        #expect(conflicting.allowed == [.normal, .rightUp])
        #expect(conflicting.orientation == .normal, "normal is a quarter turn from left-up, right-up two")
    }

    @Test("a conflict with the default default-allowed allows everything")
    func conflictWithDefaultDefault() throws {
        var engine = Self.engineAtLeftUp()
        _ = engine.setConstraints([.normal], atMs: 5000)
        #expect(engine.state.orientation == .normal)
        let state = try Self.changed(engine.setConstraints([.normal, .bottomUp], atMs: 5100))
        #expect(state.allowed == .all)
        #expect(state.orientation == .leftUp)
    }

    // MARK: Lock

    @Test("a lock holds the orientation while the physical one changes, and physical is still published")
    func lockPersists() throws {
        var (engine, rest) = Self.engineAtNormal()
        #expect(engine.state.orientation == .normal)
        #expect(engine.state.physical == .normal)

        let locked = try Self.changed(engine.setLock(.normal, atMs: 1499))
        #expect(locked.locked == .normal)
        #expect(locked.orientation == .normal)
        #expect(engine.setLock(.normal, atMs: 1499.5) == nil, "the same lock again changes nothing")

        let published = Self.publish(rest, to: &engine)
        #expect(published.allSatisfy { $0.orientation == .normal && $0.locked == .normal && $0.rotation == 0 })
        #expect(published.contains { $0.physical == .leftUp }, "the physical change is published")
        #expect(engine.state.physical == .leftUp)
        #expect(engine.state.orientation == .normal)

        let unlocked = try Self.changed(engine.setLock(nil, atMs: 5000))
        #expect(unlocked.orientation == .leftUp)
        #expect(unlocked.locked == nil)
    }

    @Test("constraints that exclude the lock win over it")
    func constraintsBeatLock() throws {
        var engine = Self.engineAtLeftUp()
        _ = engine.setLock(.normal, atMs: 5000)
        #expect(engine.state.orientation == .normal)
        let state = try Self.changed(engine.setConstraints([.landscape(natural: .portrait)], atMs: 5100))
        #expect(state.orientation == .leftUp)
        #expect(state.locked == .normal, "the lock is still reported")
    }

    @Test("setLock(undefined) unlocks")
    func lockUndefinedUnlocks() throws {
        var engine = Self.engineAtLeftUp()
        _ = engine.setLock(.rightUp, atMs: 5000)
        #expect(engine.state.orientation == .rightUp)
        let state = try Self.changed(engine.setLock(.undefined, atMs: 5100))
        #expect(state.locked == nil)
        #expect(engine.lock == nil)
        #expect(state.orientation == .leftUp)
    }

    // MARK: Sensor status

    @Test("a sensor status change is published, and setting the same status again is not")
    func sensorStatus() throws {
        var engine = OrientationEngine(sensor: .idle)
        let mock = try Self.changed(engine.setSensor(.mock, atMs: 10))
        #expect(mock.sensor == .mock)
        #expect(mock.tMs == 10)
        #expect(engine.setSensor(.mock, atMs: 11) == nil)
        let absent = try Self.changed(engine.setSensor(.absent, atMs: 12))
        #expect(absent.sensor == .absent)
        #expect(absent.orientation == mock.orientation, "losing the sensor keeps the orientation")
        #expect(engine.state == absent)
        // `active` waits for readings (SensorReturnTests).
        #expect(engine.setSensor(.active, atMs: 13) == nil)
    }

    @Test("the sensor status survives a physical change")
    func sensorStatusKeptAcrossReadings() {
        var (engine, rest) = Self.engineAtNormal()
        _ = engine.setSensor(.mock, atMs: 1499)
        let published = Self.publish(rest, to: &engine)
        #expect(!published.isEmpty)
        #expect(published.allSatisfy { $0.sensor == .mock })
    }

    // MARK: Classifier plumbing

    @Test("reconfigure keeps the orientation; forgetReadings keeps the published state until the next")
    func reconfigureAndReset() {
        var engine = Self.engineAtLeftUp()
        var config = ClassifierConfig()
        config.settleTimeMs = 300
        engine.reconfigure(config)
        #expect(engine.classifier.config == config)
        #expect(engine.classifier.orientation == .leftUp)
        engine.forgetReadings()
        #expect(engine.classifier.orientation == .undefined)
        #expect(engine.classifier.filtered == nil)
        #expect(engine.nextDeadline == nil)
        #expect(engine.tick(atMs: 10_000) == nil)
        #expect(engine.state.orientation == .leftUp)
        #expect(engine.state.physical == .leftUp)
    }
}
