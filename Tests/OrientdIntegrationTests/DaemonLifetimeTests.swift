#if canImport(Glibc)
import Glibc
#endif
import Testing

/// When the daemon keeps running and how it stops: `--loop`, the end of a trace,
/// SIGTERM, and a reader that goes away.
@Suite("Daemon lifetime")
struct DaemonLifetimeTests {
    /// Reads state lines until `done` says so, stdout ends, or `deadline` passes.
    static func readStates(
        _ daemon: OrientdProcess, deadline: ContinuousClock.Instant, until done: (StateLine) -> Bool
    ) throws -> [StateLine] {
        var states: [StateLine] = []
        while let line = daemon.readLine(deadline: deadline) {
            let state = try StateLine(parsing: line)
            states.append(state)
            if done(state) { break }
        }
        return states
    }

    /// SIGTERM, then the process must go within `timeout`; returns how it ended.
    static func terminate(_ daemon: OrientdProcess, timeout: Double = 5) -> OrientdRun {
        daemon.terminate()
        let exited = daemon.waitForExit(timeout: timeout)
        if !exited { daemon.kill() }
        return daemon.result(timedOut: !exited)
    }

    @Test("--loop replays the trace again and again: its turns repeat in the second pass, t_ms still rising")
    func loopRepeatsTheTrace() throws {
        let path = Orientd.bundledTrace("brisk90.trace")
        let trace = try readTrace(path)
        let last = try #require(trace.samples.last).tMs
        let daemon = try OrientdProcess(["--mock", path, "--speed", "max", "--print", "--loop"])
        let states = try Self.readStates(daemon, deadline: .now + .seconds(10)) { $0.tMs > 2 * last }
        #expect((states.last?.tMs ?? 0) > 2 * last, "the loop stopped at t_ms \(states.last?.tMs ?? 0)")
        #expect(sequenceProblems(states) == [])

        let firstPass = states.filter { $0.tMs <= last }
        let secondPass = states.filter { $0.tMs > last && $0.tMs <= 2 * last + 100 }
        #expect(physicalSequence(firstPass) == ["normal", "left-up"])
        #expect(physicalSequence(secondPass) == ["normal", "left-up"], "\(secondPass)")

        let end = Self.terminate(daemon)
        #expect(!end.timedOut, "SIGTERM did not stop the looping daemon")
        #expect(end.signal == SIGTERM || end.status == 0, "\(end)")
    }

    @Test("--loop of an on-change trace repeats its turn, committed by the timer after the sensor falls silent")
    func loopOfOnChangeTrace() throws {
        let path = Orientd.bundledTrace("brisk90-onchange.trace")
        // At 100× the whole on-change trace (its samples end at 1.8 s) passes
        // dozens of times in a second.
        let daemon = try OrientdProcess(["--mock", path, "--speed", "100", "--print", "--loop"])
        let states = try Self.readStates(daemon, deadline: .now + .seconds(1.5)) { state in state.tMs > 20_000 }
        _ = Self.terminate(daemon)
        let leftUps = zip([nil] + states.map(\.physical), states.map(\.physical)).filter { $0 != "left-up" && $1 == "left-up" }
        #expect(physicalSequence(states).first == "normal")
        #expect(sequenceProblems(states) == [])
        #expect(leftUps.count >= 2, "left-up committed \(leftUps.count) times: \(physicalSequence(states))")
    }

    @Test("--loop --speed max delivers every printed state to the reader, even when states are few")
    func loopAtMaxSpeedDeliversStates() throws {
        let path = Orientd.bundledTrace("cardinal-normal.trace")
        let daemon = try OrientdProcess(["--mock", path, "--speed", "max", "--print", "--loop"])
        // The pass prints 3 states (startup, first reading, normal); nothing changes after that.
        let states = try Self.readStates(daemon, deadline: .now + .seconds(2)) { $0.physical == "normal" }
        _ = Self.terminate(daemon)
        #expect(states.last?.physical == "normal", "read \(states.count) states in 2 s")
    }

    @Test("without --exit-at-end the daemon keeps running after the trace ends, until SIGTERM")
    func staysAliveAfterTheTrace() throws {
        let path = Orientd.bundledTrace("brisk90.trace")
        let expected = try runOrientd(["--mock", path, "--speed", "max", "--print", "--exit-at-end"])
        #expect(expected.status == 0, "\(expected)")
        let expectedLines = expected.lines
        try #require(!expectedLines.isEmpty)

        let daemon = try OrientdProcess(["--mock", path, "--speed", "max", "--print"])
        var lines: [String] = []
        while lines.count < expectedLines.count, let line = daemon.readLine(timeout: 10) { lines.append(line) }
        #expect(lines == expectedLines)
        // At max speed the output is written when the replay has finished, so
        // the whole trace is over by now: the daemon must hold its last state.
        #expect(!daemon.waitForExit(timeout: 0.5), "the daemon exited after the trace without --exit-at-end")
        #expect(daemon.process.isRunning)

        let end = Self.terminate(daemon)
        #expect(!end.timedOut, "SIGTERM did not stop the daemon")
        #expect(end.signal == SIGTERM || end.status == 0, "\(end)")
        #expect(end.stdout.isEmpty, "printed more after the trace's last state: \(end.stdout)")
    }

    /// A way of running the daemon whose reader then goes away.
    struct EarlyClose: CustomTestStringConvertible, Sendable {
        var why: String
        var arguments: [String]
        /// Lines to read before closing stdout.
        var readFirst: Int
        var testDescription: String { why }
        var loops: Bool { arguments.contains("--loop") }
    }

    static let earlyCloses: [EarlyClose] = [
        EarlyClose(
            why: "looping at max speed, after one line",
            arguments: ["--mock", Orientd.bundledTrace("brisk90.trace"), "--speed", "max", "--print", "--loop"],
            readFirst: 1),
        EarlyClose(
            why: "looping at 20×, after one line",
            arguments: ["--mock", Orientd.bundledTrace("brisk90.trace"), "--speed", "20", "--print", "--loop"],
            readFirst: 1),
        EarlyClose(
            why: "the demo at max speed with --exit-at-end, before reading anything",
            arguments: ["--mock", Orientd.bundledTrace("demo.trace"), "--speed", "max", "--print", "--exit-at-end"],
            readFirst: 0),
    ]

    @Test("a reader that closes stdout early makes the daemon exit cleanly, not hang or die of SIGPIPE", arguments: earlyCloses)
    func stdoutClosedEarly(scenario: EarlyClose) throws {
        let daemon = try OrientdProcess(scenario.arguments)
        for _ in 0..<scenario.readFirst {
            let line = daemon.readLine(timeout: 10)
            #expect(line != nil, "no line before the deadline")
        }
        daemon.closeStdout()
        // brisk90 changes state every 0.1 s of wall time at 20×: the next write fails at once.
        let exited = daemon.waitForExit(timeout: 3)
        if !exited { daemon.kill() }
        let end = daemon.result(timedOut: !exited)
        #expect(!end.stderr.contains("Fatal error") && !end.stderr.contains("Crash"), "\(end)")
        #expect(exited, "the daemon kept running with nobody reading its output")
        #expect(end.signal == nil, "\(end)")
        #expect(end.status == 0, "\(end)")
    }
}
