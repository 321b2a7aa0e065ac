#if canImport(Glibc)
import Glibc
#endif
import CLinux
import OrientProtocol
import OrientSensors

/// The daemon's side of its Sensor Core process (`orientd --sensor-core`,
/// `SensorCoreProcess`): started with a pipe each way, its lines read on the
/// loop and written without blocking, ended with SIGKILL and reaped.
final class SensorCoreChild {
    /// Each message from the process.
    var onMessage: (SensorCoreMessage) -> Void = { _ in }
    /// The process ended (its output closed): how.
    var onEnd: (String) -> Void = { _ in }

    let pid: pid_t
    private let loop: EventLoop
    private let log: Log
    private var toChild: Int32
    private var fromChild: Int32
    private var buffer: [UInt8] = []
    private var loggedBadLine = false

    /// Starts `/proc/self/exe --sensor-core`.
    init(loop: EventLoop, log: Log) throws(SystemError) {
        self.loop = loop
        self.log = log
        var down: [Int32] = [-1, -1], up: [Int32] = [-1, -1]
        guard pipe2(&down, O_CLOEXEC) == 0 else { throw SystemError("pipe2") }
        guard pipe2(&up, O_CLOEXEC) == 0 else {
            let error = SystemError("pipe2")
            Glibc.close(down[0])
            Glibc.close(down[1])
            throw error
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, down[0], 0)
        posix_spawn_file_actions_adddup2(&actions, up[1], 1)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The daemon blocks the signals its signalfd reads: the process must not.
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = ["/proc/self/exe", SensorCoreProcess.argument]
        var cArguments: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, &cArguments, environ)
        Glibc.close(down[0])
        Glibc.close(up[1])
        guard spawned == 0 else {
            Glibc.close(down[1])
            Glibc.close(up[0])
            throw SystemError("posix_spawn(orientd --sensor-core)", code: spawned)
        }
        self.pid = pid
        toChild = down[1]
        fromChild = up[0]
        _ = fcntl(toChild, F_SETFL, fcntl(toChild, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fromChild, F_SETFL, fcntl(fromChild, F_GETFL) | O_NONBLOCK)
        loop.watch(fromChild, for: .readable) { [unowned self] _ in self.readable() }
    }

    /// Sends one request (dropped, and logged, if the pipe is full or gone:
    /// the process's end says the rest).
    func send(_ message: SensorCoreMessage) {
        guard toChild >= 0 else { return }
        let bytes = Array((message.line + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(toChild, $0.baseAddress, $0.count) }
        if written != bytes.count { log.warning("Sensor Core: cannot send '\(message.line)' to its process: \(SystemError("write"))") }
    }

    private func readable() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fromChild, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN { break }
            guard count > 0 else {
                ended()
                return
            }
            buffer += chunk.prefix(count)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                do throws(SensorCoreMessageError) {
                    onMessage(try SensorCoreMessage.parse(line))
                } catch {
                    if !loggedBadLine { log.warning("Sensor Core: ignoring its process's line: \(error)") }
                    loggedBadLine = true
                }
                // A message's handler may have ended it.
                if fromChild < 0 { return }
            }
            if buffer.count > SensorCoreMessage.maxLine {
                log.warning("Sensor Core: its process sent a line over \(SensorCoreMessage.maxLine) bytes; dropping it")
                buffer = []
            }
        }
    }

    /// Its output closed: it ended (or is ending); reaped.
    private func ended() {
        let how = end()
        onEnd(how)
    }

    /// Ends the process now (SIGKILL: what libssc holds goes with it) and
    /// reaps it; returns how it ended. Idempotent.
    @discardableResult
    func end() -> String {
        guard fromChild >= 0 else { return "ended" }
        loop.unwatch(fromChild)
        Glibc.close(fromChild)
        Glibc.close(toChild)
        fromChild = -1
        toChild = -1
        var status: Int32 = 0
        // Still running (it closed its output, or the daemon ends it): killed
        // first, so that the wait is the kernel's teardown, not the process's.
        if waitpid(pid, &status, WNOHANG) == 0 {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        let signal = status & 0x7f
        return signal == 0 ? "exit \((status >> 8) & 0xff)" : "signal \(signal)"
    }

    /// Closes its input and lets it close its sensors and exit by itself
    /// (the daemon stops): not waited for.
    func close() {
        guard fromChild >= 0 else { return }
        loop.unwatch(fromChild)
        Glibc.close(toChild)
        Glibc.close(fromChild)
        toChild = -1
        fromChild = -1
    }
}
