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
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cArguments.append(nil)
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, argv[0], nil, &attributes, &cArguments, environ)
        return result == 0 ? .pid(pid) : .failed(result)
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
