#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Spawning the command `hold` runs, and waiting for it.
enum ChildProcess {
    /// A started child, or why it could not start.
    enum Started {
        case pid(pid_t)
        /// The errno of the failure (ENOENT: not found).
        case failed(Int32)
    }

    /// Starts `argv` (searched in PATH) with this process's environment, an empty
    /// signal mask and default signal actions.
    static func spawn(_ argv: [String]) -> Started {
        withAttributes(newProcessGroup: false) { attributes in
            var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
            cArguments.append(nil)
            defer { for pointer in cArguments { free(pointer) } }
            var pid: pid_t = 0
            let result = posix_spawnp(&pid, argv[0], nil, &attributes, &cArguments, environ)
            return result == 0 ? .pid(pid) : .failed(result)
        }
    }

    /// posix_spawn attributes for a command: an empty signal mask, default
    /// actions for the signals orientctl catches, and with `newProcessGroup`
    /// a process group of its own (so it can be killed with its children).
    static func withAttributes<Result>(newProcessGroup: Bool, _ body: (inout posix_spawnattr_t) -> Result) -> Result {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        return body(&attributes)
    }

    /// Waits for `pid` on a background thread; its exit status, or 128 + N when
    /// signal N killed it (the shell's convention).
    static func wait(_ pid: pid_t) async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 {
                    guard errno == EINTR else {
                        continuation.resume(returning: 70)
                        return
                    }
                }
                continuation.resume(returning: exitCode(waitStatus: status))
            }
        }
    }

    /// The shell's `$?` for a `waitpid` status.
    static func exitCode(waitStatus status: Int32) -> Int32 {
        let signal = status & 0x7f
        if signal == 0 { return (status >> 8) & 0xff }
        return 128 + signal
    }
}
