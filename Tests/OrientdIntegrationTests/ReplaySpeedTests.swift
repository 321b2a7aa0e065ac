import Testing

/// `--speed`: only how long the replay waits changes, never what it prints (orientd(8)).
@Suite("Replay speed")
struct ReplaySpeedTests {
    @Test("a short trace prints the same lines in real time as at max speed, and real time takes the trace's duration")
    func realTimeMatchesMaxSpeed() throws {
        let directory = try TemporaryDirectory()
        let trace = SyntheticTrace.briskTurn
        let path = try directory.write("brisk-turn.trace", trace.text)

        let realTime = try runOrientd(["--mock", path, "--speed", "1", "--print", "--exit-at-end"], timeout: 15)
        let maxSpeed = try runOrientd(["--mock", path, "--speed", "max", "--print", "--exit-at-end"])
        #expect(realTime.status == 0 && !realTime.timedOut, "\(realTime)")
        #expect(maxSpeed.status == 0, "\(maxSpeed)")
        #expect(realTime.lines == maxSpeed.lines)
        #expect(physicalSequence(try StateLine.parseAll(maxSpeed.lines)) == ["normal", "left-up"])
        let duration = trace.durationMs / 1000
        #expect(realTime.wallSeconds >= 0.9 * duration, "\(realTime.wallSeconds) s for a \(duration) s trace")
        #expect(maxSpeed.wallSeconds < duration, "max speed waited: \(maxSpeed.wallSeconds) s")
    }

    @Test("at --speed 1 each state is printed when its trace time comes: not before, and not held back to the end")
    func realTimeStatesArriveOnTime() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("brisk-turn.trace", SyntheticTrace.briskTurn.text)
        let daemon = try OrientdProcess(["--mock", path, "--speed", "1", "--print", "--exit-at-end"])
        let deadline = ContinuousClock.now + .seconds(15)
        var arrivals: [(state: StateLine, seconds: Double)] = []
        while let line = daemon.readLine(deadline: deadline) {
            arrivals.append((try StateLine(parsing: line), daemon.elapsed))
        }
        #expect(daemon.stdoutEnded, "stdout still open at the deadline")
        let endOfOutput = daemon.elapsed
        #expect(daemon.waitForExit(deadline: deadline))
        #expect(daemon.result(timedOut: false).status == 0)

        for (state, seconds) in arrivals {
            #expect(seconds >= 0.9 * state.tMs / 1000, "t_ms \(state.tMs) printed after only \(seconds) s")
        }
        // The turn commits at about 0.85 s of a 1.5 s trace: a reader sees it
        // long before the replay ends, not in one batch at exit.
        let turn = try #require(arrivals.first { $0.state.physical == "left-up" })
        #expect(turn.seconds < endOfOutput - 0.25, "left-up at \(turn.seconds) s, output ended at \(endOfOutput) s")
    }

    @Test("the demo at --speed 20 prints the same lines as at max speed")
    func fastForwardMatchesMaxSpeed() throws {
        let path = Orientd.bundledTrace("demo.trace")
        let trace = try readTrace(path)
        let fast = try runOrientd(["--mock", path, "--speed", "20", "--print", "--exit-at-end"], timeout: 20)
        let maxSpeed = try runOrientd(["--mock", path, "--speed=max", "--print", "--exit-at-end"])
        #expect(fast.status == 0 && !fast.timedOut, "\(fast)")
        #expect(maxSpeed.status == 0, "\(maxSpeed)")
        #expect(fast.lines.count > 3)
        #expect(fast.lines == maxSpeed.lines)
        let duration = ((trace.samples.last?.tMs ?? 0) - (trace.samples.first?.tMs ?? 0)) / 1000 / 20
        #expect(fast.wallSeconds >= 0.9 * duration, "\(fast.wallSeconds) s for \(duration) s of trace at 20×")
    }
}
