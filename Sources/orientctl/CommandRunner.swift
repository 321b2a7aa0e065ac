#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol
import Dispatch
import Synchronization

/// What one command did.
struct CommandResult: Sendable {
    /// The shell's `$?`: the exit status, 128+N when signal N killed it, 127
    /// when it could not be found, 126 when it could not be run.
    var status: Int32
    /// Killed because it ran past its deadline.
    var timedOut = false
    /// posix_spawn's errno when it could not start.
    var spawnError: Int32?
    var output = ""
    var errorOutput = ""
    var milliseconds = 0

    var succeeded: Bool { status == 0 && !timedOut && spawnError == nil }

    /// `exit 0`, `exit 2: <first line of stderr>`, `killed after 5 s`, `not found`.
    var summary: String {
        if let spawnError {
            switch spawnError {
            case ENOENT: return "not found"
            case ECANCELED: return "not run: orientctl is stopping"
            default: return "cannot run: \(String(cString: strerror(spawnError)))"
            }
        }
        var text = timedOut ? "timed out, killed" : "exit \(status)"
        text += " (\(milliseconds) ms)"
        if !succeeded, let line = errorOutput.split(separator: "\n").first(where: { !$0.allSatisfy(\.isWhitespace) }) {
            text += ": " + line.prefix(200)
        }
        return text
    }
}

/// Runs the commands `follow` issues: each in its own process group (so a
/// timeout kills its children too), stdin from /dev/null, output captured,
/// killed at the deadline. Blocking work happens on a Dispatch thread, never
/// on the caller's.
enum CommandRunner {
    /// The process groups running now, killed when orientctl is stopped; once
    /// it is stopping, no command starts.
    private static let running = Mutex<(groups: Set<pid_t>, stopping: Bool)>(([], false))

    /// Standard output is kept up to this size (a compositor's output list with all its modes fits).
    static let outputLimit = 4 << 20
    /// Standard error is kept up to this size (the log shows its first line).
    static let errorLimit = 64 << 10

    static func run(_ argv: [String], environment extra: [String: String], timeout: Double) async -> CommandResult {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: runBlocking(argv, environment: extra, timeout: timeout))
            }
        }
    }

    /// True once `terminateAll` was called.
    static var isStopping: Bool { running.withLock { $0.stopping } }

    /// Sends SIGTERM to every command still running (orientctl is stopping).
    static func terminateAll() {
        running.withLock { running in
            running.stopping = true
            for group in running.groups { kill(-group, SIGTERM) }
        }
    }

    private static func runBlocking(_ argv: [String], environment extra: [String: String], timeout: Double) -> CommandResult {
        let start = Int(MonotonicClock.nowMs())
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard closeOnExecPipe(&outPipe) else { return CommandResult(status: 126, spawnError: errno) }
        guard closeOnExecPipe(&errPipe) else {
            let code = errno
            close(outPipe[0])
            close(outPipe[1])
            return CommandResult(status: 126, spawnError: code)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)

        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = environmentEntries(adding: extra).map { strdup($0) } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var pid: pid_t = 0
        // Registered under the lock, so terminateAll() never misses a command that started.
        let spawned = ChildProcess.withAttributes(newProcessGroup: true) { attributes in
            running.withLock { running in
                if running.stopping { return ECANCELED }
                let result = posix_spawnp(&pid, argv[0], &actions, &attributes, &cArguments, &cEnvironment)
                if result == 0 { running.groups.insert(pid) }
                return result
            }
        }
        close(outPipe[1])
        close(errPipe[1])
        defer {
            close(outPipe[0])
            close(errPipe[0])
        }
        guard spawned == 0 else {
            return CommandResult(status: spawned == ENOENT ? 127 : 126, spawnError: spawned)
        }

        var result = CommandResult(status: 0)
        var out: [UInt8] = []
        var err: [UInt8] = []
        let deadline = start + Int(timeout * 1000)
        var open = [true, true]
        var exitStatus: Int32?
        // With both pipes closed the command is usually just exiting: look again
        // soon, then less and less often (one that closed them and runs on is
        // still killed at the deadline).
        var closedWait = 1
        while exitStatus == nil || open.contains(true) {
            if exitStatus == nil {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid { exitStatus = ChildProcess.exitCode(waitStatus: status) }
            }
            let now = Int(MonotonicClock.nowMs())
            if now >= deadline && exitStatus == nil {
                kill(-pid, SIGKILL)
                result.timedOut = true
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                exitStatus = ChildProcess.exitCode(waitStatus: status)
                break
            }
            // Once the command has exited, only what is already buffered is read:
            // a background child holding the pipe open does not hold up the log.
            var wait = exitStatus == nil ? Int32(min(50, max(0, deadline - now))) : 0
            if exitStatus == nil && !open.contains(true) {
                wait = Int32(min(closedWait, Int(wait)))
                closedWait = min(50, closedWait * 2)
            }
            var fds = [pollfd(fd: outPipe[0], events: Int16(POLLIN), revents: 0), pollfd(fd: errPipe[0], events: Int16(POLLIN), revents: 0)]
            for i in 0..<2 where !open[i] { fds[i].fd = -1 }
            let ready = poll(&fds, 2, wait)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 {
                if exitStatus != nil { break }
                continue
            }
            for i in 0..<2 where open[i] && fds[i].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 16384)
                let n = chunk.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, $0.count) }
                if n <= 0 {
                    if n == 0 || errno != EINTR { open[i] = false }
                    continue
                }
                if i == 0 {
                    if out.count < outputLimit { out += chunk[..<n] }
                } else if err.count < errorLimit {
                    err += chunk[..<n]
                }
            }
        }
        _ = running.withLock { $0.groups.remove(pid) }
        result.status = exitStatus ?? 128 + SIGKILL
        result.output = String(decoding: out, as: UTF8.self)
        result.errorOutput = String(decoding: err, as: UTF8.self)
        result.milliseconds = Int(MonotonicClock.nowMs()) - start
        return result
    }

    /// pipe(2) with both ends close-on-exec (Glibc's module lacks pipe2).
    private static func closeOnExecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// This process's environment with `extra` set (replacing any same-named entries).
    private static func environmentEntries(adding extra: [String: String]) -> [String] {
        environmentVariables().merging(extra) { _, new in new }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }
}

/// This process's environment variables.
func environmentVariables() -> [String: String] {
    var variables: [String: String] = [:]
    var index = 0
    while let entry = environ[index] {
        let parts = String(cString: entry).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2 { variables[String(parts[0])] = String(parts[1]) }
        index += 1
    }
    return variables
}
