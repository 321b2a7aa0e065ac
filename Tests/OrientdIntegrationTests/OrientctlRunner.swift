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

/// A running `orientctl` whose stdout is read line by line as it arrives.
///
/// Every wait takes a deadline, so a hung orientctl fails the test instead of
/// hanging it. The process is killed (SIGKILL) when this object goes away.
final class OrientctlProcess {
    let process = ChildProcess()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private var stdoutOpen = true
    private var stderrOpen = true
    private var stdoutBytes: [UInt8] = []
    private var stderrBytes: [UInt8] = []
    private let exitSignal = DispatchSemaphore(value: 0)
    private var exited = false
    /// The status `waitid` saw (shell convention), when it saw the exit before Foundation did.
    private var observedStatus: Int32?

    init(_ arguments: [String], launcher: [String] = [], environment extra: [String: String] = [:]) throws {
        var environment = ProcessInfo.processInfo.environment
        // Every test names its socket; the host's daemon is never reached.
        environment.removeValue(forKey: "ORIENTD_SOCKET")
        environment["SWIFT_BACKTRACE"] = "enable=no"
        for (key, value) in extra { environment[key] = value }
        if let command = launcher.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = Array(launcher.dropFirst()) + [Orientctl.binary] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: Orientctl.binary)
            process.arguments = arguments
        }
        process.environment = environment
        process.currentDirectoryURL = Orientctl.packageRoot
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        let signal = exitSignal
        process.terminationHandler = { _ in signal.signal() }
        try process.run()
    }

    deinit {
        if !hasExited() {
            Glibc.kill(pid, SIGKILL)
            _ = waitForExit(deadline: ContinuousClock.now + .seconds(5))
        }
        if stdoutOpen { try? stdoutPipe.fileHandleForReading.close() }
        if stderrOpen { try? stderrPipe.fileHandleForReading.close() }
    }

    var pid: Int32 { process.processIdentifier }

    /// Everything orientctl wrote to stderr so far.
    var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }

    /// The next stdout line (without its newline), or nil at the end of stdout or at the deadline.
    func readLine(timeout: Double) -> String? {
        let deadline = ContinuousClock.now + .seconds(timeout)
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

    /// Reads lines until one satisfies `predicate`; nil at the end of stdout or the deadline.
    func readLine(timeout: Double, until predicate: (String) -> Bool) -> (match: String?, read: [String]) {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var read: [String] = []
        while true {
            let remaining = max(0, seconds(deadline - ContinuousClock.now))
            guard let line = readLine(timeout: remaining) else { return (nil, read) }
            read.append(line)
            if predicate(line) { return (line, read) }
        }
    }

    /// Sends `signal` (nothing when the process is gone).
    func send(signal: Int32) {
        guard !hasExited() else { return }
        Glibc.kill(pid, signal)
    }

    /// SIGKILL, then waits for the process to go.
    func kill() {
        send(signal: SIGKILL)
        _ = waitForExit(deadline: ContinuousClock.now + .seconds(5))
    }

    /// Waits for the process to exit, reading its output meanwhile (so a full pipe
    /// cannot block it). False if it is still running at `deadline`. Does not
    /// wait for the pipes to close: a grandchild may still hold them.
    func waitForExit(deadline: ContinuousClock.Instant) -> Bool {
        while !hasExited() {
            let now = ContinuousClock.now
            guard now < deadline else { return false }
            if stdoutOpen || stderrOpen {
                pump(until: min(deadline, now + .milliseconds(10)))
            } else if exitSignal.wait(timeout: .now() + min(seconds(deadline - now), 0.01)) == .success {
                exited = true
            }
        }
        return true
    }

    /// Whether the process has exited. Foundation reports an exit only once every
    /// process that inherited its internal socket is gone, so a command `hold`
    /// left running would hide orientctl's death; `waitid(WNOWAIT)` sees it at once
    /// without reaping (Foundation still reaps it later).
    private func hasExited() -> Bool {
        if exited { return true }
        if exitSignal.wait(timeout: .now()) == .success {
            exited = true
            return true
        }
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
            info._sifields._sigchld.si_pid == pid
        else { return false }
        let code = info._sifields._sigchld.si_status
        observedStatus = info.si_code == Int32(CLD_EXITED) ? code : 128 + code
        exited = true
        return true
    }

    func waitForExit(timeout: Double) -> Bool {
        waitForExit(deadline: ContinuousClock.now + .seconds(timeout))
    }

    /// Reads stdout and stderr until both end or `deadline` passes.
    func readToEnd(deadline: ContinuousClock.Instant) {
        while stdoutOpen || stderrOpen, ContinuousClock.now < deadline { pump(until: deadline) }
    }

    /// The exit status, 128 + N when signal N ended it; -1 while running.
    var status: Int32 {
        guard exited else { return -1 }
        if let observedStatus { return observedStatus }
        let status = process.terminationStatus
        return process.terminationReason == .uncaughtSignal ? 128 + status : status
    }

    /// The outcome so far (stdout not yet taken by `readLine`, all of stderr).
    func result(timedOut: Bool) -> OrientctlRun {
        OrientctlRun(
            status: status, stdout: String(decoding: stdoutBytes, as: UTF8.self), stderr: stderr, timedOut: timedOut)
    }

    /// Waits (at most until `deadline`) for output on the open pipes and reads what is there.
    private func pump(until deadline: ContinuousClock.Instant) {
        let outFD = stdoutPipe.fileHandleForReading.fileDescriptor
        let errFD = stderrPipe.fileHandleForReading.fileDescriptor
        var fds: [pollfd] = []
        if stdoutOpen { fds.append(pollfd(fd: outFD, events: Int16(POLLIN), revents: 0)) }
        if stderrOpen { fds.append(pollfd(fd: errFD, events: Int16(POLLIN), revents: 0)) }
        guard !fds.isEmpty else { return }
        let remaining = max(0, seconds(deadline - ContinuousClock.now))
        let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining * 1000, 1000).rounded(.up)))
        guard ready > 0 else { return }
        for entry in fds where entry.revents != 0 {
            let isStdout = stdoutOpen && entry.fd == outFD
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
            if n > 0 {
                if isStdout { stdoutBytes += chunk[..<n] } else { stderrBytes += chunk[..<n] }
            } else if n == 0 || errno != EINTR {
                if isStdout {
                    stdoutOpen = false
                    try? stdoutPipe.fileHandleForReading.close()
                } else {
                    stderrOpen = false
                    try? stderrPipe.fileHandleForReading.close()
                }
            }
        }
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
        guard Glibc.kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    /// The pid a command wrote to `path` (`echo $$ > path`), once the file holds a whole line.
    static func pid(in path: String) -> Int32? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
