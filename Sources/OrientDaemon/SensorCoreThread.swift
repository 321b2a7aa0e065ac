#if canImport(Glibc)
import Glibc
#endif
import CLinux
import OrientProtocol
import OrientSensors
import Synchronization

/// The Sensor Core process's thread (`SensorCoreProcess`): the only one that
/// calls libssc and iterates GLib's default main context, while the
/// process's main thread reads the daemon's requests and writes back what
/// this thread posts.
///
/// libssc's objects are used as iio-sensor-proxy uses them: one per kind,
/// made once (`_new_sync`, the Sensor Core's discovery of that kind) and kept
/// while the service is up; a claim opens it (`_open_sync`) and the last
/// release closes it (`_close_sync`), so a kind that comes and goes costs
/// no new discovery, and no QMI client or GLib context is made again. When
/// the service goes away the daemon ends the process, and all of it with it.
///
/// Three things libssc does decide the order of calls here:
/// - `_open_sync` starts a report thread even when it fails, and only
///   `_close_sync` stops it: so a failed open is closed too.
/// - `_close_sync` joins that thread only once it has made its loop, which
///   it does just after `_open_sync` returns: a close that comes within a
///   few milliseconds of its open would wait for ever. A close waits until
///   the open is `settleMs` old.
/// - each measurement reaches the default context as an idle that points at
///   the object without holding it: the idles left after a close are
///   dispatched (to no handler) before an object is released.
final class SensorCoreThread: @unchecked Sendable {
    /// What the loop asks.
    enum Command: Sendable {
        case open(token: Int, kind: SensorKind)
        case close(token: Int)
    }

    /// How old an open must be before its close (see above), ms.
    static let settleMs = 100.0

    let outFD: Int32
    private let library: LibSSC
    private let state = Mutex(State())

    private struct State {
        var commands: [Command] = []
        var outputs: [SensorCoreMessage] = []
        var ending = false
        var ended = false
    }

    /// One kind's object: touched only on the thread.
    private struct Held {
        let object: OpaquePointer
        /// While open: the token, its handler, the listener it holds, and when it opened.
        var token: Int?
        var handler: UInt = 0
        var listener: Unmanaged<Listener>?
        var openedMs = 0.0
    }

    private var held: [SensorKind: Held] = [:]

    init(library: LibSSC) throws(SystemError) {
        self.library = library
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw SystemError("eventfd") }
        outFD = fd
    }

    func spawn() throws(SystemError) {
        do {
            // libssc's calls, GLib's dispatch and the protobuf decoding run here.
            try startThread(name: "orientd-ssc", stackSize: 1024 * 1024) { self.run() }
        } catch {
            Glibc.close(outFD)
            throw error
        }
    }

    /// Queues a command and wakes the thread (from the main thread).
    func ask(_ command: Command) {
        state.withLock { $0.commands.append(command) }
        library.wakeup(nil)
    }

    /// The outputs so far (on the main thread, when `outFD` is readable).
    func take() -> [SensorCoreMessage] {
        var count: UInt64 = 0
        _ = Glibc.read(outFD, &count, 8)
        return state.withLock { state in
            defer { state.outputs = [] }
            return state.outputs
        }
    }

    /// Waits (the process is about to exit) until the thread closed its sensors, at most `timeoutMs`.
    func waitEnded(timeoutMs: Double) {
        let deadline = MonotonicClock.nowMs() + timeoutMs
        while !state.withLock({ $0.ended }), MonotonicClock.nowMs() < deadline { usleep(10_000) }
    }

    /// Ends the thread: it closes every sensor.
    func end() {
        state.withLock { $0.ending = true }
        library.wakeup(nil)
    }

    /// From the thread (a measurement's callback among them).
    func post(_ output: SensorCoreMessage) {
        state.withLock { $0.outputs.append(output) }
        var one: UInt64 = 1
        _ = write(outFD, &one, 8)
    }

    private func run() {
        while true {
            let (commands, ending) = state.withLock { state in
                defer { state.commands = [] }
                return (state.commands, state.ending)
            }
            if ending { break }
            for command in commands {
                switch command {
                case .open(let token, let kind): open(token, kind)
                case .close(let token): close(token)
                }
            }
            // Until a measurement is dispatched or `ask` wakes it.
            _ = library.iterate(nil, 1)
        }
        drop()
        state.withLock { $0.ended = true }
    }

    private func open(_ token: Int, _ kind: SensorKind) {
        guard let calls = library.calls[kind] else { return }
        var error: UnsafeMutableRawPointer?
        if held[kind] == nil {
            guard let object = calls.new(nil, &error) else {
                // libssc says "no such sensor" with no error: the discovery found none.
                if error == nil {
                    post(.failed(token: token, why: .missing, message: "the Sensor Core has no \(kind.rawValue)"))
                } else {
                    post(.failed(token: token, why: .open, message: "no \(kind.rawValue) from the Sensor Core: \(library.take(error))"))
                }
                return
            }
            held[kind] = Held(object: object)
        }
        guard var sensor = held[kind], sensor.token == nil else {
            post(.failed(token: token, why: .open, message: "the Sensor Core's \(kind.rawValue) is already open"))
            return
        }
        let listener = Unmanaged.passRetained(Listener(token: token, thread: self))
        sensor.handler = library.signalConnect(sensor.object, "measurement", SensorCoreThread.callback(kind), listener.toOpaque(), nil, 0)
        sensor.listener = listener
        sensor.token = token
        let opened = calls.open(sensor.object, nil, &error) != 0
        sensor.openedMs = MonotonicClock.nowMs()
        held[kind] = sensor
        if opened {
            post(.opened(token: token))
        } else {
            let message = library.take(error)
            // Its report thread runs even so: closed as any open one.
            close(token)
            post(.failed(token: token, why: .open, message: "the Sensor Core's \(kind.rawValue) does not open: \(message)"))
        }
    }

    private func close(_ token: Int) {
        guard let (kind, sensor) = held.first(where: { $0.value.token == token }).map({ ($0.key, $0.value) }),
            let calls = library.calls[kind]
        else { return }
        library.signalDisconnect(sensor.object, sensor.handler)
        sensor.listener?.release()
        let age = MonotonicClock.nowMs() - sensor.openedMs
        if age < SensorCoreThread.settleMs { usleep(useconds_t((SensorCoreThread.settleMs - age) * 1000)) }
        var error: UnsafeMutableRawPointer?
        if calls.close(sensor.object, nil, &error) == 0 { _ = library.take(error) }
        held[kind] = Held(object: sensor.object)
        // The idles its report thread queued, to no handler now.
        while library.iterate(nil, 0) != 0 {}
    }

    private func drop() {
        for (kind, sensor) in held {
            if let token = sensor.token { close(token) }
            library.objectUnref(held[kind]?.object ?? sensor.object)
        }
        held = [:]
    }

    /// What a measurement's callback reaches: the token and the thread.
    final class Listener {
        let token: Int
        unowned let thread: SensorCoreThread
        init(token: Int, thread: SensorCoreThread) {
            self.token = token
            self.thread = thread
        }
    }

    /// The `measurement` signal's handler for `kind`, as a `GCallback`
    /// (libssc's signals carry gfloat x, y, z; gfloat; gboolean; gfloat).
    private static func callback(_ kind: SensorKind) -> UnsafeRawPointer {
        switch kind {
        case .accelerometer:
            let f: @convention(c) (OpaquePointer?, Float, Float, Float, UnsafeMutableRawPointer?) -> Void = { _, x, y, z, data in
                guard let data else { return }
                let listener = Unmanaged<Listener>.fromOpaque(data).takeUnretainedValue()
                listener.thread.post(.accelerometer(token: listener.token, x: Double(x), y: Double(y), z: Double(z)))
            }
            return unsafeBitCast(f, to: UnsafeRawPointer.self)
        case .light:
            let f: @convention(c) (OpaquePointer?, Float, UnsafeMutableRawPointer?) -> Void = { _, lux, data in
                guard let data else { return }
                let listener = Unmanaged<Listener>.fromOpaque(data).takeUnretainedValue()
                listener.thread.post(.light(token: listener.token, lux: Double(lux)))
            }
            return unsafeBitCast(f, to: UnsafeRawPointer.self)
        case .compass:
            let f: @convention(c) (OpaquePointer?, Float, UnsafeMutableRawPointer?) -> Void = { _, degrees, data in
                guard let data else { return }
                let listener = Unmanaged<Listener>.fromOpaque(data).takeUnretainedValue()
                listener.thread.post(.compass(token: listener.token, degrees: Double(degrees)))
            }
            return unsafeBitCast(f, to: UnsafeRawPointer.self)
        case .proximity:
            let f: @convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Void = { _, near, data in
                guard let data else { return }
                let listener = Unmanaged<Listener>.fromOpaque(data).takeUnretainedValue()
                listener.thread.post(.proximity(token: listener.token, near: near != 0))
            }
            return unsafeBitCast(f, to: UnsafeRawPointer.self)
        }
    }
}
