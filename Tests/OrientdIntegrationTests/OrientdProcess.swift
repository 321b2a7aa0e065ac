import Foundation
import OrientSense

#if canImport(Glibc)
import Glibc
#endif

/// Where the package and the built daemon are.
///
/// The tests run the real `orientd` that `swift build --build-tests` leaves in
/// `.build/debug/`; set `ORIENTD_BINARY` to test another build.
enum Orientd {
    /// The package root: three levels up from this file.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // OrientdIntegrationTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The daemon executable under test.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["ORIENTD_BINARY"], !path.isEmpty { return path }
        return packageRoot.appendingPathComponent(".build/debug/orientd").path
    }

    /// The absolute path of a bundled trace in `traces/`.
    static func bundledTrace(_ name: String) -> String {
        packageRoot.appendingPathComponent("traces").appendingPathComponent(name).path
    }

    /// The file names of every bundled trace (`traces/*.trace`), sorted.
    static var bundledTraceNames: [String] {
        let directory = packageRoot.appendingPathComponent("traces").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".trace") }.sorted()
    }
}

/// How a finished `orientd` run went.
struct OrientdRun: CustomStringConvertible {
    /// The exit status, or 128 + the signal number when a signal ended it (the shell's convention).
    var status: Int32
    /// The signal that ended the process, nil when it exited.
    var signal: Int32?
    var stdout: String
    var stderr: String
    /// From launch to exit.
    var wallSeconds: Double
    /// True when the process outlived its timeout and was killed.
    var timedOut: Bool

    /// The stderr lines that are not routine notices (`orientd: notice: …`, `info`,
    /// `debug`): warnings, errors and anything unexpected, such as a crash report.
    var warnings: [String] {
        stderr.split(separator: "\n").map(String.init).filter { line in
            !["notice", "info", "debug"].contains { line.hasPrefix("orientd: \($0): ") }
        }
    }

    /// `stdout` split into lines (without the final empty piece after the last newline).
    var lines: [String] {
        var pieces = stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if pieces.last == "" { pieces.removeLast() }
        return pieces
    }

    var description: String {
        let how = timedOut ? "timed out" : signal.map { "killed by signal \($0)" } ?? "exit \(status)"
        return "orientd: \(how) after \(String(format: "%.2f", wallSeconds)) s; stderr: \(stderr.debugDescription)"
    }
}

/// Runs `orientd` with `arguments` until it exits, killing it after `timeout` seconds.
///
/// Every run gets an empty state directory through `$STATE_DIRECTORY`, so a lock
/// left on the host in /var/lib/orientd never leaks into a test, and (unless it
/// is a batch replay) a socket path in it through `$ORIENTD_SOCKET`, so a test
/// daemon never meets the system's; `environment` entries are added on top
/// (explicit options still win).
func runOrientd(
    _ arguments: [String], timeout: Double = 20, environment: [String: String] = [:]
) throws -> OrientdRun {
    let process = try OrientdProcess(arguments, environment: environment)
    let deadline = ContinuousClock.now + .seconds(timeout)
    process.readToEnd(deadline: deadline)
    let exited = process.waitForExit(deadline: deadline)
    if !exited { process.kill() }
    return process.result(timedOut: !exited)
}

/// A running `orientd` whose stdout is read line by line as it arrives.
///
/// Every wait takes a deadline, so a hung daemon fails the test instead of
/// hanging it. The process is killed (SIGKILL) when this object goes away.
final class OrientdProcess {
    let process = ChildProcess()
    /// When the process was launched.
    let launched: ContinuousClock.Instant
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private var stdoutOpen = true
    private var stderrOpen = true
    private var stdoutBytes: [UInt8] = []
    private var stderrBytes: [UInt8] = []
    private let exitSignal = DispatchSemaphore(value: 0)
    private var exited = false
    private var exitInstant: ContinuousClock.Instant?
    private let stateDirectory: TemporaryDirectory

    /// True once stdout reached its end (the daemon closed it, exited, or we closed our end).
    private(set) var stdoutEnded = false

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        stateDirectory = try TemporaryDirectory()
        var env = ProcessInfo.processInfo.environment
        env["STATE_DIRECTORY"] = stateDirectory.path
        // A daemon that serves a socket gets a private one, never the system's.
        // A batch replay (--mock … --exit-at-end) serves none unless told to, so
        // it runs as a developer would run it.
        if !arguments.contains("--exit-at-end") { env["ORIENTD_SOCKET"] = stateDirectory.file("orientd.sock") }
        env["SWIFT_BACKTRACE"] = "enable=no"
        for (key, value) in environment { env[key] = value }
        process.executableURL = URL(fileURLWithPath: Orientd.binary)
        process.arguments = arguments
        process.environment = env
        process.currentDirectoryURL = Orientd.packageRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        let signal = exitSignal
        process.terminationHandler = { _ in signal.signal() }
        launched = ContinuousClock.now
        try process.run()
    }

    deinit {
        if !exited, process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            _ = exitSignal.wait(timeout: .now() + 5)
        }
        closeStdout()
        if stderrOpen { try? stderrPipe.fileHandleForReading.close() }
    }

    /// Seconds since launch.
    var elapsed: Double { seconds(ContinuousClock.now - launched) }

    /// Everything the daemon wrote to stderr so far.
    var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }

    /// The next stdout line (without its newline), or nil at the end of stdout or at `deadline`.
    func readLine(deadline: ContinuousClock.Instant) -> String? {
        while true {
            if let newline = stdoutBytes.firstIndex(of: 0x0A) {
                let line = String(decoding: stdoutBytes[..<newline], as: UTF8.self)
                stdoutBytes.removeSubrange(...newline)
                return line
            }
            if !stdoutOpen || ContinuousClock.now >= deadline { return nil }
            pump(until: deadline)
        }
    }

    /// `readLine(deadline:)` with a timeout in seconds from now.
    func readLine(timeout: Double) -> String? {
        readLine(deadline: ContinuousClock.now + .seconds(timeout))
    }

    /// Reads stdout and stderr until both end or `deadline` passes.
    func readToEnd(deadline: ContinuousClock.Instant) {
        while (stdoutOpen || stderrOpen), ContinuousClock.now < deadline { pump(until: deadline) }
    }

    /// Closes our end of the stdout pipe: the daemon's next write gets EPIPE.
    func closeStdout() {
        guard stdoutOpen else { return }
        stdoutOpen = false
        stdoutEnded = true
        try? stdoutPipe.fileHandleForReading.close()
    }

    /// Sends SIGTERM.
    func terminate() {
        guard !exited else { return }
        Glibc.kill(process.processIdentifier, SIGTERM)
    }

    /// Sends SIGKILL and waits for the process to go.
    func kill() {
        guard !exited else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        _ = waitForExit(deadline: ContinuousClock.now + .seconds(5))
    }

    /// Waits for the process to exit, reading its output meanwhile (so a full pipe
    /// cannot block it). False if it is still running at `deadline`.
    func waitForExit(deadline: ContinuousClock.Instant) -> Bool {
        while !exited {
            if exitSignal.wait(timeout: .now()) == .success {
                exited = true
                exitInstant = ContinuousClock.now
                break
            }
            let now = ContinuousClock.now
            guard now < deadline else { return false }
            if stdoutOpen || stderrOpen {
                pump(until: min(deadline, now + .milliseconds(20)))
            } else {
                let wait = min(seconds(deadline - now), 0.02)
                if exitSignal.wait(timeout: .now() + wait) == .success {
                    exited = true
                    exitInstant = ContinuousClock.now
                }
            }
        }
        return true
    }

    /// `waitForExit(deadline:)` with a timeout in seconds from now.
    func waitForExit(timeout: Double) -> Bool {
        waitForExit(deadline: ContinuousClock.now + .seconds(timeout))
    }

    /// The outcome; call after `waitForExit` returned true (or after `kill()`).
    func result(timedOut: Bool) -> OrientdRun {
        let signalled = exited && process.terminationReason == .uncaughtSignal
        let status = exited ? process.terminationStatus : -1
        return OrientdRun(
            status: signalled ? 128 + status : status,
            signal: signalled ? status : nil,
            stdout: String(decoding: stdoutBytes, as: UTF8.self),
            stderr: stderr,
            wallSeconds: seconds((exitInstant ?? ContinuousClock.now) - launched),
            timedOut: timedOut)
    }

    /// Waits (at most until `deadline`) for output on the open pipes and reads what is there.
    private func pump(until deadline: ContinuousClock.Instant) {
        var fds: [pollfd] = []
        if stdoutOpen { fds.append(pollfd(fd: stdoutPipe.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)) }
        if stderrOpen { fds.append(pollfd(fd: stderrPipe.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)) }
        guard !fds.isEmpty else { return }
        let remaining = max(0, seconds(deadline - ContinuousClock.now))
        let timeoutMs = Int32(min(remaining * 1000, 1000).rounded(.up))
        let ready = poll(&fds, nfds_t(fds.count), timeoutMs)
        guard ready > 0 else { return }
        for entry in fds where entry.revents != 0 {
            let isStdout = stdoutOpen && entry.fd == stdoutPipe.fileHandleForReading.fileDescriptor
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
            if n > 0 {
                if isStdout { stdoutBytes += chunk[..<n] } else { stderrBytes += chunk[..<n] }
            } else if n == 0 || errno != EINTR {
                if isStdout {
                    stdoutOpen = false
                    stdoutEnded = true
                    try? stdoutPipe.fileHandleForReading.close()
                } else {
                    stderrOpen = false
                    try? stderrPipe.fileHandleForReading.close()
                }
            }
        }
    }
}

/// A fresh directory under the system's temporary directory, removed with this object.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/orientd-test-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let made else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        path = made
    }

    deinit {
        // Give back any permissions a test took away, so the directory can be removed.
        chmod(path, 0o700)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` in the directory; returns its path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let target = file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// Writes `text` (UTF-8) to `name` in the directory; returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, Array(text.utf8))
    }
}

/// A duration in seconds.
func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) / 1e18
}

/// Loads a trace with the daemon's own reader (OrientSense), to know its samples and duration.
func readTrace(_ path: String) throws -> Trace {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    return try TraceReader.parse(bytes, file: path)
}
