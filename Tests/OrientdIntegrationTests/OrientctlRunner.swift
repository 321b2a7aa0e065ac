import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where the built `orientctl` is, and how to run it.
///
/// The tests run the real `orientctl` that `swift build --build-tests` leaves in
/// `.build/debug/`; set `ORIENTCTL_BINARY` to test another build.
enum Orientctl {
    /// The package root: three levels up from this file.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // OrientdIntegrationTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The tool under test.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["ORIENTCTL_BINARY"], !path.isEmpty { return path }
        return packageRoot.appendingPathComponent(".build/debug/orientctl").path
    }

    /// The exit codes orientctl promises (sysexits.h and the shell's).
    static let usage: Int32 = 64
    static let unavailable: Int32 = 69
    static let ioError: Int32 = 74
    static let noPermission: Int32 = 77
    static let notFound: Int32 = 127

    /// `setpriv` can drop to uid `nobody` only when the tests run as root.
    static let canRunAsNobody =
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    /// The command prefix that runs a program as `nobody:nogroup` without supplementary groups.
    static let asNobody = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
}

/// How a finished `orientctl` run went.
struct OrientctlRun: CustomStringConvertible {
    /// The exit status, or 128 + N when signal N ended it (the shell's convention).
    var status: Int32
    var stdout: String
    var stderr: String
    /// True when the process outlived its deadline and was killed.
    var timedOut: Bool

    /// `stdout` split into lines (without the empty piece after the last newline).
    var lines: [String] {
        var pieces = stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if pieces.last == "" { pieces.removeLast() }
        return pieces
    }

    var description: String {
        let how = timedOut ? "timed out" : "exit \(status)"
        return "orientctl: \(how); stdout: \(stdout.debugDescription); stderr: \(stderr.debugDescription)"
    }
}

/// Runs `orientctl` with `arguments` to the end, killing it after `timeout` seconds.
/// `launcher` (e.g. `Orientctl.asNobody`) runs it through a command that execs it;
/// `environment` entries are added to the test's environment (without `ORIENTD_SOCKET`).
func runOrientctl(
    _ arguments: [String], launcher: [String] = [], environment: [String: String] = [:], timeout: Double = 10
) throws -> OrientctlRun {
    let process = try OrientctlProcess(arguments, launcher: launcher, environment: environment)
    let deadline = ContinuousClock.now + .seconds(timeout)
    let exited = process.waitForExit(deadline: deadline)
    if !exited { process.kill() }
    process.readToEnd(deadline: ContinuousClock.now + .seconds(exited ? 2 : 0.1))
    return process.result(timedOut: !exited)
}

/// A running `orientctl` whose stdout is read line by line as it arrives (`PipedProcess`).
final class OrientctlProcess: PipedProcess {
    init(_ arguments: [String], launcher: [String] = [], environment extra: [String: String] = [:]) throws {
        var environment = ProcessInfo.processInfo.environment
        // Every test names its socket; the host's daemon is never reached.
        environment.removeValue(forKey: "ORIENTD_SOCKET")
        environment["SWIFT_BACKTRACE"] = "enable=no"
        for (key, value) in extra { environment[key] = value }
        let command = launcher.first ?? Orientctl.binary
        let arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [Orientctl.binary] + arguments
        try super.init(executable: command, arguments: arguments, environment: environment, directory: Orientctl.packageRoot)
    }

    /// The outcome so far (stdout not yet taken by `readLine`, all of stderr).
    func result(timedOut: Bool) -> OrientctlRun {
        OrientctlRun(status: status, stdout: unreadStdout, stderr: stderr, timedOut: timedOut)
    }
}

extension Orientctl {
    /// Polls `condition` every few milliseconds until it holds; false at the deadline.
    static func poll(timeout: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if try condition() { return true }
            guard ContinuousClock.now < deadline else { return false }
            usleep(5_000)
        }
    }

    /// True while a process with `pid` exists and is not a zombie.
    static func isAlive(_ pid: Int32) -> Bool {
        guard Glibc.kill(pid, 0) == 0, let state = ProcessStats.runState(pid) else { return false }
        return state != "Z"
    }

    /// The pid a command wrote to `path` (`echo $$ > path`), once the file holds a whole line.
    static func pid(in path: String) -> Int32? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
