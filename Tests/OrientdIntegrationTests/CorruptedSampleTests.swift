import Testing

/// Garbage samples never rotate the screen (docs/classifier.md, docs/behaviour.md).
@Suite("Corrupted samples")
struct CorruptedSampleTests {
    static func replay(_ path: String) throws -> (OrientdRun, [StateLine]) {
        let run = try runOrientd(["--mock", path, "--speed", "max", "--print", "--exit-at-end"])
        return (run, try StateLine.parseAll(run.lines))
    }

    @Test("NaN, infinite, zero and spike samples in steady portrait print exactly what the clean trace prints")
    func garbageInSteadyPortrait() throws {
        let directory = try TemporaryDirectory()
        let clean = SyntheticTrace.steadyPortrait
        var dirty = clean
        dirty.insert(at: 1500, "nan", "nan", "nan")
        dirty.insert(at: 2000, "250.3", "-300.9", "80.1")  // a spike of about 40 g
        dirty.insert(at: 2500, "0.1", "nan", "1.7")
        dirty.insert(at: 2750, "inf", "-9.6", "-inf")
        dirty.insert(at: 3000, "0", "0", "0")
        let cleanPath = try directory.write("clean.trace", clean.text)
        let dirtyPath = try directory.write("dirty.trace", dirty.text)

        let (cleanRun, cleanStates) = try Self.replay(cleanPath)
        let (dirtyRun, dirtyStates) = try Self.replay(dirtyPath)
        #expect(cleanRun.status == 0 && dirtyRun.status == 0, "\(cleanRun) / \(dirtyRun)")
        #expect(physicalSequence(dirtyStates) == ["normal"])
        #expect(dirtyStates.allSatisfy { $0.orientation == "normal" })
        #expect(dirtyStates == cleanStates)
    }

    @Test("a sample time of 1e300 ms is a wait that never ends, not a crash: the daemon serves and stops cleanly")
    func farFutureSampleTime() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("far.trace", "# orientd-trace: 1\n# rate_hz: 20\nt_ms,x,y,z\n0,0,-9.8,0\n1e300,9.8,0,0\n")
        // The first turn of the loop replays the first sample and arms the timer
        // for the second, where Int(_:) trapped; the socket is served only after it.
        let daemon = try DaemonHarness(["--mock", path, "--speed", "1"])
        let state = try daemon.freshState()
        #expect(state.type == "state" && state.string("tilt") == "vertical", "\(state.raw)")
        try daemon.stopCleanly()
    }

    @Test("a replay speed of 1e-300 is a wait that never ends, not a crash: the daemon serves and stops cleanly")
    func vanishingSpeed() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("slow.trace", "# orientd-trace: 1\n# rate_hz: 20\nt_ms,x,y,z\n0,0,-9.8,0\n50,0,-9.8,0\n")
        // The first turn of the loop replays the first sample and arms the timer
        // for the second, 5e301 ms away; the socket is served only after it.
        let daemon = try DaemonHarness(["--mock", path, "--speed", "1e-300"])
        let state = try daemon.freshState()
        #expect(state.type == "state", "\(state.raw)")
        try daemon.stopCleanly()
    }

    @Test("one sample pointing the other way at the magnitude of g does not rotate a steady portrait")
    func singleWrongWaySample() throws {
        let directory = try TemporaryDirectory()
        var trace = SyntheticTrace.steadyPortrait
        let leftUp = SyntheticTrace.reading(theta: 90, phi: 10)
        trace.insert(at: 2000, "\(leftUp.x)", "\(leftUp.y)", "\(leftUp.z)")
        let (run, states) = try Self.replay(try directory.write("flick.trace", trace.text))
        #expect(run.status == 0, "\(run)")
        #expect(physicalSequence(states) == ["normal"])
    }

    @Test("the bundled corrupted-samples trace stays in portrait")
    func bundledCorruptedSamples() throws {
        let (run, states) = try Self.replay(Orientd.bundledTrace("corrupted-samples.trace"))
        #expect(run.status == 0, "\(run)")
        #expect(physicalSequence(states) == ["normal"])
        #expect(sequenceProblems(states) == [])
    }
}
