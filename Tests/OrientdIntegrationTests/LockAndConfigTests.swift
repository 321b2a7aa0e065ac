import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The persisted rotation lock, the lock permission policy, the configuration
/// file and the daemon's lifetime around its socket (docs/protocol.md, docs/configuration.md, orientd(8)).
@Suite("Rotation lock and configuration")
struct LockAndConfigTests {
    typealias Message = DaemonHarness.Message
    typealias Workspace = DaemonHarness.Workspace

    static let landscapeDefault = "[orientation]\nnatural = portrait\ndefault-allowed = landscape\n"

    // MARK: The persisted lock

    @Test("the lock survives a daemon restart on the same state directory, and unlock removes it for good")
    func lockSurvivesRestart() throws {
        let workspace = try Workspace()
        let first = try DaemonHarness(workspace: workspace)
        #expect(try first.connect().request(#"{"op":"lock","orientation":"right-up","seq":1}"#).raw == #"{"type":"ok","seq":1}"#)
        try first.stopCleanly()
        let file = try #require(workspace.read(workspace.lockFile), "no lock file in \(workspace.stateDirectory)")
        #expect(file.split(separator: "\n").first == "right-up", "lock file: \(file.debugDescription)")

        let second = try DaemonHarness(workspace: workspace)
        let state = try second.freshState()
        #expect(state.locked == "right-up" && state.orientation == "right-up", "after restart: \(state)")
        #expect(!second.stderr.contains("warning"), "\(second.stderr)")
        #expect(try second.connect().request(#"{"op":"unlock"}"#).type == "ok")
        #expect(Self.eventually { !DaemonHarness.pathExists(workspace.lockFile) }, "unlock leaves the lock file behind")
        try second.stopCleanly()

        let third = try DaemonHarness(workspace: workspace)
        #expect(try third.freshState().hasNullLock)
        try third.stopCleanly()
    }

    /// Waits until `condition` holds; false at the deadline.
    static func eventually(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            usleep(2000)
        }
        return true
    }

    @Test(
        "the lock file is replaced atomically and at most once a second: a reader never sees it missing, empty or half-written"
    )
    func lockFileIsAtomic() throws {
        let workspace = try Workspace()
        let daemon = try DaemonHarness(workspace: workspace)
        let client = try daemon.connect()
        #expect(try client.request(#"{"op":"lock","orientation":"left-up"}"#).type == "ok")
        #expect(Self.eventually { workspace.read(workspace.lockFile) != nil }, "the first lock was never written")
        let started = ContinuousClock.now
        var inodes = Set<UInt64>()
        var reads = 0
        var torn: [String] = []
        func inspect() {
            reads += 1
            guard let text = workspace.read(workspace.lockFile) else {
                torn.append("<missing>")
                return
            }
            let first = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init)
            if first != "left-up" && first != "right-up" || !text.hasSuffix("\n") { torn.append(text.debugDescription) }
            var info = stat()
            if stat(workspace.lockFile, &info) == 0 { inodes.insert(UInt64(info.st_ino)) }
        }
        // At least 200 locks, and on until the file was replaced (the writes
        // are at most a second apart).
        var round = 0
        while round < 200 || (inodes.count < 2 && ContinuousClock.now - started < .seconds(5)) {
            defer { round += 1 }
            let name = round % 2 == 0 ? "right-up" : "left-up"
            try client.send(#"{"op":"lock","orientation":"\#(name)","seq":\#(round)}"#)
            // Read the file as fast as possible while the daemon rewrites it.
            var entry = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
            repeat {
                inspect()
                entry.revents = 0
            } while poll(&entry, 1, 0) == 0
            let reply = try client.read()
            #expect(reply.seq == Int64(round) && reply.type == "ok", "\(reply)")
            inspect()
        }
        #expect(torn.isEmpty, "\(torn.count) of \(reads) reads saw a torn lock file, e.g. \(torn.prefix(3))")
        #expect(inodes.count > 1, "the lock file was rewritten in place (one inode), not renamed over")
        let seconds = Double((ContinuousClock.now - started).components.seconds) + 1
        #expect(Double(inodes.count) <= seconds + 1, "\(inodes.count) rewrites for \(round) locks in about \(seconds) s")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: workspace.stateDirectory)
        #expect(leftovers == ["lock"], "temporary files left behind: \(leftovers)")
        try daemon.stopCleanly()
    }

    /// A lock file the daemon must not trust.
    struct CorruptLock: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var bytes: [UInt8]
    }

    static let corruptLocks: [CorruptLock] = [
        CorruptLock(testDescription: "an unknown name", bytes: Array("sideways\n".utf8)),
        CorruptLock(testDescription: "undefined", bytes: Array("undefined\n".utf8)),
        CorruptLock(testDescription: "an empty file", bytes: []),
        CorruptLock(testDescription: "binary garbage", bytes: [0xFF, 0x00, 0xFE, 0x0A, 0x80, 0x81]),
        CorruptLock(testDescription: "a name with a different case", bytes: Array("Left-Up\n".utf8)),
    ]

    @Test("a corrupt lock file gives a warning naming it and the daemon starts unlocked", arguments: corruptLocks)
    func corruptLockFile(lock: CorruptLock) throws {
        let workspace = try Workspace()
        try workspace.write("state/lock", lock.bytes)
        let daemon = try DaemonHarness(workspace: workspace)
        #expect(daemon.waitForStderr(containing: workspace.lockFile), "no warning naming the lock file: \(daemon.stderr)")
        #expect(daemon.stderr.contains("warning"), "\(daemon.stderr)")
        let state = try daemon.freshState()
        #expect(state.hasNullLock, "\(state)")
        // A new lock replaces the corrupt file.
        #expect(try daemon.connect().request(#"{"op":"lock","orientation":"bottom-up"}"#).type == "ok")
        #expect(Self.eventually { workspace.read(workspace.lockFile)?.hasPrefix("bottom-up\n") == true })
        try daemon.stopCleanly()
    }

    // MARK: lock-permission

    @Test("lock-permission = root lets uid 0 lock and unlock")
    func rootMayLock() throws {
        let daemon = try DaemonHarness(config: DaemonHarness.defaultConfig + "[daemon]\nlock-permission = root\n")
        let client = try daemon.connect()
        let reply = try client.request(#"{"op":"lock","orientation":"left-up","seq":1}"#)
        if getuid() == 0 {
            #expect(reply.raw == #"{"type":"ok","seq":1}"#)
            #expect(try client.request(#"{"op":"unlock","seq":2}"#).raw == #"{"type":"ok","seq":2}"#)
        } else {
            #expect(reply.type == "error" && reply.code == "not-permitted" && reply.seq == 1, "\(reply)")
            #expect(try client.request(#"{"op":"get"}"#).hasNullLock)
        }
        try daemon.stopCleanly()
    }

    static let canSwitchUser =
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/perl")

    /// Sends `requests` from a client running as `nobody` (uid 65534, through
    /// setpriv and a perl one-liner: the daemon reads the uid with SO_PEERCRED at
    /// connect time) and returns the lines it got: hello, then one reply each.
    static func asNobody(_ daemon: DaemonHarness, _ requests: [String]) throws -> [Message] {
        chmod(daemon.workspace.path, 0o755)  // let uid 65534 reach the socket
        let script = #"""
            alarm 10;
            socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
            connect($s, pack_sockaddr_un(shift @ARGV)) or die "connect: $!";
            select((select($s), $| = 1)[0]);
            my $line = <$s>; print $line;
            for my $r (@ARGV) { print $s "$r\n"; $line = <$s>; print $line; }
            """#
        let output = daemon.workspace.file("nobody-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments =
            ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/perl", "-MSocket", "-e", script, daemon.socketPath]
            + requests
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle(forWritingAtPath: output)
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        guard done.wait(timeout: .now() + 15) == .success else {
            kill(process.processIdentifier, SIGKILL)
            throw DaemonHarnessError("the client running as nobody hung")
        }
        let text = daemon.workspace.read(output) ?? ""
        guard process.terminationStatus == 0 else { throw DaemonHarnessError("the client running as nobody failed: \(text)") }
        let lines = text.split(separator: "\n").map(String.init)
        guard lines.count == requests.count + 1 else { throw DaemonHarnessError("expected \(requests.count + 1) lines, got \(text)") }
        return try lines.map(Message.init)
    }

    @Test(
        "lock-permission = root: a client running as another uid gets not-permitted and the lock is unchanged",
        .enabled(if: canSwitchUser, "needs root, /usr/bin/setpriv and /usr/bin/perl to run a client as nobody"))
    func nonRootMayNotLock() throws {
        let daemon = try DaemonHarness(config: DaemonHarness.defaultConfig + "[daemon]\nlock-permission = root\n")
        #expect(try daemon.connect().request(#"{"op":"lock","orientation":"right-up"}"#).type == "ok")
        let replies = try Self.asNobody(daemon, [
            #"{"op":"lock","orientation":"left-up","seq":1}"#, #"{"op":"unlock","seq":2}"#, #"{"op":"get","seq":3}"#,
            #"{"op":"constrain","id":"app","allow":["all"],"seq":4}"#,
        ])
        #expect(replies[0].type == "hello")
        for (reply, seq) in zip(replies[1...2], [1, 2] as [Int64]) {
            #expect(reply.type == "error" && reply.code == "not-permitted" && reply.seq == seq, "\(reply)")
            #expect(reply.keys == ["type", "seq", "code", "message"])
        }
        #expect(replies[3].seq == 3 && replies[3].locked == "right-up", "others may still read the state: \(replies[3])")
        #expect(replies[4].code == "not-permitted" && replies[4].seq == 4, "nor may they constrain (the seat's): \(replies[4])")
        let state = try daemon.freshState()
        #expect(state.locked == "right-up", "\(state)")
        #expect(daemon.workspace.read(daemon.workspace.lockFile)?.hasPrefix("right-up\n") == true)
        try daemon.stopCleanly()
    }

    @Test(
        "lock-permission = same-user: a uid off the seat can neither take the lock nor change root's",
        .enabled(if: canSwitchUser, "needs root, /usr/bin/setpriv and /usr/bin/perl to run a client as nobody"))
    func sameUserLock() throws {
        let daemon = try DaemonHarness(config: DaemonHarness.defaultConfig + "[daemon]\nlock-permission = same-user\n")
        let root = try daemon.connect()
        // Unlocked: nobody is not the seat, so it cannot squat the lock.
        var replies = try Self.asNobody(daemon, [#"{"op":"lock","orientation":"left-up","seq":1}"#])
        #expect(replies.dropFirst().map(\.code) == ["not-permitted"], "\(replies)")
        #expect(try root.request(#"{"op":"get"}"#).hasNullLock)
        // Root may always; then the lock is root's.
        #expect(try root.request(#"{"op":"lock","orientation":"bottom-up"}"#).type == "ok")
        replies = try Self.asNobody(daemon, [#"{"op":"unlock","seq":3}"#, #"{"op":"lock","orientation":"normal","seq":4}"#])
        #expect(replies.dropFirst().map(\.code) == ["not-permitted", "not-permitted"], "\(replies)")
        #expect(try root.request(#"{"op":"get"}"#).locked == "bottom-up")
        #expect(try root.request(#"{"op":"unlock"}"#).type == "ok")
        try daemon.stopCleanly()
    }

    // MARK: Configuration errors

    /// A broken config and the line its error must name.
    struct BadConfig: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var text: String
        var line: Int
    }

    static let badConfigs: [BadConfig] = [
        BadConfig(testDescription: "an unknown key", text: "[orientation]\nnatural = portrait\nrotate-faster = yes\n", line: 3),
        BadConfig(testDescription: "a bad number", text: "# settings\n[classifier]\nsensitivity = fast\n", line: 3),
        BadConfig(testDescription: "a number with a comma", text: "[classifier]\n\nsensitivity = 0,5\n", line: 3),
        BadConfig(testDescription: "an unknown mask name", text: "[orientation]\ndefault-allowed = sideways\n", line: 2),
        BadConfig(testDescription: "an unknown section", text: "[orientation]\nnatural = portrait\n[display]\n", line: 3),
        BadConfig(testDescription: "a key outside a section", text: "natural = portrait\n", line: 1),
        BadConfig(testDescription: "a duplicate key", text: "[limits]\nclients = 4\nclients = 5\n", line: 3),
        BadConfig(testDescription: "a limit out of range", text: "[limits]\nclients = 0\n", line: 2),
        BadConfig(testDescription: "a bad lock-permission", text: "[daemon]\nlock-permission = everyone\n", line: 2),
        BadConfig(testDescription: "a line that is not key = value", text: "[daemon]\nlog-level\n", line: 2),
    ]

    @Test("a config error stops startup with exit 78 and file:line: on stderr", arguments: badConfigs)
    func configErrorExits78(bad: BadConfig) throws {
        let daemon = try DaemonHarness(config: bad.text, waitForSocket: false)
        #expect(daemon.waitForExit(), "orientd did not exit on a bad config")
        #expect(daemon.exitStatus == 78, "exit \(daemon.exitStatus); stderr: \(daemon.stderr)")
        #expect(daemon.stderr.contains("\(daemon.workspace.configPath):\(bad.line): "), "stderr: \(daemon.stderr)")
        #expect(!DaemonHarness.pathExists(daemon.socketPath), "a bad config must stop startup before the socket")
    }

    @Test("--config naming a file that does not exist exits 66 and names it")
    func missingConfigExits66() throws {
        let workspace = try Workspace()
        let missing = workspace.file("no-such.conf")
        let daemon = try DaemonHarness(["--config", missing], config: nil, workspace: workspace, waitForSocket: false)
        #expect(daemon.waitForExit())
        #expect(daemon.exitStatus == 66, "exit \(daemon.exitStatus); stderr: \(daemon.stderr)")
        #expect(daemon.stderr.contains(missing), "\(daemon.stderr)")
    }

    @Test("--check-config exits 0 for a good file (the shipped example too) and 78 for a bad one, serving nothing")
    func checkConfig() throws {
        let good = "[classifier]\nsensitivity = 0.5 # slower\nallow-upside-down = no\n[limits]\nclients = 16\n[daemon]\nlock-permission = same-user\n"
        let checked = try DaemonHarness(["--check-config"], config: good, waitForSocket: false)
        #expect(checked.waitForExit())
        #expect(checked.exitStatus == 0, "stderr: \(checked.stderr)")
        #expect(checked.stdout.contains("configuration OK"), "stdout: \(checked.stdout)")
        #expect(!DaemonHarness.pathExists(checked.socketPath))

        let example = DaemonHarness.packageRoot.appendingPathComponent("systemd/orientd.conf.example").path
        if FileManager.default.fileExists(atPath: example) {
            let shipped = try DaemonHarness(["--check-config", "--config", example], config: nil, waitForSocket: false)
            #expect(shipped.waitForExit())
            #expect(shipped.exitStatus == 0, "the shipped example does not check: \(shipped.stderr)")
        }

        let bad = try DaemonHarness(["--check-config"], config: "[classifier]\nsensitivity = -5\n", waitForSocket: false)
        #expect(bad.waitForExit())
        #expect(bad.exitStatus == 78, "stderr: \(bad.stderr)")
        #expect(bad.stderr.contains("\(bad.workspace.configPath):2: "), "stderr: \(bad.stderr)")
    }

    // MARK: SIGHUP

    @Test("SIGHUP with a good new config takes effect at once: the new default-allowed is published, new limits apply")
    func reloadTakesEffect() throws {
        let daemon = try DaemonHarness()
        let watcher = try daemon.subscriber()
        #expect(watcher.lastState?.allowed == DaemonHarness.all)

        try daemon.workspace.write("orientd.conf", Self.landscapeDefault + "[limits]\nconstraints-per-client = 1\n")
        daemon.send(signal: SIGHUP)
        let state = try watcher.read()
        #expect(state.allowed == ["left-up", "right-up"] && state.orientation == "left-up", "\(state)")
        #expect(daemon.waitForStderr(containing: "reloaded"), "\(daemon.stderr)")
        let app = try daemon.connect()
        #expect(try app.request(#"{"op":"constrain","id":"one","allow":["all"]}"#).type == "ok")
        let refused = try app.request(#"{"op":"constrain","id":"two","allow":["all"],"seq":2}"#)
        #expect(refused.code == "limit" && refused.seq == 2, "the reloaded limit does not apply: \(refused)")
        try daemon.stopCleanly()
    }

    @Test("a log-level reloaded with SIGHUP reaches the socket server: connections are logged at info from then on")
    func reloadedLogLevelReachesServer() throws {
        let daemon = try DaemonHarness()
        _ = try daemon.connect()
        try daemon.workspace.write("orientd.conf", DaemonHarness.defaultConfig + "[daemon]\nlog-level = info\n")
        daemon.send(signal: SIGHUP)
        #expect(daemon.waitForStderr(containing: "reloaded"), "\(daemon.stderr)")
        #expect(!daemon.stderr.contains(" connected"), "at notice, the first connection is not logged: \(daemon.stderr)")
        _ = try daemon.connect()
        #expect(daemon.waitForStderr(containing: " connected"), "the server still logs at notice: \(daemon.stderr)")
        try daemon.stopCleanly()
    }

    @Test("SIGHUP with a broken file keeps the running config: stderr names file:line, the daemon still serves")
    func reloadFailureKeepsConfig() throws {
        let daemon = try DaemonHarness(config: Self.landscapeDefault)
        let watcher = try daemon.subscriber()
        #expect(watcher.lastState?.allowed == ["left-up", "right-up"])

        try daemon.workspace.write("orientd.conf", "[orientation]\nnatural = portrait\ndefault-allowed = all\nbogus = 1\n")
        daemon.send(signal: SIGHUP)
        #expect(
            daemon.waitForStderr(containing: "\(daemon.workspace.configPath):4: "),
            "the failed reload must name file:line: \(daemon.stderr)")
        #expect(daemon.isRunning)
        // Nothing was published, the old default still holds.
        let reply = try watcher.request(#"{"op":"get","seq":5}"#)
        #expect(reply.seq == 5, "a state was published by a failed reload: \(reply)")
        #expect(reply.allowed == ["left-up", "right-up"], "the broken file's default-allowed took effect: \(reply)")
        #expect(try daemon.freshState().allowed == ["left-up", "right-up"])

        // Fixed, it loads.
        try daemon.workspace.write("orientd.conf", "[orientation]\nnatural = portrait\ndefault-allowed = all\n")
        daemon.send(signal: SIGHUP)
        #expect(try watcher.read().allowed == DaemonHarness.all)
        try daemon.stopCleanly()
    }

    // MARK: The socket and signals

    @Test("a stale socket file left by a killed daemon is replaced at start")
    func staleSocketReplaced() throws {
        let workspace = try Workspace()
        let killed = try DaemonHarness(workspace: workspace)
        killed.kill()
        #expect(killed.exitStatus == 128 + SIGKILL)
        #expect(DaemonHarness.isSocket(workspace.socketPath), "SIGKILL should leave the socket file")

        let next = try DaemonHarness(workspace: workspace)
        #expect(try next.freshState().type == "state")
        #expect(next.stderr.contains("stale"), "\(next.stderr)")
        try next.stopCleanly()
    }

    @Test("a second daemon on the same socket exits 69 and leaves the first one serving")
    func secondDaemonExits69() throws {
        let workspace = try Workspace()
        let first = try DaemonHarness(workspace: workspace)
        let watcher = try first.subscriber()
        let second = try DaemonHarness(workspace: workspace, waitForSocket: false)
        #expect(second.waitForExit(), "the second daemon did not exit")
        #expect(second.exitStatus == 69, "exit \(second.exitStatus); stderr: \(second.stderr)")
        #expect(second.stderr.contains(workspace.socketPath), "\(second.stderr)")

        #expect(DaemonHarness.isSocket(workspace.socketPath), "the second daemon removed the first one's socket")
        let client = try first.connect()
        #expect(try client.request(#"{"op":"constrain","id":"a","allow":["right-up"]}"#).type == "ok")
        #expect(try watcher.read().allowed == ["right-up"])
        try first.stopCleanly()
    }

    @Test("a socket path taken by a regular file is not replaced: startup fails and the file is intact")
    func socketPathIsAFile() throws {
        let workspace = try Workspace()
        try workspace.write("orientd.sock", "precious\n")
        let daemon = try DaemonHarness(workspace: workspace, waitForSocket: false)
        #expect(daemon.waitForExit())
        #expect(daemon.exitStatus != 0, "stderr: \(daemon.stderr)")
        #expect(daemon.stderr.contains(workspace.socketPath), "\(daemon.stderr)")
        #expect(workspace.read(workspace.socketPath) == "precious\n")
    }

    @Test("SIGTERM and SIGINT stop the daemon cleanly with clients connected: exit 0, socket removed", arguments: [SIGTERM, SIGINT])
    func signalsStopCleanly(signal: Int32) throws {
        let daemon = try DaemonHarness()
        let watcher = try daemon.subscriber()
        let app = try daemon.connect()
        #expect(try app.request(#"{"op":"constrain","id":"a","allow":["left-up"]}"#).type == "ok")
        try app.sendRaw(Array(#"{"op":"get""#.utf8))  // half a line pending
        try daemon.stopCleanly(signal: signal)
        #expect(daemon.stderr.contains("stopping on signal \(signal)"), "\(daemon.stderr)")
        // The clients see their connections closed.
        _ = try watcher.readUntilClosed()
        #expect(watcher.closed)
    }
}
