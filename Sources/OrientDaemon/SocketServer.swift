#if canImport(Glibc)
import Glibc
#endif
import CLinux
import OrientProtocol

/// Limits that keep one client from hurting the daemon or the others (docs/protocol.md, docs/behaviour.md).
package struct ServerLimits: Sendable, Equatable {
    /// Most clients connected at once; the next one gets a `limit` error and is closed.
    package var clients: Int = 256
    /// Longest request line in bytes, newline excluded; longer gets `too-long` and is closed.
    package var lineLength: Int = 4096
    /// Most bytes of unread replies before the client is disconnected.
    package var replyBuffer: Int = 65536
    /// Most clients one uid other than root may have connected.
    package var clientsPerUID: Int = 64
    /// The last slots of the table, which only root and the seat may take.
    package var reservedClients: Int = 32

    package init() {}
}

/// The Unix stream socket server: accepts clients, splits their input into
/// lines, and writes replies without ever blocking the event loop.
///
/// Writes use MSG_NOSIGNAL (no SIGPIPE). A client that stops reading first has
/// its state messages coalesced (it gets the latest state when it drains), and
/// is disconnected when its other unread replies pass `limits.replyBuffer`.
package final class SocketServer {
    package let path: String
    package var limits: ServerLimits
    /// Called with each complete line (without the newline).
    package var onLine: (ClientConnection, ArraySlice<UInt8>) -> Void = { _, _ in }
    /// Called after a client is accepted (before any line).
    package var onConnect: (ClientConnection) -> Void = { _ in }
    /// Called once when a client is gone (its constraints must vanish).
    package var onClose: (ClientConnection) -> Void = { _ in }
    /// The latest state line, sent to a subscribed client whose state was coalesced.
    package var latestState: () -> String = { "" }
    /// Whether a uid is root or the seat, which may take the reserved slots.
    package var isSeat: (UInt32?) -> Bool = { $0 == 0 }
    /// Called when a client owed sensor readings (`sensorsOwed`) has drained its replies.
    package var onDrained: (ClientConnection) -> Void = { _ in }

    private let loop: EventLoop
    private let log: Log
    private let listenFD: Int32
    private let ownsPath: Bool
    /// Every connected client, and the subscribed ones, in no particular order
    /// (each client knows its position, so removal is a swap, not a search).
    private var clients: [ClientConnection] = []
    private var subscribers: [ClientConnection] = []
    /// The state line last published, newline included, encoded once for every subscriber.
    private var stateLine: [UInt8] = []
    /// Where every client's input is received first (one buffer, not one per read).
    private var chunk = [UInt8](repeating: 0, count: 16384)
    private var nextSerial = 1
    /// Kept open so that at the fd limit one can be freed to accept and refuse.
    private var reserveFD: Int32 = -1
    private var fdLimitLog = ThrottledLog(level: .warning)
    /// Refused connections are logged at most once per interval (a hog retrying
    /// in a loop would otherwise fill the journal).
    private var refusalLog = ThrottledLog(level: .notice)
    /// How many clients each uid has connected (not counting ones being refused).
    private var clientsByUID: [UInt32: Int] = [:]

    /// The connected clients.
    package var connections: [ClientConnection] { clients }
    /// How many clients are subscribed.
    package var subscriberCount: Int { subscribers.count }

    /// Listens on `path`, replacing a stale socket file left by a dead daemon.
    /// Throws when the path is in use by a live server or cannot be created.
    package init(path: String, limits: ServerLimits, loop: EventLoop, log: Log) throws(ServerError) {
        self.path = path
        self.limits = limits
        self.loop = loop
        self.log = log
        listenFD = try SocketServer.listen(path: path, log: log)
        ownsPath = true
        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        loop.watch(listenFD, for: .readable) { [unowned self] _ in self.acceptClients() }
    }

    /// Serves an already listening socket (socket activation); never unlinks its path.
    package init(listeningFD fd: Int32, path: String, limits: ServerLimits, loop: EventLoop, log: Log) {
        self.path = path
        self.limits = limits
        self.loop = loop
        self.log = log
        listenFD = fd
        ownsPath = false
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        loop.watch(listenFD, for: .readable) { [unowned self] _ in self.acceptClients() }
    }

    /// Closes every client and the listening socket, and removes the socket file.
    package func shutdown() {
        for client in clients { drop(client, reason: nil) }
        loop.unwatch(listenFD)
        close(listenFD)
        if ownsPath { unlink(path) }
        if reserveFD >= 0 { close(reserveFD) }
    }

    // MARK: Writing

    /// Queues `line` (a newline is added) for `client`; disconnects it when its
    /// unread replies pass the bound.
    package func send(_ line: String, to client: ClientConnection) {
        guard !client.closing else { return }
        client.writeBuffer.append(contentsOf: line.utf8)
        client.writeBuffer.append(0x0A)
        guard client.queuedBytes <= limits.replyBuffer else {
            drop(client, reason: "\(client.queuedBytes) bytes of replies unread (limit \(limits.replyBuffer))")
            return
        }
        flush(client)
    }

    /// Subscribes `client` to state messages (no effect if it is already).
    package func subscribe(_ client: ClientConnection) {
        client.stateOwed = false
        guard !client.closing, client.subscriberIndex < 0 else { return }
        client.subscriberIndex = subscribers.count
        subscribers.append(client)
    }

    /// Ends `client`'s state messages (no effect if it is not subscribed).
    package func unsubscribe(_ client: ClientConnection) {
        let index = client.subscriberIndex
        guard index >= 0 else { return }
        let last = subscribers.removeLast()
        if index < subscribers.count {
            subscribers[index] = last
            last.subscriberIndex = index
        }
        client.subscriberIndex = -1
    }

    /// Sends a state line to every subscriber.
    ///
    /// The line is encoded once. A subscriber with nothing queued gets it
    /// straight from that buffer in one non-blocking send: no copy, and no
    /// epoll change unless the socket is full. A subscriber with replies still
    /// queued, or whose socket is full, is marked "state owed" instead and gets
    /// the latest state when it drains (coalescing: never a stale one, and a
    /// subscriber that never reads costs one flag per publish).
    package func publishState(_ line: String) {
        stateLine.removeAll(keepingCapacity: true)
        stateLine.append(contentsOf: line.utf8)
        stateLine.append(0x0A)
        // Failures are dropped after the loop: a drop reorders `subscribers`.
        var failed: [(ClientConnection, Int32)] = []
        stateLine.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let count = bytes.count
            subscribers.withUnsafeBufferPointer { list in
                for slot in list.indices {
                    // The array keeps every subscriber alive and does not change
                    // during the loop: no retain and release per subscriber.
                    unowned(unsafe) let client = list[slot]
                    if client.queuedBytes > 0 || client.stateOwed {
                        client.stateOwed = true
                        continue
                    }
                    var n: Int
                    repeat {
                        n = Glibc.send(client.fd, base, count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                    } while n < 0 && errno == EINTR
                    if n == count { continue }
                    if n >= 0 {
                        // Part of the line went out: the rest must follow before anything else.
                        client.writeBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[n...]))
                        watch(client, [.readable, .writable, .hangup])
                    } else if errno == EAGAIN || errno == EWOULDBLOCK {
                        client.stateOwed = true
                        watch(client, [.readable, .writable, .hangup])
                    } else {
                        failed.append((client, errno))
                    }
                }
            }
        }
        for (client, code) in failed { dropAfterWriteFailure(client, code) }
    }

    /// Sends `line`, then closes the connection once it is written (or at once if
    /// the client does not read).
    package func sendAndClose(_ line: String, to client: ClientConnection, reason: String?) {
        guard !client.closing else { return }
        client.writeBuffer.append(contentsOf: line.utf8)
        client.writeBuffer.append(0x0A)
        flush(client)
        drop(client, reason: reason)
    }

    private func flush(_ client: ClientConnection) {
        while client.queuedBytes > 0 {
            let n = client.writeBuffer.withUnsafeBytes { buffer in
                Glibc.send(client.fd, buffer.baseAddress.map { $0 + client.writeOffset }, client.queuedBytes, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                client.writeOffset += n
                continue
            }
            if n < 0, errno == EINTR { continue }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                watch(client, client.readClosed ? .writable : [.readable, .writable, .hangup])
                return
            }
            if n < 0 { dropAfterWriteFailure(client, errno) } else { drop(client, reason: "write failed") }
            return
        }
        client.writeBuffer.removeAll(keepingCapacity: client.writeBuffer.capacity <= 16384)
        client.writeOffset = 0
        if client.readClosed {
            drop(client, reason: nil)
            return
        }
        if client.stateOwed, client.subscribed {
            client.stateOwed = false
            send(latestState(), to: client)
            return
        }
        if !client.sensorsOwed.isEmpty {
            onDrained(client)
            if client.closing || client.queuedBytes > 0 { return }
        }
        watch(client, [.readable, .hangup])
    }

    /// Changes the events epoll watches for `client`, when they differ.
    private func watch(_ client: ClientConnection, _ events: EventLoop.Events) {
        guard client.watched != events else { return }
        client.watched = events
        loop.change(client.fd, to: events)
    }

    // MARK: Reading

    private func acceptClients() {
        while true {
            let fd = orientd_accept4(listenFD, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
            if fd < 0 {
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return
                case EMFILE, ENFILE: refuseAtFDLimit(); return
                default:
                    log.warning("accept: \(String(cString: strerror(errno)))")
                    return
                }
            }
            let client = ClientConnection(serial: nextSerial, fd: fd)
            nextSerial += 1
            client.index = clients.count
            clients.append(client)
            loop.watch(fd, for: [.readable, .hangup]) { [unowned self] events in self.service(client, events) }
            if let refusal = refusal(of: client) {
                refusalLog.write("\(client.name) refused: \(refusal)", to: log)
                sendAndClose(ProtocolError(code: .limit, message: refusal, seq: nil).json(), to: client, reason: nil)
                continue
            }
            if let uid = client.uid { clientsByUID[uid, default: 0] += 1 }
            client.counted = true
            log.info("\(client.name) connected")
            onConnect(client)
        }
    }

    /// Why `client` (already in the table) may not stay, or nil. No uid but
    /// root may have more than `clientsPerUID`, and the last `reservedClients`
    /// slots are for root and the seat: one uid cannot lock the others out.
    private func refusal(of client: ClientConnection) -> String? {
        let total = clients.count
        if total > limits.clients { return "too many clients (limit \(limits.clients))" }
        guard client.uid != 0 else { return nil }
        let mine = client.uid.map { clientsByUID[$0, default: 0] } ?? 0
        if mine >= limits.clientsPerUID {
            return "too many clients of uid \(client.uid.map(String.init) ?? "?") (clients-per-uid \(limits.clientsPerUID))"
        }
        if total > limits.clients - limits.reservedClients, !isSeat(client.uid) {
            return "the last \(limits.reservedClients) of \(limits.clients) client slots are reserved for root and the seat (reserved-clients)"
        }
        return nil
    }

    /// At the fd limit the pending connection would keep the listener readable
    /// forever: free the reserve fd, accept and close the connection, take the
    /// reserve back. The client sees its connection closed instead of a hang.
    private func refuseAtFDLimit() {
        fdLimitLog.write("accept: out of file descriptors; refusing connections", to: log)
        guard reserveFD >= 0 else { return }
        close(reserveFD)
        let fd = orientd_accept4(listenFD, Int32(SOCK_CLOEXEC.rawValue))
        if fd >= 0 { close(fd) }
        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    private func service(_ client: ClientConnection, _ events: EventLoop.Events) {
        if events.contains(.writable) { flush(client) }
        guard !client.closing else { return }
        if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) { readFrom(client) }
    }

    private func readFrom(_ client: ClientConnection) {
        // A client that writes without pause must not starve the others: read at
        // most this many chunks per wakeup (epoll is level-triggered; the rest waits).
        var budget = 16
        while !client.closing, budget > 0 {
            budget -= 1
            let n = chunk.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                client.readBuffer.append(contentsOf: chunk[0..<n])
                processLines(client)
                continue
            }
            if n < 0, errno == EINTR { continue }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
            if n == 0, client.queuedBytes > 0, !client.readClosed {
                // Half-closed: the replies it asked for still go out, then it is closed.
                client.readClosed = true
                watch(client, .writable)
                return
            }
            // A reset by a peer that went away is an ordinary disconnect.
            let quiet = n == 0 || errno == ECONNRESET
            drop(client, reason: quiet ? nil : "read failed: \(String(cString: strerror(errno)))")
            return
        }
    }

    private func processLines(_ client: ClientConnection) {
        var start = 0
        let buffer = client.readBuffer
        while !client.closing, let newline = buffer[start...].firstIndex(of: 0x0A) {
            let line = buffer[start..<newline]
            start = newline + 1
            if line.count > limits.lineLength {
                tooLong(client)
                return
            }
            onLine(client, line)
        }
        guard !client.closing else { return }
        client.readBuffer.removeFirst(start)
        if client.readBuffer.count > limits.lineLength { tooLong(client) }
    }

    private func tooLong(_ client: ClientConnection) {
        sendAndClose(
            ProtocolError(code: .tooLong, message: "request line longer than \(limits.lineLength) bytes", seq: nil).json(),
            to: client, reason: "sent a line longer than \(limits.lineLength) bytes")
    }

    /// Closes a client and forgets it; `reason` is logged when not nil.
    package func drop(_ client: ClientConnection, reason: String?) {
        guard !client.closing else { return }
        client.closing = true
        if let reason { log.notice("\(client.name) disconnected: \(reason)") } else { log.info("\(client.name) disconnected") }
        loop.unwatch(client.fd)
        close(client.fd)
        unsubscribe(client)
        let last = clients.removeLast()
        if client.index < clients.count {
            clients[client.index] = last
            last.index = client.index
        }
        client.index = -1
        if client.counted, let uid = client.uid {
            let left = clientsByUID[uid, default: 1] - 1
            clientsByUID[uid] = left > 0 ? left : nil
        }
        // Not from inside a send: a drop can happen while the daemon is sending a
        // state to every subscriber, and the consequences (its constraints
        // vanishing, a newer state) must follow that loop, not interleave with it.
        loop.schedule(atMs: 0) { [unowned self] in self.onClose(client) }
    }

    /// Drops a client a write failed for. A client that went away (EPIPE,
    /// ECONNRESET: Ctrl-C on `orientctl watch`) is an ordinary disconnect,
    /// logged at info level; any other failure is worth a notice.
    private func dropAfterWriteFailure(_ client: ClientConnection, _ code: Int32) {
        let reason = "write failed: \(String(cString: strerror(code)))"
        guard code == EPIPE || code == ECONNRESET else {
            drop(client, reason: reason)
            return
        }
        log.info("\(client.name) went away (\(reason))")
        drop(client, reason: nil)
    }
}
