import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process (orientd or orientctl) whose stdout and stderr come back
/// through pipes and are read as they arrive.
///
/// Every wait takes a deadline, so a hung child fails the test instead of
/// hanging it. The child is killed (SIGKILL) when this object goes away.
class PipedProcess {
    let process = ChildProcess()
    /// When the process was launched.
    let launched: ContinuousClock.Instant
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private var stdoutOpen = true
    private var stderrOpen = true
    private var stdoutBytes: [UInt8] = []
    private var stderrBytes: [UInt8] = []

    /// True once stdout reached its end (the child closed it, exited, or we closed our end).
    private(set) var stdoutEnded = false

    init(executable: String, arguments: [String], environment: [String: String], directory: URL) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        launched = ContinuousClock.now
        try process.run()
    }

    deinit {
        if process.isRunning {
            Glibc.kill(pid, SIGKILL)
            _ = waitForExit(deadline: ContinuousClock.now + .seconds(5))
        }
        closeStdout()
        if stderrOpen { try? stderrPipe.fileHandleForReading.close() }
    }

    var pid: Int32 { process.processIdentifier }

    /// Seconds since launch.
    var elapsed: Double { seconds(ContinuousClock.now - launched) }

    /// Seconds from launch to exit (to now while running).
    var wallSeconds: Double { seconds((process.exitInstant ?? ContinuousClock.now) - launched) }

    /// Everything the child wrote to stderr so far.
    var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }

    /// What the child wrote to stdout that `readLine` has not taken.
    var unreadStdout: String { String(decoding: stdoutBytes, as: UTF8.self) }

    /// The exit status, 128 + N when signal N ended it (the shell's convention); -1 while running.
    var status: Int32 {
        guard !process.isRunning else { return -1 }
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// The signal that ended the child; nil while it runs or when it exited.
    var signal: Int32? {
        !process.isRunning && process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
    }

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

    /// Reads lines until one satisfies `predicate`; nil at the end of stdout or the deadline.
    func readLine(timeout: Double, until predicate: (String) -> Bool) -> (match: String?, read: [String]) {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var read: [String] = []
        while let line = readLine(deadline: deadline) {
            read.append(line)
            if predicate(line) { return (line, read) }
        }
        return (nil, read)
    }

    /// Reads stdout and stderr until both end or `deadline` passes.
    func readToEnd(deadline: ContinuousClock.Instant) {
        while stdoutOpen || stderrOpen, ContinuousClock.now < deadline { pump(until: deadline) }
    }

    /// Closes our end of the stdout pipe: the child's next write gets EPIPE.
    func closeStdout() {
        guard stdoutOpen else { return }
        stdoutOpen = false
        stdoutEnded = true
        try? stdoutPipe.fileHandleForReading.close()
    }

    /// Sends `signal` (nothing once the child has exited).
    func send(signal: Int32) {
        guard process.isRunning else { return }
        Glibc.kill(pid, signal)
    }

    /// Sends SIGTERM.
    func terminate() { send(signal: SIGTERM) }

    /// Sends SIGKILL and waits for the child to go.
    func kill() {
        send(signal: SIGKILL)
        _ = waitForExit(deadline: ContinuousClock.now + .seconds(5))
    }

    /// Waits for the child to exit, reading its output meanwhile (so a full pipe
    /// cannot block it). False if it is still running at `deadline`. Does not
    /// wait for the pipes to close: a grandchild may still hold them.
    func waitForExit(deadline: ContinuousClock.Instant) -> Bool {
        while process.isRunning {
            let now = ContinuousClock.now
            guard now < deadline else { return false }
            if stdoutOpen || stderrOpen {
                pump(until: min(deadline, now + .milliseconds(10)))
            } else {
                Thread.sleep(forTimeInterval: min(seconds(deadline - now), 0.005))
            }
        }
        return true
    }

    /// `waitForExit(deadline:)` with a timeout in seconds from now.
    func waitForExit(timeout: Double) -> Bool {
        waitForExit(deadline: ContinuousClock.now + .seconds(timeout))
    }

    /// Waits (at most until `deadline`) for output on the open pipes and reads what is there.
    private func pump(until deadline: ContinuousClock.Instant) {
        let outFD = stdoutPipe.fileHandleForReading.fileDescriptor
        var fds: [pollfd] = []
        if stdoutOpen { fds.append(pollfd(fd: outFD, events: Int16(POLLIN), revents: 0)) }
        if stderrOpen { fds.append(pollfd(fd: stderrPipe.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)) }
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
                    closeStdout()
                } else {
                    stderrOpen = false
                    try? stderrPipe.fileHandleForReading.close()
                }
            }
        }
    }
}
