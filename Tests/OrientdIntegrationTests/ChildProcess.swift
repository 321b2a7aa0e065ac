import CLinux
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn(3): the subset of Foundation's
/// `Process` the harnesses use (executable, arguments, environment, working
/// directory, standard streams as `FileHandle` or `Pipe`, termination handler
/// and status).
///
/// Why not `Process`: before it forks, swift-corelibs-foundation lists
/// /proc/self/fd to find the highest open fd and copies each `dirent` whole,
/// reading past the end of glibc's 32 KiB readdir buffer once about 1,350 fds
/// are open. The abuse suite holds over 1,100 client sockets in this process
/// while other suites start daemons, and CI saw the test runner die in libc
/// there (docs/robustness.md). Here the child closes every fd from 3 up with
/// `posix_spawn_file_actions_addclosefrom_np`, so nothing lists /proc.
final class ChildProcess: @unchecked Sendable {
    enum TerminationReason { case exit, uncaughtSignal }

    var executableURL: URL?
    var arguments: [String] = []
    var environment: [String: String]?
    var currentDirectoryURL: URL?
    /// A `FileHandle` or a `Pipe` (its write end for output, its read end for
    /// input); nil or `FileHandle.nullDevice` is /dev/null.
    var standardInput: Any?
    var standardOutput: Any?
    var standardError: Any?
    /// Called once, on a background thread, when the child has exited.
    var terminationHandler: (@Sendable (ChildProcess) -> Void)?

    private let lock = NSLock()
    private var pid: pid_t = 0
    private var waitStatus: Int32?
    private var exitedAt: ContinuousClock.Instant?

    var processIdentifier: Int32 { lock.withLock { pid } }
    var isRunning: Bool { lock.withLock { pid != 0 && waitStatus == nil } }
    /// When `waitpid` saw the child exit; nil while it runs.
    var exitInstant: ContinuousClock.Instant? { lock.withLock { exitedAt } }

    /// The exit code, or the signal number when `terminationReason` is `.uncaughtSignal`.
    var terminationStatus: Int32 {
        guard let status = lock.withLock({ waitStatus }) else { return 0 }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    }

    var terminationReason: TerminationReason {
        guard let status = lock.withLock({ waitStatus }) else { return .exit }
        return status & 0x7F == 0 ? .exit : .uncaughtSignal
    }

    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    func run() throws {
        guard let executable = executableURL?.path else { throw SpawnError(description: "no executable") }
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard devNull >= 0 else { throw SpawnError(description: "/dev/null: \(String(cString: strerror(errno)))") }
        defer { close(devNull) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let streams = [(standardInput, true), (standardOutput, false), (standardError, false)]
        for (target, (stream, isInput)) in streams.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, Self.descriptor(stream, isInput: isInput) ?? devNull, Int32(target))
        }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        if let directory = currentDirectoryURL?.path { posix_spawn_file_actions_addchdir_np(&actions, directory) }

        // Default signal mask and dispositions in the child, whatever this
        // process blocks or ignores.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = self.environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnError(description: "posix_spawn \(executable): \(String(cString: strerror(result)))") }
        let spawned = child
        lock.withLock { pid = spawned }

        // The child has its copies; ours of a pipe's far end would keep the
        // reader from ever seeing end of file.
        for (stream, isInput) in streams {
            guard let pipe = stream as? Pipe else { continue }
            try? (isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting).close()
        }

        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            while waitpid(spawned, &status, 0) < 0, errno == EINTR {}
            let now = ContinuousClock.now
            lock.withLock { (waitStatus, exitedAt) = (status, now) }
            terminationHandler?(self)
        }
    }

    private static func descriptor(_ stream: Any?, isInput: Bool) -> Int32? {
        switch stream {
        case let pipe as Pipe:
            return (isInput ? pipe.fileHandleForReading : pipe.fileHandleForWriting).fileDescriptor
        case let handle as FileHandle:
            return handle === FileHandle.nullDevice ? nil : handle.fileDescriptor
        default:
            return nil
        }
    }
}
