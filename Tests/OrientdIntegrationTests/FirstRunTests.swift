import Foundation
import OrientProtocol
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A first run, from "it works" to "I know why not": `orientctl status` and the
/// `status` op, recordings that never lose a file, `hold` without a daemon,
/// `watch` that waits, and the daemon's own first words. The real tools
/// against the real daemon; every wait polls its condition with a deadline.
@Suite("First run", .timeLimit(.minutes(Slowdown.minutes(1))))
struct FirstRunTests {
    static func ctl(_ daemon: DaemonHarness, _ arguments: [String], environment: [String: String] = [:]) throws -> OrientctlRun {
        try runOrientctl(["--socket", daemon.socketPath] + arguments, environment: environment)
    }

    /// `ORIENTCTL_SYSROOT` for a machine without iio-sensor-proxy (an empty directory).
    static func cleanRoot(_ workspace: DaemonHarness.Workspace) throws -> [String: String] {
        let root = workspace.file("root")
        try FileManager.default.createDirectory(atPath: root + "/proc", withIntermediateDirectories: true)
        return ["ORIENTCTL_SYSROOT": root]
    }

    /// Waits until `process` wrote `text` to stderr; false at the deadline.
    static func stderr(of process: OrientctlProcess, contains text: String, timeout: Double = 5) -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while !process.stderr.contains(text) {
            guard ContinuousClock.now < deadline, !process.waitForExit(timeout: 0.02) else { return process.stderr.contains(text) }
        }
        return true
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    // MARK: status

    @Test("status on a mock daemon names the version, config, trace, matrix source, consumers, lock and constraints with their holders")
    func statusOnMockDaemon() throws {
        let daemon = try DaemonHarness(["--mock", DaemonHarness.trace("demo-rotated-matrix.trace"), "--loop"])
        let app = try daemon.connect()
        #expect(try app.request(#"{"op":"constrain","id":"player","allow":["landscape"]}"#).type == "ok")
        #expect(try app.request(#"{"op":"lock","orientation":"right-up"}"#).type == "ok")
        #expect(try app.request(#"{"op":"subscribe"}"#).type == "state")
        let environment = try Self.cleanRoot(daemon.workspace)
        let run = try Self.ctl(daemon, ["status"], environment: environment)
        #expect(run.status == 0, "\(run)")
        let text = run.stdout
        #expect(text.hasPrefix("orientd 0.2.0 on \(daemon.socketPath), config \(daemon.workspace.configPath)\n"), "\(text)")
        for expected in [
            "sensor:           mock: replaying \(DaemonHarness.trace("demo-rotated-matrix.trace"))",
            "mount matrix:     0, -1, 0; -1, 0, 0; 0, 0, 1 (from the trace's header)",
            "natural:          portrait (from the config)",
            "z sign:           +1 (face up reads +g on z), assumed: the default",
            "consumers:        1 subscriber, 0 recording, 0 D-Bus claimers (2 clients connected)",
            "iio-sensor-proxy: not installed",
            "no problems found",
        ] {
            #expect(text.contains(expected + "\n"), "missing '\(expected)' in:\n\(text)")
        }
        #expect(text.contains("lock:             right-up, set by uid \(getuid()), pid "), "\(text)")
        #expect(text.contains("constraints:      player: left-up,right-up by client "), "\(text)")

        // The same over the protocol, for programs (and a calibration wizard).
        // The app is subscribed: a state may come first (the looping trace
        // turns on), so the reply is the message with its seq.
        try app.send(#"{"op":"status","seq":5}"#)
        let reply = try app.read(until: { $0.seq == 5 }).match
        #expect(reply.type == "status" && reply.seq == 5, "\(reply)")
        let decoded = try DaemonStatus(jsonLine: Array(reply.raw.utf8))
        #expect(decoded.mockTrace == DaemonHarness.trace("demo-rotated-matrix.trace") && decoded.sensorState == .mock)
        #expect(decoded.mountMatrix.reason == "trace" && decoded.natural == DaemonStatus.Decision(.portrait, reason: "config"))
        #expect(decoded.lock?.orientation == .rightUp && decoded.lock?.uid == getuid() && decoded.lock?.pid != nil)
        #expect(decoded.constraints.map(\.id) == ["player"] && decoded.constraints.first?.uid == getuid())
        #expect(decoded.subscribers == 1 && decoded.dbusClaimers == nil)
        try daemon.stopCleanly()
    }

    @Test("status with no sensor says so, gives each problem its fix, and --json carries the same")
    func statusWithoutSensor() throws {
        let daemon = try DaemonHarness()  // no --mock and no accelerometer: sensor absent
        let environment = try Self.cleanRoot(daemon.workspace)
        let run = try Self.ctl(daemon, ["status"], environment: environment)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("sensor:           none found\n"), "\(run.stdout)")
        #expect(run.stdout.contains("mount matrix:     1, 0, 0; 0, 1, 0; 0, 0, 1 (no source gave one: identity)\n"), "\(run.stdout)")
        #expect(run.stdout.contains("problems:\n  no accelerometer found\n    fix: check `ls /sys/bus/iio/devices`"), "\(run.stdout)")
        #expect(run.stdout.contains("  nothing follows the orientation (no subscriber): the screen will not turn\n    fix: "), "\(run.stdout)")

        let json = try Self.ctl(daemon, ["--json", "status"], environment: environment)
        #expect(json.status == 0 && json.lines.count == 1, "\(json)")
        let object = try Self.json(json.stdout)
        #expect(object["reachable"] as? Bool == true)
        let status = try #require(object["daemon"] as? [String: Any])
        #expect((status["sensor"] as? [String: Any])?["state"] as? String == "absent")
        #expect((status["mount_matrix"] as? [String: Any])?["source"] as? String == "identity")
        let problems = try #require(object["problems"] as? [[String: String]])
        #expect(problems.first?["problem"] == "no accelerometer found" && problems.allSatisfy { !($0["fix"] ?? "").isEmpty })
        try daemon.stopCleanly()
    }

    @Test("status finds iio-sensor-proxy running or installed (unmasked) and gives the mask command; masked is fine")
    func statusConflict() throws {
        let daemon = try DaemonHarness(["--mock", DaemonHarness.trace("demo.trace"), "--loop"])
        let root = daemon.workspace.file("root")
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/proc/4242", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/usr/libexec", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/etc/systemd/system", withIntermediateDirectories: true)
        _ = try daemon.workspace.write("root/usr/libexec/iio-sensor-proxy", "")
        let environment = ["ORIENTCTL_SYSROOT": root]

        var run = try Self.ctl(daemon, ["status"], environment: environment)
        #expect(run.stdout.contains("iio-sensor-proxy: installed, not masked (a conflict when started)\n"), "\(run.stdout)")
        #expect(run.stdout.contains("    fix: sudo systemctl mask iio-sensor-proxy\n"), "\(run.stdout)")

        _ = try daemon.workspace.write("root/proc/4242/comm", "iio-sensor-prox\n")
        run = try Self.ctl(daemon, ["status"], environment: environment)
        #expect(run.stdout.contains("iio-sensor-proxy: running (a conflict)\n"), "\(run.stdout)")
        #expect(run.stdout.contains("    fix: sudo systemctl mask --now iio-sensor-proxy\n"), "\(run.stdout)")

        try fm.removeItem(atPath: root + "/proc/4242")
        try fm.createSymbolicLink(atPath: root + "/etc/systemd/system/iio-sensor-proxy.service", withDestinationPath: "/dev/null")
        run = try Self.ctl(daemon, ["status"], environment: environment)
        #expect(run.stdout.contains("iio-sensor-proxy: installed, masked\n") && !run.stdout.contains("systemctl mask"), "\(run.stdout)")
        try daemon.stopCleanly()
    }

    @Test("status reports a configured z sign as the config's, and an assumed one with its reason")
    func statusZSign() throws {
        let daemon = try DaemonHarness(config: DaemonHarness.defaultConfig + "[classifier]\nz-sign = -1\n")
        let status = try DaemonStatus(jsonLine: Array(try daemon.connect().request(#"{"op":"status"}"#).raw.utf8))
        #expect(status.zSign == DaemonStatus.Decision(-1, reason: "configured: config z-sign"), "\(status.zSign)")
        let plain = try DaemonHarness()
        let other = try DaemonStatus(jsonLine: Array(try plain.connect().request(#"{"op":"status"}"#).raw.utf8))
        #expect(
            other.zSign == DaemonStatus.Decision(1, reason: "assumed: no driver name: proper acceleration under a rotation (the default)"),
            "\(other.zSign)")
        try daemon.stopCleanly()
        try plain.stopCleanly()
    }

    @Test("status with no daemon exits 69 and still reports, with the fix to start it")
    func statusWithoutDaemon() throws {
        let workspace = try DaemonHarness.Workspace()
        let run = try runOrientctl(["--socket", workspace.socketPath, "status"], environment: try Self.cleanRoot(workspace))
        #expect(run.status == Orientctl.unavailable, "\(run)")
        #expect(run.stdout.hasPrefix("orientd on \(workspace.socketPath): not reachable\n"), "\(run)")
        #expect(run.stdout.contains("fix: sudo systemctl enable --now orientd.socket"), "\(run)")
    }

    @Test("a status reply stays within the line limit however many constraints are held")
    func statusLineLimit() throws {
        let daemon = try DaemonHarness()
        var clients: [DaemonHarness.Client] = []
        for c in 0..<8 {
            let client = try daemon.connect()
            for i in 0..<32 {
                let id = String(repeating: "\\\"", count: 30) + "\(c)-\(i)"
                #expect(try client.request(#"{"op":"constrain","id":"\#(id)","allow":["all"]}"#).type == "ok")
            }
            clients.append(client)
        }
        let reply = try daemon.connect().request(#"{"op":"status"}"#)
        #expect(reply.raw.utf8.count <= 4096, "\(reply.raw.utf8.count) bytes")
        let status = try DaemonStatus(jsonLine: Array(reply.raw.utf8))
        #expect(status.constraintCount == 256 && status.constraints.count < 256 && !status.constraints.isEmpty)
        try daemon.stopCleanly()
    }

    // MARK: record

    @Test("record with no daemon leaves an existing FILE exactly as it was, and leaves no temporary file")
    func recordKeepsFileWithoutDaemon() throws {
        let workspace = try DaemonHarness.Workspace()
        let file = try workspace.write("precious.trace", "# orientd-trace: 1\nt_ms,x,y,z\n0,0,-9.8,0\n")
        let run = try runOrientctl(["--socket", workspace.socketPath, "record", file, "--duration", "1"])
        #expect(run.status == Orientctl.unavailable, "\(run)")
        #expect(workspace.read(file) == "# orientd-trace: 1\nt_ms,x,y,z\n0,0,-9.8,0\n", "the file changed")
        let left = try FileManager.default.contentsOfDirectory(atPath: workspace.path).filter { $0.hasPrefix(".precious") }
        #expect(left.isEmpty, "temporary files left: \(left)")
    }

    @Test("record with no sample arriving exits 69 and leaves FILE as it was")
    func recordKeepsFileWithoutSamples() throws {
        let daemon = try DaemonHarness()  // no sensor: no sample ever comes
        let file = try daemon.workspace.write("precious.trace", "old\n")
        let run = try Self.ctl(daemon, ["record", file, "--duration", "0.3"])
        #expect(run.status == Orientctl.unavailable && run.stderr.contains("left as it was"), "\(run)")
        #expect(daemon.workspace.read(file) == "old\n")
        try daemon.stopCleanly()
    }

    @Test("a recorded trace's header says where it came from; its times start at 0 with the clock offset kept")
    func recordHeader() throws {
        let daemon = try DaemonHarness(["--mock", DaemonHarness.trace("demo.trace"), "--loop", "--speed", "5"])
        let file = daemon.workspace.file("recorded.trace")
        let run = try Self.ctl(daemon, ["record", file, "--duration", "0.5"])
        #expect(run.status == 0, "\(run)")
        let text = try #require(daemon.workspace.read(file))
        for header in ["# orientd_version: 0.2.0\n", "# mount_matrix_source: trace\n", "# clock: trace\n", "# rate_hz: 20\n"] {
            #expect(text.contains(header), "no '\(header)' in \(text.prefix(300))")
        }
        let trace = try TraceReader.parse(Data(text.utf8), file: file)
        #expect(trace.samples.first?.tMs == 0, "\(trace.samples.prefix(2))")
        let offset = try #require(trace.extraHeaders.first { $0.key == "clock_offset_ms" }.flatMap { Double($0.value) })
        #expect(offset >= 0)
        try daemon.stopCleanly()
    }

    // MARK: hold, lock, unlock

    @Test("hold with no daemon runs the command anyway, warns, and registers the constraint once the daemon comes")
    func holdWithoutDaemon() throws {
        let workspace = try DaemonHarness.Workspace()
        let gate = workspace.file("go")
        let hold = try OrientctlProcess([
            "--socket", workspace.socketPath, "hold", "landscape", "--", "sh", "-c",
            "touch \"$1.ran\"; while [ ! -e \"$1\" ]; do sleep 0.01; done; exit 4", "sh", gate,
        ])
        #expect(Orientctl.poll(timeout: 5) { DaemonHarness.pathExists(gate + ".ran") }, "the command did not run: \(hold.stderr)")
        #expect(Self.stderr(of: hold, contains: "warning: "), "no warning: \(hold.stderr)")
        let daemon = try DaemonHarness(workspace: workspace)
        let held = try daemon.eventuallyState(timeout: 10) { $0.allowed == OrientctlTests.landscape }
        #expect(held.allowed == OrientctlTests.landscape, "the constraint was not registered after the daemon came")
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        #expect(hold.waitForExit(timeout: 5) && hold.status == 4, "\(hold.result(timedOut: false))")
        #expect(try daemon.freshState().allowed == OrientctlTests.all)
        try daemon.stopCleanly()
    }

    @Test("lock and unlock say what changed, and hold says what it allows")
    func sayWhatChanged() throws {
        let daemon = try DaemonHarness()
        var run = try Self.ctl(daemon, ["lock", "left-up"])
        #expect(run.status == 0 && run.lines == ["rotation locked at left-up (was unlocked)"], "\(run)")
        run = try Self.ctl(daemon, ["lock", "left-up"])
        #expect(run.lines == ["rotation already locked at left-up"], "\(run)")
        let app = try daemon.connect()
        #expect(try app.request(#"{"op":"constrain","id":"game","allow":["right-up"]}"#).type == "ok")
        run = try Self.ctl(daemon, ["lock", "bottom-up"])
        #expect(
            run.lines == ["rotation locked at bottom-up (was locked at left-up); an app's constraint excludes it, so the screen shows right-up"],
            "\(run)")
        run = try Self.ctl(daemon, ["unlock"])
        #expect(run.lines == ["rotation unlocked (was locked at bottom-up)"], "\(run)")
        run = try Self.ctl(daemon, ["unlock"])
        #expect(run.lines == ["rotation was not locked"], "\(run)")
        run = try Self.ctl(daemon, ["hold", "portrait", "--", "true"])
        #expect(run.status == 0 && run.stdout.isEmpty && run.stderr == "orientctl: allowing only portrait while true runs\n", "\(run)")
        try daemon.stopCleanly()
    }

    // MARK: watch

    @Test("watch with no daemon waits for one and says so; it reports the daemon going away and coming back")
    func watchWaits() throws {
        let workspace = try DaemonHarness.Workspace()
        let watch = try OrientctlProcess(["--socket", workspace.socketPath, "watch"])
        #expect(Self.stderr(of: watch, contains: "orientctl: waiting for orientd: "), "\(watch.stderr)")
        #expect(!watch.waitForExit(timeout: 0.2), "watch exited without a daemon: \(watch.result(timedOut: false))")
        let first = try DaemonHarness(workspace: workspace)
        #expect(watch.readLine(timeout: 10) == OrientctlTests.initialSummary, "stderr: \(watch.stderr)")
        #expect(Self.stderr(of: watch, contains: "orientctl: connected to orientd\n"), "\(watch.stderr)")
        try first.stopCleanly()
        #expect(Self.stderr(of: watch, contains: "orientctl: orientd went away ("), "\(watch.stderr)")
        let second = try DaemonHarness(workspace: workspace)
        #expect(Self.stderr(of: watch, contains: "orientctl: orientd is back\n", timeout: 10), "\(watch.stderr)")
        watch.send(signal: SIGINT)
        #expect(watch.waitForExit(timeout: 5) && watch.status == 0, "\(watch.result(timedOut: false))")
        try second.stopCleanly()
        // The client's Ctrl-C is an ordinary disconnect, not a failure worth a notice.
        #expect(!second.stderr.contains("Broken pipe") && !first.stderr.contains("Broken pipe"), "\(first.stderr)\(second.stderr)")
    }

    @Test("watch --no-wait with no daemon exits 69 at once")
    func watchNoWait() throws {
        let workspace = try DaemonHarness.Workspace()
        let run = try runOrientctl(["--socket", workspace.socketPath, "watch", "--no-wait"], timeout: 5)
        #expect(run.status == Orientctl.unavailable && !run.timedOut && run.stdout.isEmpty, "\(run)")
    }

    // MARK: command line

    @Test("typos in commands, options, mask and orientation names get a did-you-mean; --version prints the version",
        arguments: [
            (["stauts"], "unknown command 'stauts'; did you mean 'status'?"),
            (["hlep"], "unknown command 'hlep'; did you mean 'help'?"),
            (["help", "stauts"], "no command 'stauts' to help with; did you mean 'status'?"),
            (["--jsno", "get"], "unknown option '--jsno'; did you mean '--json'?"),
            (["watch", "--no-wiat"], "did you mean '--no-wait'?"),
            (["hold", "landscpae", "--", "true"], "did you mean 'landscape'?"),
            (["lock", "lef-up"], "did you mean 'left-up'?"),
            (["get", "--no-wait"], "--no-wait is an option of watch"),
        ])
    func didYouMean(arguments: [String], expected: String) throws {
        let run = try runOrientctl(arguments)
        #expect(run.status == Orientctl.usage && run.stderr.contains(expected), "\(run)")
    }

    @Test("orientctl help and help COMMAND print what --help prints")
    func helpCommand() throws {
        let help = try runOrientctl(["help"]), dashed = try runOrientctl(["--help"])
        #expect(help.status == 0 && help.stdout == dashed.stdout, "\(help)")
        let status = try runOrientctl(["help", "status"]), statusHelp = try runOrientctl(["status", "--help"])
        #expect(status.status == 0 && status.stdout == statusHelp.stdout, "\(status)")
    }

    @Test("orientctl --version prints its version, the same as orientd's, and exits 0")
    func version() throws {
        let run = try runOrientctl(["--version"])
        let daemon = try runOrientd(["--version"])
        // A plain name: swift-testing 6.0 expands an optional chain inside #require wrongly.
        let lastWord = daemon.lines.first?.split(separator: " ").last
        let daemonVersion = try #require(lastWord, "\(daemon)")
        #expect(run.status == 0 && run.lines == ["orientctl \(daemonVersion)"], "\(run); \(daemon)")
    }

    @Test("a regular file at the socket path is reported as not a socket")
    func notASocket() throws {
        let workspace = try DaemonHarness.Workspace()
        let file = try workspace.write("not-a-socket", "x")
        let run = try runOrientctl(["--socket", file, "get"])
        #expect(run.status == Orientctl.unavailable && run.stderr.contains("\(file) is not a socket (a regular file"), "\(run)")
    }

    // MARK: the daemon's first words

    @Test("a daemon without an accelerometer says so at the default log level, once")
    func daemonSaysNoSensor() throws {
        let daemon = try DaemonHarness()
        #expect(daemon.waitForStderr(containing: "orientd: notice: no accelerometer found"), "\(daemon.stderr)")
        _ = try Self.ctl(daemon, ["get"])
        kill(daemon.pid, SIGHUP)  // a rescan must not say it again
        #expect(daemon.waitForStderr(containing: "configuration reloaded"), "\(daemon.stderr)")
        try daemon.stopCleanly()
        #expect(daemon.stderr.components(separatedBy: "no accelerometer found").count == 2, "\(daemon.stderr)")
    }

    @Test("a replay with no socket and no --print says it serves nothing")
    func replayServingNothing() throws {
        let run = try runOrientd(["--mock", DaemonHarness.trace("brisk90.trace"), "--speed", "max", "--exit-at-end"])
        #expect(run.status == 0 && run.stderr.contains("serving nothing: no socket and no --print"), "\(run)")
        let printing = try runOrientd(["--mock", DaemonHarness.trace("brisk90.trace"), "--speed", "max", "--exit-at-end", "--print"])
        #expect(printing.status == 0 && !printing.stderr.contains("serving nothing"), "\(printing)")
    }

    @Test(
        "a daemon that cannot create its socket as a non-root user suggests --socket",
        .enabled(if: Orientctl.canRunAsNobody, "needs root and setpriv to run orientd as nobody"))
    func nonRootSocketHint() throws {
        let workspace = try DaemonHarness.Workspace()
        chmod(workspace.path, 0o755)  // nobody reads the config in it
        let daemon = try DaemonHarness(
            ["--socket", "/run/orientd-firstrun-test-\(getpid())/orientd.sock"], workspace: workspace, waitForSocket: false,
            launcher: Orientctl.asNobody)
        #expect(daemon.waitForExit(timeout: 10), "orientd kept running")
        #expect(daemon.exitStatus == 73, "\(daemon.exitStatus): \(daemon.stderr)")
        #expect(daemon.stderr.contains("not running as root: give --socket a path in a directory you can write"), "\(daemon.stderr)")
    }
}
