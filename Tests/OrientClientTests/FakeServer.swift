#if canImport(Glibc)
import Glibc
#endif
@testable import OrientClient
import OrientProtocol
import Synchronization

/// A test failure with a message.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs a blocking body on its own thread, so blocking socket calls never tie
/// up Swift concurrency's cooperative pool.
func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>, Never>) in
        let started = IOThread.start(stackBytes: 1 << 20) {
            continuation.resume(returning: Result { try body() })
        }
        if !started { continuation.resume(returning: .failure(TestFailure("cannot start a thread"))) }
    }
    return try result.get()
}

/// Resumes a continuation at most once, from whichever side gets there first.
private final class Once<T: Sendable>: Sendable {
    private let slot = Mutex<CheckedContinuation<Result<T, any Error>, Never>?>(nil)
    func set(_ continuation: CheckedContinuation<Result<T, any Error>, Never>) { slot.withLock { $0 = continuation } }
    func resume(_ result: Result<T, any Error>) {
        slot.withLock { slot -> CheckedContinuation<Result<T, any Error>, Never>? in
            defer { slot = nil }
            return slot
        }?.resume(returning: result)
    }
}

/// `operation`'s result, or a failure after `seconds` even if the operation
/// never returns (a hung continuation cannot hang the test).
func within<T: Sendable>(
    _ seconds: Double, _ what: String = "operation", _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let once = Once<T>()
    var timer: Task<Void, Never>?
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>, Never>) in
        once.set(continuation)
        Task {
            do { once.resume(.success(try await operation())) } catch { once.resume(.failure(error)) }
        }
        timer = Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            once.resume(.failure(TestFailure("\(what) did not finish within \(seconds) s")))
        }
    }
    timer?.cancel()
    return try result.get()
}

/// The `OrientClientError` an operation threw, or a failure when it returned,
/// threw something else, or took longer than `seconds`.
func clientError<T: Sendable>(
    _ seconds: Double = 5, _ operation: @escaping @Sendable () async throws -> T
) async throws -> OrientClientError {
    let outcome: Result<T, OrientClientError> = try await within(seconds) {
        do {
            return .success(try await operation())
        } catch let error as OrientClientError {
            return .failure(error)
        }
    }
    switch outcome {
    case .success(let value): throw TestFailure("expected an OrientClientError, got \(value)")
    case .failure(let error): return error
    }
}

/// A unique temporary directory, removed with its contents by `remove()`.
func makeTemporaryDirectory() throws -> String {
    var template = Array("/tmp/orientclient-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
        guard let base = buffer.baseAddress else { return false }
        return mkdtemp(base) != nil
    }
    guard made else { throw TestFailure("mkdtemp failed: \(String(cString: strerror(errno)))") }
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A scripted stand-in for orientd: a real listening Unix socket in a temp
/// directory whose every step the test drives (accept, send, read, close),
/// each with a timeout.
final class FakeServer: Sendable {
    let directory: String
    let path: String
    private let listenFD: Mutex<Int32>

    init() throws {
        directory = try makeTemporaryDirectory()
        path = directory + "/orientd.sock"
        listenFD = Mutex(-1)
        try listen()
    }

    deinit {
        stopListening()
        rmdir(directory)
    }

    /// Starts listening on `path` (again, after `stopListening()`).
    func listen() throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let size = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        unlink(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        guard bound == 0, Glibc.listen(fd, 16) == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw TestFailure("bind/listen \(path): \(message)")
        }
        listenFD.withLock { $0 = fd }
    }

    /// Closes the listening socket and removes the socket file (the daemon is "down").
    func stopListening() {
        let fd = listenFD.withLock { fd -> Int32 in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { close(fd) }
        unlink(path)
    }

    /// The next connection, within `timeout` seconds.
    func accept(timeout: Double = 15) async throws -> FakeConnection {
        let fd = listenFD.withLock { $0 }
        let accepted = try await offload { () throws -> Int32 in
            guard fd >= 0 else { throw TestFailure("not listening") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else {
                throw TestFailure("no client connected within \(timeout) s")
            }
            let client = Glibc.accept(fd, nil, nil)
            guard client >= 0 else { throw TestFailure("accept: \(String(cString: strerror(errno)))") }
            return client
        }
        return FakeConnection(fd: accepted)
    }

    /// Accepts a connection and greets it with the protocol-1 hello.
    func acceptAndGreet(timeout: Double = 15) async throws -> FakeConnection {
        let connection = try await accept(timeout: timeout)
        try await connection.send(Reply.hello(version: "fake"))
        return connection
    }

    /// Whether a client connects within `seconds` (the connection is closed again).
    func anyConnection(within seconds: Double) async throws -> Bool {
        do {
            let connection = try await accept(timeout: seconds)
            connection.close()
            return true
        } catch {
            return false
        }
    }
}

/// The server's side of one client connection.
final class FakeConnection: Sendable {
    private let fd: Int32
    private let state = Mutex<(buffer: [UInt8], closed: Bool)>(([], false))

    init(fd: Int32) {
        self.fd = fd
        // Blocking I/O, bounded by poll timeouts.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    }

    deinit { close() }

    /// Sends `line` and a newline.
    func send(_ line: String) async throws {
        let bytes = Array((line + "\n").utf8)
        let fd = self.fd
        try await offload {
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { throw TestFailure("send: \(String(cString: strerror(errno)))") }
                offset += n
            }
        }
    }

    /// The next line the client sent, without its newline.
    func readLine(timeout: Double = 15) async throws -> String {
        let fd = self.fd
        return try await offload { [self] in
            let deadline = MonotonicTime.nowMs() + timeout * 1000
            while true {
                if let line = state.withLock({ state -> String? in
                    guard let newline = state.buffer.firstIndex(of: 0x0A) else { return nil }
                    let line = String(decoding: state.buffer[..<newline], as: UTF8.self)
                    state.buffer.removeFirst(newline + 1)
                    return line
                }) {
                    return line
                }
                let left = deadline - MonotonicTime.nowMs()
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard left > 0, poll(&poller, 1, Int32(left)) == 1 else {
                    throw TestFailure("no line from the client within \(timeout) s")
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { throw TestFailure("the client closed the connection") }
                state.withLock { $0.buffer.append(contentsOf: chunk[0..<n]) }
            }
        }
    }

    /// The next request, decoded as the daemon decodes it.
    func readRequest(timeout: Double = 15) async throws -> RequestLine {
        let line = try await readLine(timeout: timeout)
        switch RequestDecoder.decode(Array(line.utf8)) {
        case .success(let request): return request
        case .failure(let error): throw TestFailure("the client sent a bad request '\(line)': \(error)")
        }
    }

    /// The next line if the client sends one within `seconds`, else nil.
    func lineIfAny(within seconds: Double) async -> String? {
        try? await readLine(timeout: seconds)
    }

    /// Closes the connection (the daemon went away).
    func close() {
        let wasOpen = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        if wasOpen { Glibc.close(fd) }
    }
}

/// An AsyncStream iterator that can be shared with the helper tasks of `within`.
final class AsyncStreamBox<T: Sendable>: @unchecked Sendable {
    // Only one `next()` runs at a time: each test awaits it before calling again.
    private var iterator: AsyncStream<T>.Iterator
    init(_ stream: AsyncStream<T>) { iterator = stream.makeAsyncIterator() }
    func next() async -> T? { await iterator.next() }
}

/// A state message for tests.
func testState(
    _ orientation: Orientation = .normal, locked: Orientation? = nil, allowed: OrientationMask = .all, tMs: Double = 0
) -> StateMessage {
    let layout = Layout(orientation: orientation, natural: .portrait)
    return StateMessage(
        orientation: orientation, physical: orientation, tilt: .vertical, rotation: orientation.rotation,
        layout: layout, axis: layout.axis, allowed: allowed, locked: locked, sensor: .mock, tMs: tMs)
}

/// Options that make tests quick: short timeouts, fast reconnection.
func fastOptions(timeout: Duration = .seconds(15)) -> OrientClient.Options {
    var options = OrientClient.Options()
    options.requestTimeout = timeout
    options.initialReconnectDelay = .milliseconds(10)
    options.maximumReconnectDelay = .milliseconds(100)
    return options
}
