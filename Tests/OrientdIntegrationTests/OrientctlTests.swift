import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol

/// `orientctl` end to end: the real tool against the real daemon on a temporary
/// socket (orientctl(1), issue 3 item 6). Every wait polls its condition with a deadline.
@Suite("orientctl", .timeLimit(.minutes(Slowdown.minutes(1))))
struct OrientctlTests {
    typealias Message = DaemonHarness.Message

    /// The landscape set on the harness's portrait-native panel.
    static let landscape = ["left-up", "right-up"]
    static let all = DaemonHarness.all

    /// The summary line of the harness daemon's initial state (no sensor, nothing held).
    static let initialSummary =
        "normal (physical undefined, tilt undefined, rotation 0, portrait, allowed normal,left-up,bottom-up,right-up, "
        + "unlocked, sensor absent)"

    /// Runs `orientctl --socket S ARGS...` against `daemon` to the end.
    static func ctl(_ daemon: DaemonHarness, _ arguments: [String], launcher: [String] = []) throws -> OrientctlRun {
        try runOrientctl(["--socket", daemon.socketPath] + arguments, launcher: launcher)
    }

    /// Starts `orientctl --socket S ARGS...` against `daemon` without waiting for it.
    static func start(_ daemon: DaemonHarness, _ arguments: [String]) throws -> OrientctlProcess {
        try OrientctlProcess(["--socket", daemon.socketPath] + arguments)
    }

    /// Polls a fresh client's `get` until `allowed` is `expected`; returns the last state.
    static func waitForAllowed(_ daemon: DaemonHarness, _ expected: [String], timeout: Double = 5) throws -> Message {
        try daemon.eventuallyState(timeout: timeout) { $0.allowed == expected }
    }

    /// What a recording in progress holds so far: record writes to `.NAME.XXXXXX`
    /// beside FILE and renames it over FILE only at the end.
    static func recording(_ file: String) -> String {
        let url = URL(fileURLWithPath: file)
        let directory = url.deletingLastPathComponent().path
        let prefix = "." + url.lastPathComponent + "."
        let temporary = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.first { $0.hasPrefix(prefix) }
        return temporary.flatMap { try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8) } ?? ""
    }

    // MARK: get

    @Test("get prints the human summary line of the daemon's state and exits 0")
    func getPrintsSummary() throws {
        let daemon = try DaemonHarness()
        let run = try Self.ctl(daemon, ["get"])
        #expect(run.status == 0, "\(run)")
        #expect(run.lines == [Self.initialSummary], "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")

        // The line follows the state: a constraint and a lock show up in it.
        let other = try daemon.connect()
        #expect(try other.request(#"{"op":"constrain","id":"app","allow":["landscape"]}"#).type == "ok")
        #expect(try other.request(#"{"op":"lock","orientation":"right-up"}"#).type == "ok")
        let after = try Self.ctl(daemon, ["get"])
        #expect(after.status == 0, "\(after)")
        #expect(
            after.lines == [
                "right-up (physical undefined, tilt undefined, rotation 270, landscape, allowed left-up,right-up, "
                    + "locked right-up, sensor absent)"
            ], "\(after)")
        try daemon.stopCleanly()
    }

    @Test("--json get prints exactly one valid state line, the daemon's state, and exits 0", arguments: [
        ["--json", "get"], ["get", "--json"],
    ])
    func jsonGetPrintsStateLine(arguments: [String]) throws {
        let daemon = try DaemonHarness()
        let other = try daemon.connect()
        #expect(try other.request(#"{"op":"constrain","id":"app","allow":["landscape"]}"#).type == "ok")
        let run = try Self.ctl(daemon, arguments)
        #expect(run.status == 0, "\(run)")
        #expect(run.lines.count == 1 && run.stdout.hasSuffix("\n"), "\(run)")
        let line = try #require(run.lines.first)
        let state = try StateLine(parsing: line)
        #expect(state.allowed == Self.landscape && state.orientation == "left-up", "\(line)")
        #expect(try Message(line).content == daemon.freshState().content, "\(line)")
        #expect(run.stderr.isEmpty, "\(run)")
        try daemon.stopCleanly()
    }

    @Test("with no daemon listening, get exits 69 with a message on stderr and nothing on stdout", arguments: [
        "no socket file", "a stale socket file",
    ])
    func getWithoutDaemon(situation: String) throws {
        let workspace = try DaemonHarness.Workspace()
        if situation == "a stale socket file" {
            // A daemon that was killed: the file is there, nobody listens.
            let daemon = try DaemonHarness(workspace: workspace)
            daemon.kill()
            #expect(DaemonHarness.isSocket(workspace.socketPath), "no stale socket to test with")
        }
        for arguments in [["get"], ["--json", "get"]] {
            let run = try runOrientctl(["--socket", workspace.socketPath] + arguments)
            #expect(run.status == Orientctl.unavailable, "\(run)")
            #expect(run.stdout.isEmpty, "\(run)")
            #expect(run.stderr.hasPrefix("orientctl: ") && run.stderr.contains(workspace.socketPath), "\(run)")
        }
    }

    @Test("with no daemon listening, watch --no-wait, lock, unlock and record exit 69 too", arguments: [
        ["watch", "--no-wait"], ["watch", "--json", "--no-wait"], ["lock", "left-up"], ["lock"], ["unlock"], ["record", "<file>", "--duration", "1"],
    ])
    func otherCommandsWithoutDaemon(arguments: [String]) throws {
        let workspace = try DaemonHarness.Workspace()
        let resolved = arguments.map { $0 == "<file>" ? workspace.file("recorded.trace") : $0 }
        let run = try runOrientctl(["--socket", workspace.socketPath] + resolved, timeout: 5)
        #expect(run.status == Orientctl.unavailable, "\(run)")
        #expect(run.stdout.isEmpty && run.stderr.contains(workspace.socketPath), "\(run)")
    }

    @Test("without --socket, orientctl uses $ORIENTD_SOCKET; --socket=PATH works like --socket PATH")
    func socketFromEnvironment() throws {
        let daemon = try DaemonHarness()
        let fromEnvironment = try runOrientctl(["get"], environment: ["ORIENTD_SOCKET": daemon.socketPath])
        #expect(fromEnvironment.status == 0 && fromEnvironment.lines == [Self.initialSummary], "\(fromEnvironment)")
        let equals = try runOrientctl(["--socket=\(daemon.socketPath)", "get"])
        #expect(equals.status == 0 && equals.lines == [Self.initialSummary], "\(equals)")
        // --socket wins over the environment.
        let both = try runOrientctl(
            ["--socket", daemon.socketPath, "get"], environment: ["ORIENTD_SOCKET": daemon.workspace.file("nothing")])
        #expect(both.status == 0, "\(both)")
        try daemon.stopCleanly()
    }

    // MARK: watch

    @Test("watch prints the state, then one line per change made by another client, and exits 0 on the signal",
        arguments: [SIGINT, SIGTERM])
    func watchPrintsChanges(signal: Int32) throws {
        let daemon = try DaemonHarness()
        let watch = try Self.start(daemon, ["watch"])
        #expect(watch.readLine(timeout: 5) == Self.initialSummary, "stderr: \(watch.stderr)")

        let other = try daemon.connect()
        #expect(try other.request(#"{"op":"constrain","id":"app","allow":["landscape"]}"#).type == "ok")
        let constrained = watch.readLine(timeout: 5)
        #expect(
            constrained
                == "left-up (physical undefined, tilt undefined, rotation 90, landscape, allowed left-up,right-up, "
                + "unlocked, sensor absent)")
        #expect(try other.request(#"{"op":"lock","orientation":"right-up"}"#).type == "ok")
        let locked = watch.readLine(timeout: 5)
        #expect(
            locked
                == "right-up (physical undefined, tilt undefined, rotation 270, landscape, allowed left-up,right-up, "
                + "locked right-up, sensor absent)")
        // A request that changes nothing prints nothing; the next change prints one line.
        #expect(try other.request(#"{"op":"constrain","id":"app","allow":["landscape"]}"#).type == "ok")
        #expect(try other.request(#"{"op":"unlock"}"#).type == "ok")
        let unlocked = watch.readLine(timeout: 5)
        #expect(unlocked?.hasSuffix("allowed left-up,right-up, unlocked, sensor absent)") == true, "\(unlocked ?? "nil")")

        watch.send(signal: signal)
        #expect(watch.waitForExit(timeout: 5), "watch did not exit on signal \(signal)")
        let result = watch.result(timedOut: false)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty, "lines after the last change: \(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        try daemon.stopCleanly()
    }

    @Test("watch --json prints valid state lines: the state, then each change")
    func watchJSON() throws {
        let daemon = try DaemonHarness()
        let watch = try Self.start(daemon, ["watch", "--json"])
        let first = try StateLine(parsing: try #require(watch.readLine(timeout: 5), "stderr: \(watch.stderr)"))
        #expect(first.allowed == Self.all && first.locked == nil && first.sensor == "absent", "\(first)")

        let other = try daemon.connect()
        #expect(try other.request(#"{"op":"constrain","id":"app","allow":["right-up"]}"#).type == "ok")
        let second = try StateLine(parsing: try #require(watch.readLine(timeout: 5)))
        #expect(second.allowed == ["right-up"] && second.orientation == "right-up", "\(second)")
        #expect(try Message(second.raw).content == daemon.freshState().content)
        other.close()  // the constraint vanishes with the connection
        let third = try StateLine(parsing: try #require(watch.readLine(timeout: 5)))
        #expect(third.allowed == Self.all, "\(third)")
        #expect(third.tMs >= second.tMs && second.tMs >= first.tMs)

        watch.send(signal: SIGINT)
        #expect(watch.waitForExit(timeout: 5), "watch --json did not exit on SIGINT")
        #expect(watch.status == 0, "\(watch.result(timedOut: false))")
        try daemon.stopCleanly()
    }

    @Test("watch keeps going when the daemon restarts: the new daemon's changes are printed too")
    func watchAcrossRestart() throws {
        let workspace = try DaemonHarness.Workspace()
        let first = try DaemonHarness(workspace: workspace)
        let watch = try OrientctlProcess(["--socket", workspace.socketPath, "watch"])
        #expect(watch.readLine(timeout: 5) == Self.initialSummary, "stderr: \(watch.stderr)")
        try first.stopCleanly()
        #expect(!watch.waitForExit(timeout: 0.2), "watch exited when the daemon stopped: \(watch.result(timedOut: false))")

        let second = try DaemonHarness(workspace: workspace)
        #expect(try second.connect().request(#"{"op":"lock","orientation":"bottom-up"}"#).type == "ok")
        let (match, read) = watch.readLine(timeout: 5) { $0.contains("locked bottom-up") }
        #expect(match?.hasPrefix("bottom-up (") == true, "watch printed \(read) after the restart; stderr: \(watch.stderr)")
        watch.send(signal: SIGTERM)
        #expect(watch.waitForExit(timeout: 5) && watch.status == 0, "\(watch.result(timedOut: false))")
        try second.stopCleanly()
    }

    // MARK: lock and unlock

    @Test("lock left-up, lock (current), lock current and unlock: each exits 0 and get shows the lock")
    func lockAndUnlock() throws {
        let daemon = try DaemonHarness()
        func state() throws -> Message {
            let run = try Self.ctl(daemon, ["--json", "get"])
            #expect(run.status == 0, "\(run)")
            return try Message(try #require(run.lines.first, "\(run)"))
        }

        var run = try Self.ctl(daemon, ["lock", "left-up"])
        #expect(run.status == 0 && run.lines == ["rotation locked at left-up (was unlocked)"] && run.stderr.isEmpty, "\(run)")
        var now = try state()
        #expect(now.locked == "left-up" && now.orientation == "left-up", "\(now)")

        run = try Self.ctl(daemon, ["unlock"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        now = try state()
        #expect(now.hasNullLock, "\(now)")

        // `lock` with no argument locks the current (effective) orientation.
        let app = try daemon.connect()
        #expect(try app.request(#"{"op":"constrain","id":"app","allow":["right-up"]}"#).type == "ok")
        run = try Self.ctl(daemon, ["lock"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        now = try state()
        #expect(now.locked == "right-up" && now.orientation == "right-up", "\(now)")
        // The lock outlives the constraint that made right-up current.
        app.close()
        now = try daemon.eventuallyState { $0.allowed == Self.all }
        #expect(now.locked == "right-up" && now.orientation == "right-up", "\(now)")

        #expect(try daemon.connect().request(#"{"op":"lock","orientation":"bottom-up"}"#).type == "ok")
        run = try Self.ctl(daemon, ["lock", "current"])
        #expect(run.status == 0, "\(run)")
        now = try state()
        #expect(now.locked == "bottom-up" && now.orientation == "bottom-up", "\(now)")

        run = try Self.ctl(daemon, ["unlock"])
        #expect(run.status == 0, "\(run)")
        #expect(try state().hasNullLock)
        try daemon.stopCleanly()
    }

    @Test("lock with a name that is not an orientation exits 64 and changes nothing", arguments: [
        "sideways", "undefined", "landscape", "Left-Up",
    ])
    func lockBadName(name: String) throws {
        let daemon = try DaemonHarness()
        let run = try Self.ctl(daemon, ["lock", name])
        #expect(run.status == Orientctl.usage, "\(run)")
        #expect(run.stdout.isEmpty && run.stderr.contains(name), "\(run)")
        #expect(try daemon.freshState().hasNullLock)
        try daemon.stopCleanly()
    }

    @Test(
        "with lock-permission = root, lock and unlock run as uid nobody exit 77 and leave the lock alone",
        .enabled(if: Orientctl.canRunAsNobody, "needs root and /usr/bin/setpriv to run orientctl as nobody"))
    func lockNotPermitted() throws {
        let daemon = try DaemonHarness(config: DaemonHarness.defaultConfig + "[daemon]\nlock-permission = root\n")
        chmod(daemon.workspace.path, 0o755)  // let uid 65534 reach the socket
        #expect(try Self.ctl(daemon, ["lock", "right-up"]).status == 0)
        for arguments in [["lock", "left-up"], ["lock"], ["unlock"]] {
            let run = try Self.ctl(daemon, arguments, launcher: Orientctl.asNobody)
            #expect(run.status == Orientctl.noPermission, "\(arguments): \(run)")
            #expect(run.stdout.isEmpty && run.stderr.contains("not-permitted"), "\(arguments): \(run)")
        }
        // Reading is for everyone.
        let get = try Self.ctl(daemon, ["get"], launcher: Orientctl.asNobody)
        #expect(get.status == 0 && get.lines.first?.contains("locked right-up") == true, "\(get)")
        #expect(try daemon.freshState().locked == "right-up")
        try daemon.stopCleanly()
    }

    // MARK: hold

    @Test("hold landscape -- COMMAND: another client's get shows the landscape set while it runs, all after")
    func holdWhileRunning() throws {
        let daemon = try DaemonHarness()
        let gate = daemon.workspace.file("go")
        let hold = try Self.start(daemon, [
            "hold", "landscape", "--", "sh", "-c", "while [ ! -e \"$1\" ]; do sleep 0.01; done", "sh", gate,
        ])
        let during = try Self.waitForAllowed(daemon, Self.landscape)
        #expect(during.allowed == Self.landscape && during.orientation == "left-up", "\(during); \(hold.stderr)")
        #expect(try daemon.freshState().allowed == Self.landscape, "the constraint did not last while the command ran")
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        #expect(hold.waitForExit(timeout: 5), "hold did not exit after its command")
        #expect(hold.status == 0, "\(hold.result(timedOut: false))")
        // The release is acknowledged before orientctl exits.
        #expect(try daemon.freshState().allowed == Self.all)
        try daemon.stopCleanly()
    }

    @Test("hold landscape -- sleep 0.3: a subscriber sees the landscape set, then all again; exit 0")
    func holdSleep() throws {
        let daemon = try DaemonHarness()
        let watcher = try daemon.subscriber()
        let run = try Self.ctl(daemon, ["hold", "landscape", "--", "sleep", "0.3"])
        #expect(run.status == 0 && run.stdout.isEmpty, "\(run)")
        #expect(run.stderr == "orientctl: allowing only landscape while sleep runs\n", "\(run)")
        let held = try watcher.read(until: { $0.type == "state" && $0.allowed == Self.landscape })
        #expect(held.skipped.isEmpty, "states before the constraint: \(held.skipped)")
        let released = try watcher.read(until: { $0.type == "state" && $0.allowed == Self.all })
        #expect(released.skipped.isEmpty, "states between hold and release: \(released.skipped)")
        #expect(try daemon.freshState().allowed == Self.all)
        try daemon.stopCleanly()
    }

    @Test("hold exits with its command's status", arguments: [0, 3, 42, 255] as [Int32])
    func holdExitStatus(code: Int32) throws {
        let daemon = try DaemonHarness()
        let run = try Self.ctl(daemon, ["hold", "landscape", "--", "sh", "-c", "exit \(code)"])
        #expect(run.status == code, "\(run)")
        #expect(try daemon.freshState().allowed == Self.all)
        try daemon.stopCleanly()
    }

    @Test("hold takes a comma-separated mask, and the command's arguments as given")
    func holdMaskList() throws {
        let daemon = try DaemonHarness()
        let out = daemon.workspace.file("args")
        let run = try Self.ctl(daemon, [
            "hold", "normal,right-up", "--", "sh", "-c", "printf '%s|' \"$@\" > \"$0\"", out, "a b", "--json", "-x",
        ])
        #expect(run.status == 0, "\(run)")
        #expect(daemon.workspace.read(out) == "a b|--json|-x|", "arguments reached the command as \(daemon.workspace.read(out) ?? "nil")")
        let gate = daemon.workspace.file("go")
        let hold = try Self.start(daemon, [
            "hold", "normal,right-up", "--", "sh", "-c", "while [ ! -e \"$1\" ]; do sleep 0.01; done", "sh", gate,
        ])
        let during = try Self.waitForAllowed(daemon, ["normal", "right-up"])
        #expect(during.allowed == ["normal", "right-up"], "\(during); \(hold.stderr)")
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        #expect(hold.waitForExit(timeout: 5) && hold.status == 0, "\(hold.result(timedOut: false))")
        try daemon.stopCleanly()
    }

    @Test("when orientctl hold is SIGKILLed, the daemon drops its constraint")
    func holdKilled() throws {
        let daemon = try DaemonHarness()
        let pidFile = daemon.workspace.file("child.pid")
        let hold = try Self.start(daemon, [
            "hold", "landscape", "--", "sh", "-c", "echo $$ > \"$1\"; exec sleep 30 </dev/null >/dev/null 2>&1", "sh",
            pidFile,
        ])
        var child: Int32?
        defer { if let child { kill(child, SIGKILL) } }
        #expect(Orientctl.poll(timeout: 5) { Orientctl.pid(in: pidFile) != nil }, "the command did not start")
        child = Orientctl.pid(in: pidFile)
        #expect(try Self.waitForAllowed(daemon, Self.landscape).allowed == Self.landscape)

        hold.kill()
        #expect(hold.status == 128 + SIGKILL)
        let after = try Self.waitForAllowed(daemon, Self.all)
        #expect(after.allowed == Self.all, "the constraint outlived the killed orientctl: \(after)")
        try daemon.stopCleanly()
    }

    @Test("when the held command is killed by signal N, hold exits 128+N and releases", arguments: [
        SIGTERM, SIGKILL, SIGINT, SIGUSR1,
    ])
    func holdCommandKilled(signal: Int32) throws {
        let daemon = try DaemonHarness()
        let run = try Self.ctl(daemon, ["hold", "landscape", "--", "sh", "-c", "kill -\(signal) $$"])
        #expect(run.status == 128 + signal, "\(run)")
        #expect(try daemon.freshState().allowed == Self.all)
        try daemon.stopCleanly()
    }

    @Test("a signal sent to orientctl hold goes to the command; the constraint is released; exit 128+N",
        arguments: [SIGTERM, SIGINT, SIGHUP])
    func holdForwardsSignal(signal: Int32) throws {
        let daemon = try DaemonHarness()
        let pidFile = daemon.workspace.file("child.pid")
        let hold = try Self.start(daemon, [
            "hold", "landscape", "--", "sh", "-c", "echo $$ > \"$1\"; exec sleep 30", "sh", pidFile,
        ])
        var child: Int32?
        defer { if let child { kill(child, SIGKILL) } }
        #expect(Orientctl.poll(timeout: 5) { Orientctl.pid(in: pidFile) != nil }, "the command did not start")
        child = Orientctl.pid(in: pidFile)
        // The pid file is written after the constraint was acknowledged.
        #expect(try daemon.freshState().allowed == Self.landscape)

        hold.send(signal: signal)
        #expect(hold.waitForExit(timeout: 5), "hold did not exit after signal \(signal)")
        #expect(hold.status == 128 + signal, "\(hold.result(timedOut: false))")
        if let child {
            #expect(Orientctl.poll(timeout: 2) { !Orientctl.isAlive(child) }, "the command outlived orientctl")
        }
        #expect(try Self.waitForAllowed(daemon, Self.all).allowed == Self.all)
        try daemon.stopCleanly()
    }

    @Test("a signal sent to orientctl hold reaches a command that traps it, whose exit status hold returns",
        arguments: [SIGTERM, SIGINT, SIGHUP])
    func holdSignalTrapped(signal: Int32) throws {
        let daemon = try DaemonHarness()
        let pidFile = daemon.workspace.file("child.pid")
        let hold = try Self.start(daemon, [
            "hold", "landscape", "--", "sh", "-c",
            "trap 'exit 9' \(signal); echo $$ > \"$1\"; while :; do sleep 0.01; done", "sh", pidFile,
        ])
        var child: Int32?
        defer { if let child { kill(child, SIGKILL) } }
        #expect(Orientctl.poll(timeout: 5) { Orientctl.pid(in: pidFile) != nil }, "the command did not start")
        child = Orientctl.pid(in: pidFile)
        hold.send(signal: signal)
        #expect(hold.waitForExit(timeout: 5), "hold did not exit after signal \(signal)")
        // 9 comes from the command's trap: orientctl did not die of the signal, it passed it on.
        #expect(hold.status == 9, "\(hold.result(timedOut: false))")
        #expect(try daemon.freshState().allowed == Self.all)
        try daemon.stopCleanly()
    }

    @Test("hold's constraint is registered again when the daemon restarts while the command runs")
    func holdAcrossRestart() throws {
        let workspace = try DaemonHarness.Workspace()
        let first = try DaemonHarness(workspace: workspace)
        let gate = workspace.file("go")
        let hold = try OrientctlProcess([
            "--socket", workspace.socketPath, "hold", "landscape", "--", "sh", "-c",
            "while [ ! -e \"$1\" ]; do sleep 0.01; done; exit 5", "sh", gate,
        ])
        #expect(try Self.waitForAllowed(first, Self.landscape).allowed == Self.landscape, "\(hold.stderr)")
        try first.stopCleanly()

        let second = try DaemonHarness(workspace: workspace)
        let restored = try Self.waitForAllowed(second, Self.landscape)
        #expect(restored.allowed == Self.landscape, "the held constraint did not come back after the restart: \(restored)")
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        #expect(hold.waitForExit(timeout: 5), "hold did not exit after its command")
        #expect(hold.status == 5, "\(hold.result(timedOut: false))")
        #expect(try second.freshState().allowed == Self.all, "the constraint outlived hold on the new daemon")
        try second.stopCleanly()
    }

    @Test("hold still exits with its command's status when the daemon is gone by the time it ends")
    func holdDaemonGone() throws {
        let daemon = try DaemonHarness()
        let gate = daemon.workspace.file("go")
        let hold = try Self.start(daemon, [
            "hold", "landscape", "--", "sh", "-c", "while [ ! -e \"$1\" ]; do sleep 0.01; done; exit 7", "sh", gate,
        ])
        #expect(try Self.waitForAllowed(daemon, Self.landscape).allowed == Self.landscape, "\(hold.stderr)")
        try daemon.stopCleanly()
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        #expect(hold.waitForExit(timeout: 5), "hold did not exit after its command")
        #expect(hold.status == 7, "\(hold.result(timedOut: false))")
    }

    @Test("hold with a bad mask exits 64 and runs nothing", arguments: [
        "sideways", "landscape,", "", "Landscape", "landscape,up",
    ])
    func holdBadMask(mask: String) throws {
        let daemon = try DaemonHarness()
        let marker = daemon.workspace.file("ran")
        let run = try Self.ctl(daemon, ["hold", mask, "--", "touch", marker])
        #expect(run.status == Orientctl.usage, "\(run)")
        #expect(!run.stderr.isEmpty, "\(run)")
        #expect(!DaemonHarness.pathExists(marker), "the command ran")
        try daemon.stopCleanly()
    }

    @Test("hold without a command, or with no MASK, exits 64", arguments: [
        ["hold", "landscape"], ["hold", "landscape", "--"], ["hold"], ["hold", "--", "true"],
    ])
    func holdUsage(arguments: [String]) throws {
        let daemon = try DaemonHarness()
        let run = try Self.ctl(daemon, arguments)
        #expect(run.status == Orientctl.usage, "\(run)")
        try daemon.stopCleanly()
    }

    @Test("hold with a command that does not exist exits 127 and releases", arguments: [
        "/nonexistent/orientctl-test-command", "orientctl-test-no-such-command",
    ])
    func holdMissingCommand(command: String) throws {
        let daemon = try DaemonHarness()
        let run = try Self.ctl(daemon, ["hold", "landscape", "--", command, "arg"])
        #expect(run.status == Orientctl.notFound, "\(run)")
        #expect(run.stderr.contains(command), "\(run)")
        #expect(try daemon.freshState().allowed == Self.all)
        try daemon.stopCleanly()
    }

    // MARK: record

    @Test("record FILE --duration 1 writes a trace with the source's mount matrix that orientd replays")
    func recordTrace() throws {
        let source = DaemonHarness.trace("demo-rotated-matrix.trace")
        let daemon = try DaemonHarness(["--mock", source, "--loop", "--speed", "5"])
        let file = daemon.workspace.file("recorded.trace")
        let run = try Self.ctl(daemon, ["record", file, "--duration", "1"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
        let text = try #require(daemon.workspace.read(file), "no file written: \(run)")
        let headerLines = text.split(separator: "\n").prefix { $0.hasPrefix("#") }
        #expect(headerLines.contains { $0.hasPrefix("# mount_matrix:") }, "header: \(headerLines)")
        #expect(text.contains("\nt_ms,x,y,z\n"), "no column line: \(text.prefix(400))")

        let recorded = try readTrace(file)
        let original = try readTrace(source)
        #expect(recorded.mountMatrix == original.mountMatrix, "\(recorded.mountMatrix) vs \(original.mountMatrix)")
        #expect(!recorded.mountMatrix.isIdentity)
        // 1 s at 5× speed of a 20 Hz trace is about 100 samples.
        #expect(recorded.samples.count >= 20, "only \(recorded.samples.count) samples")
        // Samples are in the sensor frame, as the source has them (not rotated by the matrix).
        let known = Set(original.samples.map { "\($0.vector.x),\($0.vector.y),\($0.vector.z)" })
        let foreign = recorded.samples.filter { !known.contains("\($0.vector.x),\($0.vector.y),\($0.vector.z)") }
        #expect(foreign.isEmpty, "\(foreign.count) recorded samples are not in the source, e.g. \(foreign.prefix(3))")

        let replay = try runOrientd([
            "--mock", file, "--speed", "max", "--print", "--exit-at-end", "--config", daemon.workspace.configPath,
        ])
        #expect(replay.status == 0, "\(replay)")
        #expect(!replay.lines.isEmpty, "the replay printed no state")
        try daemon.stopCleanly()
    }

    @Test("record without --duration stops on SIGINT or SIGTERM with exit 0, leaving a valid trace", arguments: [
        SIGINT, SIGTERM,
    ])
    func recordUntilSignal(signal: Int32) throws {
        let daemon = try DaemonHarness(["--mock", DaemonHarness.trace("demo.trace"), "--loop", "--speed", "5"])
        let file = daemon.workspace.file("recorded.trace")
        let record = try Self.start(daemon, ["record", file])
        let sampleLines = { Self.recording(file).split(separator: "\n").count { $0.first?.isNumber == true } }
        #expect(Orientctl.poll(timeout: 5) { sampleLines() >= 10 }, "no samples recorded: \(record.stderr)")
        record.send(signal: signal)
        #expect(record.waitForExit(timeout: 5), "record did not stop on signal \(signal)")
        #expect(record.status == 0, "\(record.result(timedOut: false))")
        let trace = try readTrace(file)
        #expect(trace.samples.count >= 10 && trace.mountMatrix.isIdentity)
        try daemon.stopCleanly()
    }

    @Test("record - writes the trace to standard output")
    func recordToStandardOutput() throws {
        let daemon = try DaemonHarness(["--mock", DaemonHarness.trace("demo.trace"), "--loop", "--speed", "5"])
        let run = try Self.ctl(daemon, ["record", "-", "--duration", "0.5"])
        #expect(run.status == 0, "\(run.status) \(run.stderr)")
        let trace = try TraceReader.parse(Data(run.stdout.utf8), file: "<orientctl stdout>")
        #expect(trace.samples.count >= 5, "\(trace.samples.count) samples")
        #expect(run.stdout.hasPrefix("# orientd-trace: 1\n"), "\(run.stdout.prefix(200))")
        try daemon.stopCleanly()
    }

    @Test("record stops with exit 69 when the daemon restarts (its sample clock goes back), the file still a valid trace")
    func recordAcrossRestart() throws {
        let workspace = try DaemonHarness.Workspace()
        let mock = ["--mock", DaemonHarness.trace("demo.trace"), "--loop", "--speed", "5"]
        let first = try DaemonHarness(mock, workspace: workspace)
        let file = workspace.file("recorded.trace")
        let record = try OrientctlProcess(["--socket", workspace.socketPath, "record", file])
        // Far enough into the trace that the new daemon's clock (from 0) is behind it.
        let lastTime = { () -> Double in
            let text = Self.recording(file)
            let last = text.split(separator: "\n").last { $0.first?.isNumber == true }
            return last.flatMap { Double($0.prefix { $0 != "," }) } ?? 0
        }
        #expect(Orientctl.poll(timeout: 5) { lastTime() >= 1000 }, "no samples recorded: \(record.stderr)")
        try first.stopCleanly()
        let second = try DaemonHarness(mock, workspace: workspace)
        #expect(record.waitForExit(timeout: 5), "record kept going across the restart")
        #expect(record.status == Orientctl.unavailable, "\(record.result(timedOut: false))")
        let trace = try readTrace(file)
        #expect(!trace.samples.isEmpty)
        try second.stopCleanly()
    }

    @Test("record exits 0 only with a trace orientd can replay, even against a daemon without a sensor")
    func recordWithoutSensor() throws {
        let daemon = try DaemonHarness()  // no --mock: sensor absent, so no sample ever comes
        let file = daemon.workspace.file("recorded.trace")
        let run = try Self.ctl(daemon, ["record", file, "--duration", "0.3"])
        var replay: OrientdRun?
        if run.status == 0 {
            replay = try runOrientd([
                "--mock", file, "--speed", "max", "--print", "--exit-at-end", "--config", daemon.workspace.configPath,
            ])
        }
        // Record must fail (non-zero, a message on stderr) when no sample arrived.
        #expect(
            run.status != 0 || replay?.status == 0,
            "record exited \(run.status); the replay: \(replay.map { "\($0)" } ?? "not run")")
        try daemon.stopCleanly()
    }

    @Test("record to an unwritable path exits 74 and names it", arguments: [
        "/nonexistent-orientctl-dir/recorded.trace", "<workspace>",
    ])
    func recordUnwritable(path: String) throws {
        let daemon = try DaemonHarness(["--mock", DaemonHarness.trace("demo.trace"), "--loop", "--speed", "5"])
        let target = path == "<workspace>" ? daemon.workspace.path : path  // a directory
        let run = try Self.ctl(daemon, ["record", target, "--duration", "1"])
        #expect(run.status == Orientctl.ioError, "\(run)")
        #expect(run.stderr.contains(target), "\(run)")
        try daemon.stopCleanly()
    }

    // MARK: help and usage

    @Test("--help of orientctl and of every command exits 0 and prints its usage on stdout", arguments: [
        [], ["get"], ["watch"], ["lock"], ["unlock"], ["hold"], ["record"], ["status"],
    ])
    func help(command: [String]) throws {
        for arguments in [command + ["--help"], command + ["-h"]] {
            let run = try runOrientctl(arguments)
            #expect(run.status == 0, "\(arguments): \(run)")
            let expected = command.isEmpty ? "usage: orientctl " : "usage: orientctl [--socket PATH] \(command[0])"
            #expect(run.stdout.hasPrefix(expected), "\(arguments): \(run)")
            #expect(run.stderr.isEmpty, "\(arguments): \(run)")
        }
    }

    @Test("an unknown command, no command or an unknown option exits 64 with a message on stderr", arguments: [
        ["frobnicate"], [], ["--bogus", "get"], ["get", "extra"], ["unlock", "now"], ["watch", "--duration", "1"],
        ["record"], ["record", "f", "--duration", "0"], ["--socket"],
    ])
    func usageErrors(arguments: [String]) throws {
        let run = try runOrientctl(arguments)
        #expect(run.status == Orientctl.usage, "\(arguments): \(run)")
        #expect(run.stdout.isEmpty, "\(arguments): \(run)")
        #expect(run.stderr.hasPrefix("orientctl: "), "\(arguments): \(run)")
    }
}
