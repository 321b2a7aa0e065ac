import Foundation

#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol

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

/// A running `orientd` whose stdout is read line by line as it arrives
/// (`PipedProcess`), with an empty state directory of its own.
final class OrientdProcess: PipedProcess {
    private let stateDirectory: TemporaryDirectory

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
        try super.init(executable: Orientd.binary, arguments: arguments, environment: env, directory: Orientd.packageRoot)
    }

    /// The outcome; call after `waitForExit` returned true (or after `kill()`).
    func result(timedOut: Bool) -> OrientdRun {
        OrientdRun(
            status: status, signal: signal, stdout: unreadStdout, stderr: stderr, wallSeconds: wallSeconds, timedOut: timedOut)
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
