#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Hands commands from any thread to the I/O thread: a locked queue plus a
/// socketpair whose readable end wakes the thread's `poll`.
///
/// A byte is written only when the queue goes from empty to non-empty, so the
/// wake socket never fills up.
final class Mailbox: Sendable {
    private struct Queue {
        var commands: [EngineCommand] = []
        var closed = false
    }

    private let queue: Mutex<Queue>
    /// Readable when commands may be waiting; -1 when the mailbox could not be made.
    let wakeFD: Int32
    private let wakeWriteFD: Int32
    /// Why the mailbox is unusable from the start (no file descriptors), or nil.
    let startupFailure: String?

    init() {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        if socketpair(AF_UNIX, type, 0, &fds) == 0 {
            wakeFD = fds[0]
            wakeWriteFD = fds[1]
            startupFailure = nil
            queue = Mutex(Queue())
        } else {
            wakeFD = -1
            wakeWriteFD = -1
            startupFailure = "cannot create the client's wake-up socket: \(UnixStream.errorText(errno))"
            queue = Mutex(Queue(closed: true))
        }
    }

    deinit {
        if wakeFD >= 0 { Glibc.close(wakeFD) }
        if wakeWriteFD >= 0 { Glibc.close(wakeWriteFD) }
    }

    /// Queues `command` for the I/O thread; false when the thread is gone (the
    /// command was not queued and the caller must complete it itself).
    func post(_ command: EngineCommand) -> Bool {
        let (accepted, wake) = queue.withLock { queue -> (Bool, Bool) in
            guard !queue.closed else { return (false, false) }
            queue.commands.append(command)
            return (true, queue.commands.count == 1)
        }
        if wake {
            var byte: UInt8 = 1
            _ = Glibc.send(wakeWriteFD, &byte, 1, Int32(MSG_NOSIGNAL))
        }
        return accepted
    }

    /// Everything queued so far, in order (called by the I/O thread after `poll`).
    func takeAll() -> [EngineCommand] {
        var sink = [UInt8](repeating: 0, count: 64)
        while sink.withUnsafeMutableBytes({ recv(wakeFD, $0.baseAddress, $0.count, 0) }) > 0 {}
        return queue.withLock { queue in
            let commands = queue.commands
            queue.commands.removeAll()
            return commands
        }
    }

    /// Refuses further commands and returns those still queued.
    func closeQueue() -> [EngineCommand] {
        queue.withLock { queue in
            queue.closed = true
            let commands = queue.commands
            queue.commands.removeAll()
            return commands
        }
    }
}
