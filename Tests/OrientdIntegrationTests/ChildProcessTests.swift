import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The harness's process spawning and fd counting with many fds open: the
/// situation in which CI saw the test runner die in libc (ChildProcess.swift).
@Suite("Child processes with many fds open")
struct ChildProcessTests {
    @Test("with 1,500 fds open here, /proc/PID/fd is counted exactly and a child starts with only its three standard streams")
    func manyOpenFileDescriptors() throws {
        let limit = ProcessStats.raiseFileLimit()
        try #require(limit >= 4000, "RLIMIT_NOFILE is \(limit)")
        let me = getpid()
        let extra = 1500
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<extra {
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            try #require(fd >= 0, "open /dev/null: \(String(cString: strerror(errno)))")
            held.append(fd)
        }
        // Other suites open and close fds meanwhile, so the count is only
        // bounded below; every held fd must be in it, by name.
        let names = try #require(ProcessStats.entries("/proc/\(me)/fd"))
        #expect(Set(held.map(String.init)).isSubset(of: Set(names)))
        #expect(try #require(ProcessStats.fdCount(me)) >= extra)

        let process = ChildProcess()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Counts the shell's own fds while it runs `ls`: stdin, stdout, stderr and
        // ls's handle on the directory.
        process.arguments = ["-c", "ls /proc/self/fd | wc -l"]
        process.standardOutput = output
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        try #require(exited.wait(timeout: .now() + 10) == .success, "the child did not exit")
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let inherited = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), "output: \(text)")
        #expect(inherited <= 4, "the child saw \(inherited) fds")
    }

    @Test("a child killed by a signal reports the signal, and a failing one its exit code")
    func terminationStatus() throws {
        for (script, reason, status) in [("kill -TERM $$", ChildProcess.TerminationReason.uncaughtSignal, SIGTERM), ("exit 7", .exit, 7)] {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script]
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            try #require(exited.wait(timeout: .now() + 10) == .success, "\(script): the child did not exit")
            #expect(process.terminationReason == reason, "\(script)")
            #expect(process.terminationStatus == status, "\(script)")
            #expect(!process.isRunning)
        }
    }
}
