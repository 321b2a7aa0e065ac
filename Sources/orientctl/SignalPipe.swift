#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// The self-pipe the signal handler writes to: two bytes per signal, the signal
/// number and 1 when the kernel sent it on the terminal's behalf (Ctrl-C, hangup).
private let signalPipe: (read: Int32, write: Int32) = {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return (-1, -1) }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return (fds[0], fds[1])
}()

/// Turns signals into calls on an ordinary thread: an async-signal-safe handler
/// writes them to a pipe, and a reader passes them on. Works whatever threads
/// exist and whatever their signal masks.
enum SignalPipe {
    /// Catches `signals` from now on and calls `sink` for each, on a background
    /// thread, with whether the terminal sent it. Call once per process.
    static func install(_ signals: [Int32], sink: @escaping @Sendable (_ signal: Int32, _ fromTerminal: Bool) -> Void) {
        let fds = signalPipe  // initialised here, never first inside the handler
        guard fds.read >= 0 else {
            Output.error("cannot create the signal pipe: \(String(cString: strerror(errno)))")
            return
        }
        DispatchQueue.global().async {
            var bytes: (UInt8, UInt8) = (0, 0)
            while true {
                let n = withUnsafeMutableBytes(of: &bytes) { read(fds.read, $0.baseAddress, 2) }
                if n == 2 { sink(Int32(bytes.0), bytes.1 == 1) }
                if n < 0 && errno != EINTR { return }
                if n == 0 { return }
            }
        }
        for signal in signals {
            var action = sigaction()
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_SIGINFO | Int32(SA_RESTART)
            action.__sigaction_handler.sa_sigaction = { signal, info, _ in
                let saved = errno
                var bytes: (UInt8, UInt8) = (UInt8(truncatingIfNeeded: signal), info?.pointee.si_code == Int32(SI_KERNEL) ? 1 : 0)
                _ = withUnsafeBytes(of: &bytes) { write(signalPipe.write, $0.baseAddress, 2) }
                errno = saved
            }
            sigaction(signal, &action, nil)
        }
    }

    /// The signals as a stream (for commands that stop on a signal).
    static func stream(_ signals: [Int32]) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        install(signals) { signal, _ in continuation.yield(signal) }
        return stream
    }
}
