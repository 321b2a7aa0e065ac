import Foundation
import Testing

/// `orientd --mock` of two-sensor traces (display and base columns): the
/// real binary decides tablet mode from the hinge angle and holds the
/// natural orientation outside it (docs/behaviour.md, Tablet mode). The
/// ChromeOS recordings' expectations are the ones their plots show (docs/plots).
@Suite("Tablet mode from the hinge, replayed")
struct TabletModeReplayTests {
    struct ModeState {
        let tMs: Double
        let mode: String
        let policy: String
        let orientation: String
        let physical: String
    }

    /// Every state `orientd --mock PATH --print` writes, with its mode and policy.
    static func replay(_ path: String, _ extra: [String] = []) throws -> [ModeState] {
        let run = try runOrientd(["--mock", path, "--speed", "max", "--print", "--exit-at-end"] + extra)
        #expect(run.status == 0 && !run.timedOut, "\(run)")
        return try run.lines.map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            return ModeState(
                tMs: try #require(object["t_ms"] as? Double), mode: try #require(object["tablet_mode"] as? String),
                policy: try #require(object["auto_rotate"] as? String), orientation: try #require(object["orientation"] as? String),
                physical: try #require(object["physical"] as? String))
        }
    }

    static func recording(_ name: String) -> String {
        Orientd.packageRoot.appendingPathComponent("traces/recorded/chromeos/chromeos_\(name).trace").path
    }

    /// The modes in order, repeats collapsed.
    static func modes(_ states: [ModeState]) -> [String] {
        var out: [String] = []
        for state in states where out.last != state.mode { out.append(state.mode) }
        return out
    }

    @Test("laptopmode (shaken at less than 180°): laptop throughout, the screen natural while the lid turns every way")
    func laptopMode() throws {
        let states = try Self.replay(Self.recording("laptopmode"))
        #expect(Self.modes(states) == ["unknown", "laptop"])
        #expect(states.allSatisfy { $0.policy == "tablet-mode" })
        #expect(states.allSatisfy { $0.orientation == "normal" })
        // The physical orientation is still reported: the recording turns to every side.
        #expect(Set(states.map(\.physical)).isSuperset(of: ["normal", "left-up", "right-up", "bottom-up"]))
    }

    @Test("fullyopen (folded into a tablet and turned): tablet within the first half second, then turning as the sensor does")
    func fullyOpen() throws {
        let states = try Self.replay(Self.recording("fullyopen"))
        #expect(Self.modes(states) == ["unknown", "tablet"])
        let tablet = try #require(states.first { $0.mode == "tablet" })
        #expect(tablet.tMs <= 500)
        // At once: the first tablet state already shows the physical orientation.
        #expect(tablet.orientation == tablet.physical)
        let after = states.filter { $0.mode == "tablet" }
        #expect(after.allSatisfy { $0.orientation == $0.physical })
        #expect(Set(after.map(\.orientation)).count == 4, "it turns through every orientation")
    }

    @Test("verticalhinge and its unstable variant: the mode never flaps")
    func verticalHinge() throws {
        let vertical = try Self.replay(Self.recording("verticalhinge"))
        #expect(Self.modes(vertical) == ["unknown", "tablet"])
        // Every reading of the unstable one has the hinge near vertical: no decision at all.
        let unstable = try Self.replay(Self.recording("verticalhinge_unstable"))
        #expect(Self.modes(unstable) == ["unknown"])
    }

    @Test("opening a convertible through 180° to 360° and back: laptop, tablet past 200°, laptop again at 160°")
    func opening() throws {
        let states = try Self.replay(Orientd.bundledTrace("convertible-opening.trace"))
        #expect(Self.modes(states) == ["unknown", "laptop", "tablet", "laptop"])
        #expect(states.filter { $0.mode != "tablet" }.allSatisfy { $0.orientation == "normal" })
    }

    @Test(
        "carried closed, on a lap at 120°, lifted by its base: laptop throughout",
        arguments: ["convertible-carried-closed.trace", "convertible-lap.trace", "convertible-base-lifted.trace"])
    func staysLaptop(name: String) throws {
        let states = try Self.replay(Orientd.bundledTrace(name))
        #expect(Self.modes(states) == ["unknown", "laptop"])
        #expect(states.allSatisfy { $0.orientation == "normal" })
    }

    @Test("tent mode is a tablet; [daemon] auto-rotate = always turns the laptop too, never holds the tablet")
    func tentAndPolicies() throws {
        let tent = try Self.replay(Orientd.bundledTrace("convertible-tent.trace"))
        #expect(Self.modes(tent).last == "tablet")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("orientd-tablet-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (policy, name) in [("always", "laptopmode"), ("never", "fullyopen")] {
            let config = directory.appendingPathComponent("\(policy).conf")
            try "[daemon]\nauto-rotate = \(policy)\n".write(to: config, atomically: true, encoding: .utf8)
            let states = try Self.replay(Self.recording(name), ["--config", config.path])
            #expect(states.allSatisfy { $0.policy == policy })
            if policy == "always" {
                #expect(states.contains { $0.mode == "laptop" && $0.orientation == "left-up" }, "always turns in laptop mode")
            } else {
                #expect(states.contains { $0.mode == "tablet" } && states.allSatisfy { $0.orientation == "normal" })
            }
        }
    }

    @Test("a trace without base columns has no source: unknown, always")
    func noBase() throws {
        let states = try Self.replay(Orientd.bundledTrace("brisk90.trace"))
        #expect(states.allSatisfy { $0.mode == "unknown" && $0.policy == "always" })
        #expect(states.contains { $0.orientation == "left-up" })
    }

    @Test("record keeps the base columns and the z sign of a two-sensor replay, and the recording decides the same mode")
    func recordRoundTrip() throws {
        let daemon = try DaemonHarness(["--mock", Self.recording("fullyopen"), "--speed", "4"])
        let file = daemon.workspace.file("folded.trace")
        let run = try runOrientctl(["--socket", daemon.socketPath, "record", file, "--duration", "2"])
        #expect(run.status == 0, "\(run)")
        try daemon.stopCleanly()
        let recorded = try readTrace(file)
        #expect(recorded.columns == [.base])
        #expect(recorded.baseSamples.count >= 10, "\(recorded.baseSamples.count) base samples")
        #expect(recorded.extraHeaders.contains { $0.key == "z_sign" && $0.value == "-1" })
        // The base reads about g, as recorded (the ChromeOS base lies flat: -g on y in its frame).
        let first = try #require(recorded.baseSamples.first)
        #expect(abs((first.vector.x * first.vector.x + first.vector.y * first.vector.y + first.vector.z * first.vector.z).squareRoot() - 9.8) < 1.5)
        let states = try Self.replay(file)
        #expect(Self.modes(states) == ["unknown", "tablet"])
    }
}
