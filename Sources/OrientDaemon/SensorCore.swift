#if canImport(Glibc)
import Glibc
#endif
import CLinux
import OrientProtocol
import OrientSensors
import Synchronization

/// A Qualcomm phone's Snapdragon Sensor Core (SSC): whether its sensors can be
/// read now, and the thread that reads them through libssc.
///
/// **Whether.** Three things must hold: libssc loads (`LibSSC`); the kernel
/// has QRTR (`AF_QIPCRTR`); and the Sensor Core's service (QMI 400) is up.
/// The last is followed through the QRTR name service: a lookup socket the
/// loop watches, which hears of the service as it starts and stops (the
/// DSP's firmware restarting, or `hexagonrpcd` not yet serving). A socket
/// that only hears of such changes costs no wakeups. `availability` says
/// which holds, and `onChange` tells the hub, which then shows or hides the
/// Sensor Core's devices: its sensors are absent while the service is down.
///
/// **The thread.** libssc's calls block (its discovery can take seconds), and
/// it hands its measurements to GLib's default main context, which its caller
/// must iterate. One thread of ours does both: it runs the open and close
/// asked for, in order, then iterates the default context until woken
/// (`g_main_context_wakeup`) or a measurement is dispatched; each
/// measurement goes back to the loop through an eventfd, like a `Poller`'s
/// reading. Only that thread touches libssc's objects and GLib's context, so
/// the loop never blocks on either. docs/architecture.md, "The Sensor Core",
/// says why a thread rather than GLib's fds on our loop.
///
/// Started when the hub first sees a device udev tagged for it
/// (`IIO_SENSOR_PROXY_TYPE` `ssc-*`): elsewhere nothing is loaded or opened.
package final class SensorCore {
    /// What stands between the daemon and the Sensor Core's sensors.
    package enum Availability: Sendable, Equatable {
        /// Not looked at yet (no device tagged for it).
        case unknown
        /// libssc cannot be loaded: why.
        case noLibrary(String)
        /// The kernel has no QRTR, or the lookup failed: why.
        case noQRTR(String)
        /// Waiting for the name service's answer.
        case lookingUp
        /// The service is not up.
        case serviceDown
        /// Readable.
        case up
    }

    /// What holds now.
    package private(set) var availability = Availability.unknown {
        didSet { if availability != oldValue { tellLater() } }
    }
    /// Told when `availability` changed, from the loop (never from inside
    /// the rescan whose `follow` changed it).
    var onChange: () -> Void = {}
    private var telling: EventLoop.TimerID?

    /// Why the Sensor Core's sensors cannot be read now, and the fix, for a
    /// driver's `discover` (nil when they can).
    var problem: (reason: String, fix: String)? {
        switch availability {
        case .up: nil
        case .unknown, .lookingUp:
            ("the Sensor Core's service has not been looked up yet", "wait a moment")
        case .noLibrary(let why):
            ("libssc cannot be loaded (\(why))", "install \(LibSSC.package) (Debian sid, postmarketOS: libssc)")
        case .noQRTR(let why):
            ("no QRTR to reach the Sensor Core (\(why))", "the kernel needs CONFIG_QRTR (module qrtr), and the unit AF_QIPCRTR")
        case .serviceDown:
            ("the Sensor Core's service (QMI 400 over QRTR) is not up",
             "the DSP must be serving its sensors: hexagonrpcd's service (check `qrtr-lookup`)")
        }
    }

    /// `devices`, each one udev tagged for the Sensor Core (`ssc-*`) with
    /// whether it can be read now (`SensorDevice.sensorCore`); the first such
    /// device starts following the Sensor Core.
    func annotated(_ devices: [SensorDevice]) -> [SensorDevice] {
        devices.map { device in
            guard device.subsystem == "misc", device.proxyTypes?.contains(where: { $0.hasPrefix("ssc-") }) == true else { return device }
            follow()
            var device = device
            device.sensorCore = problem.map { .unusable(reason: $0.reason, fix: $0.fix) } ?? .yes
            return device
        }
    }

    private let loop: EventLoop
    private let log: Log
    private var library: LibSSC?
    private var lookupFD: Int32 = -1
    private var servers = QRTRServers(service: QRTRControl.sensorCoreService)
    private var thread: SensorCoreThread?
    /// The loop's side of each open sensor, by token.
    private var handlers: [Int: (SensorCoreThread.Output) -> Void] = [:]
    private var nextToken = 1

    init(loop: EventLoop, log: Log) {
        self.loop = loop
        self.log = log
    }

    deinit { stop() }

    /// Loads libssc and looks the service up, once (the hub calls it for
    /// each device tagged for the Sensor Core).
    func follow() {
        guard availability == .unknown else { return }
        switch LibSSC.load() {
        case .failure(let error):
            log.warning("Sensor Core: \(error.missing ? "\(LibSSC.soname) is not installed" : "\(LibSSC.soname) is unusable"): \(error); "
                + "its sensors stay absent (install \(LibSSC.package))")
            availability = .noLibrary(error.message)
            return
        case .success(let library): self.library = library
        }
        do throws(SystemError) {
            try startLookup()
            availability = .lookingUp
        } catch {
            log.warning("Sensor Core: cannot follow its service through QRTR: \(error); its sensors stay absent")
            availability = .noQRTR("\(error)")
        }
    }

    private func tellLater() {
        guard telling == nil else { return }
        telling = loop.schedule(atMs: MonotonicClock.nowMs()) { [unowned self] in
            self.telling = nil
            self.onChange()
        }
    }

    /// `AF_QIPCRTR`, `struct sockaddr_qrtr`.
    private static let family: Int32 = 42

    private func startLookup() throws(SystemError) {
        let fd = socket(SensorCore.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket(AF_QIPCRTR)") }
        // The local node: the name service listens on its control port.
        var address = QRTRAddress()
        var length = socklen_t(MemoryLayout<QRTRAddress>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let error = SystemError("getsockname(AF_QIPCRTR)")
            Glibc.close(fd)
            throw error
        }
        var control = QRTRAddress(family: UInt16(SensorCore.family), node: address.node, port: QRTRControl.controlPort)
        let packet = QRTRControl.lookup(service: QRTRControl.sensorCoreService)
        let sent = packet.withUnsafeBytes { bytes in
            withUnsafePointer(to: &control) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<QRTRAddress>.size))
                }
            }
        }
        guard sent == packet.count else {
            let error = SystemError("sendto(the QRTR name service)")
            Glibc.close(fd)
            throw error
        }
        lookupFD = fd
        loop.watch(fd, for: .readable) { [unowned self] _ in self.lookupAnswered() }
    }

    /// The name service's packets: servers of service 400 coming and going.
    private func lookupAnswered() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            var from = QRTRAddress()
            var length = socklen_t(MemoryLayout<QRTRAddress>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &from) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(lookupFD, bytes.baseAddress, bytes.count, 0, $0, &length) }
                }
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN { log.warning("Sensor Core: reading the QRTR name service: \(SystemError("recvfrom"))") }
                return
            }
            // Only the name service speaks from the control port.
            guard from.port == QRTRControl.controlPort else { continue }
            do throws(QRTRControlError) {
                let message = try QRTRControl.parse(Array(buffer.prefix(count)))
                guard servers.apply(message) else { continue }
                log.notice("Sensor Core: its service (QMI 400) is \(servers.isUp ? "up" : "down")")
                availability = servers.isUp ? .up : (servers.listed ? .serviceDown : .lookingUp)
                thread?.serviceUp = servers.isUp
            } catch {
                log.warning("Sensor Core: ignoring a packet from the QRTR name service: \(error)")
            }
        }
    }

    // MARK: Sensors

    /// Opens the sensor of `kind` on the thread; its readings and failure go
    /// to `handler`, on the loop, until `close`. Returns its token.
    func open(_ kind: SensorKind, handler: @escaping (SensorCoreThread.Output) -> Void) throws(SensorError) -> Int {
        guard let library else { throw SensorError(message: "libssc is not loaded", code: ENOENT) }
        if thread == nil {
            do {
                let started = try SensorCoreThread(library: library)
                started.serviceUp = servers.isUp
                try started.spawn()
                loop.watch(started.outFD, for: .readable) { [unowned self] _ in self.received() }
                thread = started
            } catch {
                throw SensorError(message: "cannot start the Sensor Core's thread: \(error)", code: error.code)
            }
        }
        let token = nextToken
        nextToken += 1
        handlers[token] = handler
        thread?.ask(.open(token: token, kind: kind))
        return token
    }

    /// Closes the sensor `token` opened; nothing more comes for it.
    func close(_ token: Int) {
        guard handlers.removeValue(forKey: token) != nil else { return }
        thread?.ask(.close(token: token))
    }

    private func received() {
        guard let thread else { return }
        for output in thread.take() {
            handlers[output.token]?(output)
        }
    }

    private func stop() {
        loop.cancel(telling)
        if lookupFD >= 0 {
            loop.unwatch(lookupFD)
            Glibc.close(lookupFD)
            lookupFD = -1
        }
        if let thread {
            loop.unwatch(thread.outFD)
            thread.end()
        }
        thread = nil
    }
}

/// `struct sockaddr_qrtr`.
private struct QRTRAddress {
    var family: UInt16 = 0
    var node: UInt32 = 0
    var port: UInt32 = 0
}

/// The Sensor Core's thread (`SensorCore`): the only one that calls libssc
/// and iterates GLib's default main context.
final class SensorCoreThread: @unchecked Sendable {
    /// What the loop asks.
    enum Command: Sendable {
        case open(token: Int, kind: SensorKind)
        case close(token: Int)
    }

    /// What comes back, for one token.
    enum Output: Sendable {
        /// `ssc_sensor_<kind>_new_sync` and `_open_sync` succeeded: the sensor's name.
        case opened(token: Int)
        case failed(token: Int, message: String)
        case accelerometer(token: Int, x: Float, y: Float, z: Float)
        case light(token: Int, lux: Float)
        case proximity(token: Int, near: Bool)
        case compass(token: Int, degrees: Float)

        var token: Int {
            switch self {
            case .opened(let token), .failed(let token, _), .accelerometer(let token, _, _, _), .light(let token, _),
                .proximity(let token, _), .compass(let token, _):
                token
            }
        }
    }

    let outFD: Int32
    private let library: LibSSC
    private let state = Mutex(State())
    /// Open sensors, by token: touched only on the thread.
    private var open: [Int: (object: OpaquePointer, handler: UInt, listener: Unmanaged<Listener>, kind: SensorKind)] = [:]

    private struct State {
        var commands: [Command] = []
        var outputs: [Output] = []
        var ending = false
        var serviceUp = false
    }

    /// Whether the service is up: a close while it is down skips
    /// `_close_sync` (nothing would answer it).
    var serviceUp: Bool {
        get { state.withLock { $0.serviceUp } }
        set { state.withLock { $0.serviceUp = newValue } }
    }

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

    /// Queues a command and wakes the thread (on the loop).
    func ask(_ command: Command) {
        state.withLock { $0.commands.append(command) }
        library.wakeup(nil)
    }

    /// The outputs so far (on the loop, when `outFD` is readable).
    func take() -> [Output] {
        var count: UInt64 = 0
        _ = Glibc.read(outFD, &count, 8)
        return state.withLock { state in
            defer { state.outputs = [] }
            return state.outputs
        }
    }

    /// Ends the thread: it closes every sensor and `outFD` (the loop stopped watching it).
    func end() {
        state.withLock { $0.ending = true }
        library.wakeup(nil)
    }

    /// From the thread (a measurement's callback among them).
    func post(_ output: Output) {
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
                case .open(let token, let kind): openSensor(token, kind)
                case .close(let token): closeSensor(token)
                }
            }
            // Until a measurement is dispatched or `ask` wakes it.
            _ = library.iterate(nil, 1)
        }
        for token in open.keys { closeSensor(token) }
        Glibc.close(outFD)
    }

    private func openSensor(_ token: Int, _ kind: SensorKind) {
        guard let calls = library.calls[kind] else { return }
        var error: UnsafeMutableRawPointer?
        guard let object = calls.new(nil, &error) else {
            post(.failed(token: token, message: "no \(kind.rawValue) from the Sensor Core: \(library.take(error))"))
            return
        }
        let listener = Unmanaged.passRetained(Listener(token: token, thread: self))
        let handler = library.signalConnect(object, "measurement", SensorCoreThread.callback(kind), listener.toOpaque(), nil, 0)
        open[token] = (object, handler, listener, kind)
        guard calls.open(object, nil, &error) != 0 else {
            let message = library.take(error)
            closeSensor(token, closing: false)
            post(.failed(token: token, message: "the Sensor Core's \(kind.rawValue) does not open: \(message)"))
            return
        }
        post(.opened(token: token))
    }

    private func closeSensor(_ token: Int, closing: Bool = true) {
        guard let sensor = open.removeValue(forKey: token) else { return }
        library.signalDisconnect(sensor.object, sensor.handler)
        if closing, serviceUp, let calls = library.calls[sensor.kind] {
            var error: UnsafeMutableRawPointer?
            if calls.close(sensor.object, nil, &error) == 0 { _ = library.take(error) }
        }
        library.objectUnref(sensor.object)
        sensor.listener.release()
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
                listener.thread.post(.accelerometer(token: listener.token, x: x, y: y, z: z))
            }
            return unsafeBitCast(f, to: UnsafeRawPointer.self)
        case .light, .compass:
            let light: @convention(c) (OpaquePointer?, Float, UnsafeMutableRawPointer?) -> Void = { _, value, data in
                guard let data else { return }
                let listener = Unmanaged<Listener>.fromOpaque(data).takeUnretainedValue()
                listener.thread.post(.light(token: listener.token, lux: value))
            }
            let compass: @convention(c) (OpaquePointer?, Float, UnsafeMutableRawPointer?) -> Void = { _, value, data in
                guard let data else { return }
                let listener = Unmanaged<Listener>.fromOpaque(data).takeUnretainedValue()
                listener.thread.post(.compass(token: listener.token, degrees: value))
            }
            return unsafeBitCast(kind == .light ? light : compass, to: UnsafeRawPointer.self)
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
