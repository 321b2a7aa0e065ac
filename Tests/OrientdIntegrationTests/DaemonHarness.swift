import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real `orientd` serving a socket in a temporary directory, for the protocol,
/// slow-client, lock and config tests.
///
/// ```swift
/// let daemon = try DaemonHarness()                 // no --mock: sensor "absent", nothing moves
/// let client = try daemon.connect()                // hello already read
/// let state = try client.request(#"{"op":"get","seq":1}"#)
/// try daemon.stopCleanly()                         // SIGTERM, exit 0, socket file removed
/// ```
///
/// Every wait has a deadline: a daemon that hangs or dies fails the test with
/// its stderr instead of hanging it. Nothing sleeps and hopes; each wait polls
/// for its condition (the socket accepting, the process exiting, a line on
/// stderr) until the deadline.
final class DaemonHarness {
    /// The package root, from this file's path (`Tests/OrientdIntegrationTests/`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The daemon under test: `ORIENTD_BINARY`, else `.build/debug/orientd`.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["ORIENTD_BINARY"], !path.isEmpty { return path }
        return packageRoot.appendingPathComponent(".build/debug/orientd").path
    }

    /// A bundled trace in `traces/`.
    static func trace(_ name: String) -> String {
        packageRoot.appendingPathComponent("traces").appendingPathComponent(name).path
    }

    /// The config every harness daemon gets unless a test passes its own: the
    /// natural geometry pinned, so `portrait`/`landscape` masks resolve the same on
    /// every machine (`auto` would read the host's DRM panel), and the host's
    /// /etc/orientd/orientd.conf never leaks in.
    static let defaultConfig = "[orientation]\nnatural = portrait\n"

    /// The allowed set with no constraints and the default config.
    static let all = ["normal", "left-up", "bottom-up", "right-up"]

    let workspace: Workspace
    /// The arguments `orientd` was started with.
    let arguments: [String]
    let stderrPath: String
    let stdoutPath: String
    private let process = ChildProcess()
    private let exitSignal = DispatchSemaphore(value: 0)
    private var exited = false

    /// Starts `orientd --socket W/orientd.sock --state-dir W/state --config W/orientd.conf`
    /// plus `extraArguments` in `workspace` (a fresh one by default), and waits
    /// until its socket accepts. `config` is written to W/orientd.conf first;
    /// nil leaves out `--config` (and the file).
    ///
    /// With `waitForSocket: false` it returns at once, for runs that are meant to
    /// exit (`waitForExit`). A `launcher` (e.g. `["/usr/bin/prlimit", "--nofile=24"]`)
    /// runs the daemon through a command that execs it, so the pid stays the daemon's.
    init(
        _ extraArguments: [String] = [], config: String? = DaemonHarness.defaultConfig,
        workspace: Workspace? = nil, waitForSocket: Bool = true, timeout: Double = 10, launcher: [String] = []
    ) throws {
        self.workspace = try workspace ?? Workspace()
        var arguments = ["--socket", self.workspace.socketPath, "--state-dir", self.workspace.stateDirectory]
        if let config {
            try self.workspace.write("orientd.conf", config)
            arguments += ["--config", self.workspace.configPath]
        }
        arguments += extraArguments
        self.arguments = arguments
        (stdoutPath, stderrPath) = self.workspace.nextLogPaths()
        for path in [stdoutPath, stderrPath] where !FileManager.default.createFile(atPath: path, contents: nil) {
            throw DaemonHarnessError("cannot create \(path)")
        }
        if let command = launcher.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(launcher.dropFirst()) + [DaemonHarness.binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: DaemonHarness.binary)
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.removeValue(forKey: "ORIENTD_SOCKET")
        environment.removeValue(forKey: "STATE_DIRECTORY")
        process.environment = environment
        process.currentDirectoryURL = DaemonHarness.packageRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        let signal = exitSignal
        process.terminationHandler = { _ in signal.signal() }
        try process.run()
        if waitForSocket { try waitUntilListening(timeout: timeout) }
    }

    deinit {
        if !exited, process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            _ = exitSignal.wait(timeout: .now() + 5)
        }
    }

    var pid: Int32 { process.processIdentifier }
    var socketPath: String { workspace.socketPath }

    /// Everything the daemon wrote to stderr so far.
    var stderr: String { workspace.read(stderrPath) ?? "" }

    /// Everything the daemon wrote to stdout so far (`--print`, `--version`, `--check-config`).
    var stdout: String { workspace.read(stdoutPath) ?? "" }

    /// True while the process has not exited.
    var isRunning: Bool {
        if exited { return false }
        if exitSignal.wait(timeout: .now()) == .success { exited = true }
        return !exited
    }

    /// Polls `connect(2)` until the socket accepts; throws with stderr when the
    /// daemon exits first or the deadline passes.
    func waitUntilListening(timeout: Double = 10) throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if let fd = try? DaemonHarness.connectSocket(socketPath) {
                Glibc.close(fd)
                return
            }
            if !isRunning {
                throw DaemonHarnessError("orientd exited with \(exitStatus) before listening; stderr: \(stderr)")
            }
            guard ContinuousClock.now < deadline else {
                throw DaemonHarnessError("orientd did not accept on \(socketPath) within \(timeout) s; stderr: \(stderr)")
            }
            // Wakes at once if the daemon exits; otherwise a short pause before the next try.
            if exitSignal.wait(timeout: .now() + 0.002) == .success { exited = true }
        }
    }

    /// Waits for the process to exit; false at the deadline.
    func waitForExit(timeout: Double = 10) -> Bool {
        if exited { return true }
        if exitSignal.wait(timeout: .now() + timeout) == .success { exited = true }
        return exited
    }

    /// The exit status (128 + N when signal N ended it); -1 while running.
    var exitStatus: Int32 {
        guard exited || !isRunning else { return -1 }
        let status = process.terminationStatus
        return process.terminationReason == .uncaughtSignal ? 128 + status : status
    }

    /// Sends `signal` (the process may be gone already).
    func send(signal: Int32) {
        guard isRunning else { return }
        Glibc.kill(pid, signal)
    }

    /// Sends `signal`, waits for the exit (SIGKILL after `timeout`) and returns the status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeout: Double = 10) throws -> Int32 {
        send(signal: signal)
        guard waitForExit(timeout: timeout) else {
            Glibc.kill(pid, SIGKILL)
            _ = waitForExit(timeout: 5)
            throw DaemonHarnessError("orientd did not exit within \(timeout) s of signal \(signal); stderr: \(stderr)")
        }
        return exitStatus
    }

    /// Stops the daemon with `signal` and checks it stopped cleanly: exit 0 and
    /// its socket file removed.
    func stopCleanly(signal: Int32 = SIGTERM, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let status = try stop(signal: signal)
        #expect(status == 0, "orientd exited \(status) on signal \(signal); stderr: \(stderr)", sourceLocation: sourceLocation)
        #expect(
            !DaemonHarness.pathExists(socketPath), "orientd left its socket file \(socketPath) behind",
            sourceLocation: sourceLocation)
    }

    /// SIGKILL: no chance to clean up (leaves a stale socket file).
    func kill() {
        send(signal: SIGKILL)
        _ = waitForExit(timeout: 5)
    }

    /// Connects until the daemon says hello (a `limit` refusal is retried until the
    /// deadline: a slot frees only once the daemon has reaped a closed client).
    func connectWhenAdmitted(timeout: Double = 5) throws -> Client {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let client = try connect(readHello: false)
            let first = try client.read()
            if first.type == "hello" { return client }
            guard first.code == "limit", ContinuousClock.now < deadline else {
                throw DaemonHarnessError("not admitted: \(first)")
            }
        }
    }

    /// Waits until stderr contains `text`; false at the deadline.
    func waitForStderr(containing text: String, timeout: Double = 5) -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if stderr.contains(text) { return true }
            guard ContinuousClock.now < deadline else { return false }
            if exitSignal.wait(timeout: .now() + 0.005) == .success { exited = true }
        }
    }

    /// A new client, with the hello banner read (`Client.hello`).
    func connect(readHello: Bool = true) throws -> Client {
        try Client(path: socketPath, readHello: readHello)
    }

    /// A new subscribed client, its first state read (`Client.lastState`).
    func subscriber() throws -> Client {
        let client = try connect()
        let first = try client.request(#"{"op":"subscribe"}"#)
        guard first.type == "state" else { throw DaemonHarnessError("subscribe answered \(first.raw)") }
        return client
    }

    /// The daemon's state from a fresh connection (checks the daemon is alive and serving).
    func freshState() throws -> Message {
        let client = try connect()
        let reply = try client.request(#"{"op":"get","seq":424242}"#)
        guard reply.type == "state", reply.seq == 424242 else { throw DaemonHarnessError("get answered \(reply.raw)") }
        return reply
    }

    /// Asks fresh clients for the state until `predicate` holds (for effects of a
    /// hang-up, which the daemon may see after the next connection); returns the
    /// last state, matching or not, at the deadline.
    func eventuallyState(timeout: Double = 5, _ predicate: (Message) -> Bool) throws -> Message {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let state = try freshState()
            if predicate(state) || ContinuousClock.now >= deadline { return state }
            if exitSignal.wait(timeout: .now() + 0.002) == .success { exited = true }
        }
    }

    // MARK: Files

    static func pathExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    /// A connected AF_UNIX stream socket (close-on-exec), or a thrown errno.
    static func connectSocket(_ path: String) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw DaemonHarnessError("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw DaemonHarnessError("socket: \(String(cString: strerror(errno)))") }
        let size = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw DaemonHarnessError("connect \(path): \(message)")
        }
        return fd
    }
}

// MARK: - Workspace

extension DaemonHarness {
    /// A temporary directory holding one test's socket, state directory, config
    /// and daemon logs; removed with this object. Two daemons given the same
    /// workspace share the socket path and the state directory (restarts).
    final class Workspace {
        let path: String
        private var logCount = 0

        init() throws {
            // /tmp rather than $TMPDIR: a socket path must fit in sun_path (108 bytes).
            var template = Array("/tmp/orientd-harness-XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { buffer in
                mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
            }
            guard let made else { throw DaemonHarnessError("mkdtemp: \(String(cString: strerror(errno)))") }
            path = made
        }

        deinit {
            try? FileManager.default.removeItem(atPath: path)
        }

        var socketPath: String { path + "/orientd.sock" }
        /// Not created in advance: the daemon creates it when it first saves the lock.
        var stateDirectory: String { path + "/state" }
        var lockFile: String { stateDirectory + "/lock" }
        var configPath: String { path + "/orientd.conf" }

        func file(_ name: String) -> String { path + "/" + name }

        @discardableResult
        func write(_ name: String, _ text: String) throws -> String {
            try write(name, Array(text.utf8))
        }

        @discardableResult
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let target = file(name)
            let directory = (target as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: target))
            return target
        }

        func read(_ path: String) -> String? {
            FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
        }

        /// Fresh stdout and stderr files for the next daemon started here.
        fileprivate func nextLogPaths() -> (stdout: String, stderr: String) {
            logCount += 1
            return (file("orientd-\(logCount).stdout"), file("orientd-\(logCount).stderr"))
        }
    }
}

// MARK: - Client

extension DaemonHarness {
    /// A raw protocol client on a real AF_UNIX stream socket: writes lines, reads
    /// lines with poll(2) deadlines. Never blocks without a deadline.
    final class Client {
        let fd: Int32
        /// The first line the server sent (`hello`), when read at connect.
        private(set) var hello: Message?
        /// The last `state` message read, subscribed or not.
        private(set) var lastState: Message?
        /// True once the server closed the connection (EOF or reset).
        private(set) var closed = false
        private var buffer: [UInt8] = []
        private var isOpen = true

        init(path: String, readHello: Bool = true, timeout: Double = 5) throws {
            fd = try DaemonHarness.connectSocket(path)
            if readHello { hello = try read(timeout: timeout) }
        }

        deinit { close() }

        func close() {
            guard isOpen else { return }
            isOpen = false
            Glibc.close(fd)
        }

        /// Sends `line` and a newline.
        func send(_ line: String, timeout: Double = 5) throws {
            try sendRaw(Array(line.utf8) + [0x0A], timeout: timeout)
        }

        /// Sends `bytes` as they are. Throws when the peer is gone (EPIPE,
        /// ECONNRESET) or the socket stays full until the deadline.
        func sendRaw(_ bytes: [UInt8], timeout: Double = 5) throws {
            let deadline = ContinuousClock.now + .seconds(timeout)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { raw in
                    Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
                if n > 0 {
                    offset += n
                    continue
                }
                if n < 0, errno == EINTR { continue }
                if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    guard try waitFor(Int16(POLLOUT), deadline: deadline) else {
                        throw DaemonHarnessError("send: socket still full after \(timeout) s")
                    }
                    continue
                }
                throw DaemonHarnessError.peerGone(String(cString: strerror(errno)))
            }
        }

        /// Sends as much of `bytes` as fits now, without waiting; returns the count
        /// (0 when the socket is full), or nil when the peer is gone.
        func sendAvailable(_ bytes: [UInt8]) -> Int? {
            let n = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress!, raw.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if n >= 0 { return n }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return 0 }
            return nil
        }

        /// The next line (without its newline), or nil when the server closed the
        /// connection. Throws at the deadline.
        func readLine(timeout: Double = 5) throws -> String? {
            let deadline = ContinuousClock.now + .seconds(timeout)
            while true {
                if let line = takeLine() { return line }
                if closed { return nil }
                guard try waitFor(Int16(POLLIN), deadline: deadline) else {
                    throw DaemonHarnessError.timedOut("no line from orientd within \(timeout) s")
                }
                receiveAvailable()
            }
        }

        /// The next message; throws at EOF or the deadline.
        func read(timeout: Double = 5) throws -> Message {
            guard let line = try readLine(timeout: timeout) else {
                throw DaemonHarnessError.peerGone("orientd closed the connection")
            }
            let message = try Message(line)
            if message.type == "state" { lastState = message }
            return message
        }

        /// Reads messages until one satisfies `predicate`; returns it with the ones
        /// skipped before it.
        func read(
            until predicate: (Message) -> Bool, timeout: Double = 5
        ) throws -> (match: Message, skipped: [Message]) {
            let deadline = ContinuousClock.now + .seconds(timeout)
            var skipped: [Message] = []
            while true {
                let remaining = max(0.001, DaemonHarness.seconds(deadline - ContinuousClock.now))
                let message = try read(timeout: remaining)
                if predicate(message) { return (message, skipped) }
                skipped.append(message)
            }
        }

        /// Sends `line` and reads the next message (its reply, when nothing else is due).
        @discardableResult
        func request(_ line: String, timeout: Double = 5) throws -> Message {
            try send(line)
            return try read(timeout: timeout)
        }

        /// Reads until the server closes the connection; returns the lines read on
        /// the way. Throws at the deadline.
        func readUntilClosed(timeout: Double = 5) throws -> [String] {
            var lines: [String] = []
            while let line = try readLine(timeout: timeout) { lines.append(line) }
            return lines
        }

        /// Bytes the server has sent that this client has not read (FIONREAD),
        /// counting the ones already buffered here.
        var unreadBytes: Int {
            var count: Int32 = 0
            _ = ioctl(fd, UInt(FIONREAD), &count)
            return Int(count) + buffer.count
        }

        // MARK: Internals (also used by `DaemonHarness.pollReadable`)

        /// A complete buffered line, removed from the buffer.
        func takeLine() -> String? {
            guard let newline = buffer.firstIndex(of: 0x0A) else { return nil }
            let line = String(decoding: buffer[..<newline], as: UTF8.self)
            buffer.removeSubrange(...newline)
            return line
        }

        /// One non-blocking recv into the buffer; marks `closed` at EOF or reset.
        func receiveAvailable() {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                buffer += chunk[..<n]
            } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                closed = true
            }
        }

        /// Notes a state read outside `read` (by the poll loop).
        func remember(_ message: Message) {
            if message.type == "state" { lastState = message }
        }

        private func waitFor(_ events: Int16, deadline: ContinuousClock.Instant) throws -> Bool {
            while true {
                let remaining = DaemonHarness.seconds(deadline - ContinuousClock.now)
                guard remaining > 0 else { return false }
                var entry = pollfd(fd: fd, events: events, revents: 0)
                let ready = poll(&entry, 1, Int32(min(remaining * 1000, 1000).rounded(.up)))
                if ready > 0 { return true }
                if ready < 0, errno != EINTR { throw DaemonHarnessError("poll: \(String(cString: strerror(errno)))") }
            }
        }
    }

    /// Waits until at least one of `clients` has input (or is closed); returns
    /// their indices, empty at the deadline.
    static func pollReadable(_ clients: [Client], deadline: ContinuousClock.Instant) -> [Int] {
        var entries = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        while true {
            let remaining = seconds(deadline - ContinuousClock.now)
            guard remaining > 0 else { return [] }
            let ready = poll(&entries, nfds_t(entries.count), Int32(min(remaining * 1000, 1000).rounded(.up)))
            if ready > 0 { return entries.indices.filter { entries[$0].revents != 0 } }
            if ready < 0, errno != EINTR { return [] }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (whole, attoseconds) = duration.components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

// MARK: - Messages

extension DaemonHarness {
    /// One line from the server, decoded with JSONSerialization; `raw` keeps the
    /// exact text (key order, number spelling).
    struct Message: CustomStringConvertible {
        let raw: String
        let object: [String: Any]

        init(_ raw: String) throws {
            self.raw = raw
            guard let object = try? JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any] else {
                throw DaemonHarnessError("not a JSON object: \(raw)")
            }
            self.object = object
        }

        var description: String { raw }
        var type: String? { object["type"] as? String }
        var code: String? { object["code"] as? String }
        var seq: Int64? { (object["seq"] as? NSNumber)?.int64Value }
        var hasSeq: Bool { object["seq"] != nil }
        var orientation: String? { object["orientation"] as? String }
        var physical: String? { object["physical"] as? String }
        var allowed: [String]? { object["allowed"] as? [String] }
        /// `locked`: nil when unlocked (JSON null) or absent.
        var locked: String? { object["locked"] as? String }
        var hasNullLock: Bool { object["locked"] is NSNull }
        var sensor: String? { object["sensor"] as? String }
        var tMs: Double? { (object["t_ms"] as? NSNumber)?.doubleValue }
        func string(_ key: String) -> String? { object[key] as? String }
        func number(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }

        /// The top-level keys in the order the line writes them.
        var keys: [String] { DaemonHarness.topLevelKeys(raw) }

        /// The state without `seq` and `t_ms`: what a client shows.
        var content: String {
            var copy = object
            copy.removeValue(forKey: "seq")
            copy.removeValue(forKey: "t_ms")
            let data = try? JSONSerialization.data(withJSONObject: copy, options: [.sortedKeys])
            return data.map { String(decoding: $0, as: UTF8.self) } ?? raw
        }
    }

    /// The keys of a flat-ish JSON object in text order (strings and nesting skipped).
    static func topLevelKeys(_ text: String) -> [String] {
        var keys: [String] = []
        var depth = 0
        var inString = false
        var escaped = false
        var current: [UInt8] = []
        var expectingKey = false
        for byte in text.utf8 {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if expectingKey {
                        keys.append(String(decoding: current, as: UTF8.self))
                        expectingKey = false
                    }
                    continue
                }
                if depth == 1 && expectingKey { current.append(byte) }
                continue
            }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth == 1 { expectingKey = true }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ","): if depth == 1 { expectingKey = true }
            case UInt8(ascii: "\""):
                inString = true
                current = []
            default: break
            }
        }
        return keys
    }
}

// MARK: - Errors

/// A harness failure: the daemon or the socket did not do what the test waited for.
struct DaemonHarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    static func timedOut(_ message: String) -> DaemonHarnessError { DaemonHarnessError("timed out: \(message)") }
    static func peerGone(_ message: String) -> DaemonHarnessError { DaemonHarnessError("connection closed: \(message)") }
}
