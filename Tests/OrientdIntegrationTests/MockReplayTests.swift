import Testing

/// `orientd --mock TRACE --print`: what the real binary prints for the bundled traces.
@Suite("Mock replay of the bundled traces")
struct MockReplayTests {
    @Test("traces/ holds the bundled traces")
    func bundledTracesExist() {
        let names = Orientd.bundledTraceNames
        #expect(names.count >= 2, "traces/: \(names)")
        #expect(names.contains("demo.trace"))
        #expect(names.contains("demo-rotated-matrix.trace"))
    }

    @Test(
        "a bundled trace replays at max speed to valid state lines, one per change",
        arguments: Orientd.bundledTraceNames)
    func replaysToValidStateLines(name: String) throws {
        let path = Orientd.bundledTrace(name)
        let trace = try readTrace(path)
        let run = try runOrientd(["--mock", path, "--speed", "max", "--print", "--exit-at-end"])
        #expect(run.status == 0 && !run.timedOut, "\(run)")
        #expect(run.warnings == [], "\(run)")
        #expect(run.stdout.hasSuffix("\n"), "stdout does not end with a newline")

        let states = try StateLine.parseAll(run.lines)
        #expect(!states.isEmpty, "nothing printed")
        #expect(sequenceProblems(states) == [])
        #expect(states.allSatisfy { $0.sensor == "mock" })
        #expect(states.allSatisfy { $0.locked == nil }, "the test's state directory is empty: nothing is locked")
        // Times are trace times: from the first sample to the end, plus at most one
        // pending deadline (hold times are at most a second or two).
        let first = trace.samples.first?.tMs ?? 0, last = trace.samples.last?.tMs ?? 0
        #expect(states.allSatisfy { $0.tMs >= first && $0.tMs <= last + 5000 }, "t_ms outside the trace")
        #expect(states.contains { $0.physical != "undefined" }, "the trace never classifies")
    }

    @Test(
        "a device held still in a cardinal pose reports that pose from startup",
        arguments: ["normal", "left-up", "bottom-up", "right-up"])
    func cardinalPoses(orientation: String) throws {
        let run = try runOrientd([
            "--mock", Orientd.bundledTrace("cardinal-\(orientation).trace"), "--speed", "max", "--print", "--exit-at-end",
        ])
        #expect(run.status == 0, "\(run)")
        let states = try StateLine.parseAll(run.lines)
        #expect(physicalSequence(states) == [orientation])
        #expect(states.last?.orientation == orientation)
        #expect(states.last?.rotation == StateLine.rotations[orientation])
    }

    @Test("the demo shows normal, left-up, normal, right-up, normal, left-up, normal, bottom-up, normal")
    func demoOrientationSequence() throws {
        let run = try runOrientd(["--mock", Orientd.bundledTrace("demo.trace"), "--speed", "max", "--print", "--exit-at-end"])
        #expect(run.status == 0, "\(run)")
        let states = try StateLine.parseAll(run.lines)
        #expect(
            physicalSequence(states) == [
                "normal", "left-up", "normal", "right-up", "normal", "left-up", "normal", "bottom-up", "normal",
            ])
        // Nothing is locked or constrained, so what is shown is what is held.
        #expect(states.filter { $0.physical != "undefined" }.allSatisfy { $0.orientation == $0.physical })
    }

    @Test("a trace recorded with a rotated sensor and its mount matrix replays exactly like the demo")
    func rotatedMountMatrixMatchesDemo() throws {
        let demo = try runOrientd(["--mock", Orientd.bundledTrace("demo.trace"), "--speed", "max", "--print", "--exit-at-end"])
        let rotated = try runOrientd([
            "--mock", Orientd.bundledTrace("demo-rotated-matrix.trace"), "--speed", "max", "--print", "--exit-at-end",
        ])
        #expect(demo.status == 0, "\(demo)")
        #expect(rotated.status == 0, "\(rotated)")
        #expect(rotated.warnings == [], "\(rotated)")
        #expect(rotated.lines.count > 3)
        #expect(rotated.lines == demo.lines)
    }

    @Test("the replay does not depend on the process locale")
    func localeIndependent() throws {
        let path = Orientd.bundledTrace("demo.trace")
        let arguments = ["--mock", path, "--speed", "max", "--print", "--exit-at-end"]
        let plain = try runOrientd(arguments, environment: ["LC_ALL": "C"])
        let german = try runOrientd(arguments, environment: ["LC_ALL": "de_DE.UTF-8", "LANG": "de_DE.UTF-8"])
        #expect(plain.status == 0 && german.status == 0, "\(plain) / \(german)")
        #expect(german.lines == plain.lines)
    }
}

