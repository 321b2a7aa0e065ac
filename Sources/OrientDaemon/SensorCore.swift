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
            ("libssc cannot be loaded (\(why))", "install \(LibSSC.package) (Debian sid, postmarketOS: libssc), then restart orientd")
        case .noQRTR(let why):
            ("no QRTR to reach the Sensor Core (\(why))",
             "the kernel needs CONFIG_QRTR (module qrtr) and the unit AF_QIPCRTR; then restart orientd")
        case .serviceDown:
            ("the Sensor Core's service (QMI 400 over QRTR) is not up",
             "the DSP must be serving its sensors: hexagonrpcd's service (check `qrtr-lookup`)")
        }
    }

    /// `devices`, each one udev tagged for the Sensor Core (`ssc-*`) with
    /// what it offers now (`SensorDevice.sensorCore`); the first such device
    /// starts following the Sensor Core.
    func annotated(_ devices: [SensorDevice]) -> [SensorDevice] {
        devices.map { device in
            guard device.subsystem == "misc", device.proxyTypes?.contains(where: { $0.hasPrefix("ssc-") }) == true else { return device }
            follow()
            var device = device
            device.sensorCore = SensorCoreOffer(problem: problem.map { SensorCoreOffer.Problem(reason: $0.reason, fix: $0.fix) }, missing: missing)
            return device
        }
    }

    /// Why the Sensor Core's sensor of `kind` cannot be read now, and the fix (nil when it can).
    func problem(for kind: SensorKind) -> (reason: String, fix: String)? {
        problem ?? (missing.contains(kind) ? SensorCoreOffer.missingProblem(kind) : nil)
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
    /// Kinds the Sensor Core said it has none of, until its service restarts.
    private(set) var missing: Set<SensorKind> = [] {
        didSet { if missing != oldValue { tellLater() } }
    }

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
                let wasUp = servers.isUp
                guard servers.apply(message) else { continue }
                log.notice("Sensor Core: its service (QMI 400) is \(servers.isUp ? "up" : "down")")
                if wasUp, !servers.isUp { serviceLost() }
                availability = servers.isUp ? .up : (servers.listed ? .serviceDown : .lookingUp)
            } catch {
                log.warning("Sensor Core: ignoring a packet from the QRTR name service: \(error)")
            }
        }
    }

    /// The service went away: what the thread holds is dropped, and every
    /// open sensor is told at once (a restart that comes back before the
    /// hub rescans still opens everything anew).
    private func serviceLost() {
        missing = []
        guard let thread else { return }
        thread.cancelCalls()
        thread.ask(.drop)
        for (token, handler) in handlers.sorted(by: { $0.key < $1.key }) {
            handler(.failed(token: token, message: "the Sensor Core's service went away", why: .lost))
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
        kinds[token] = kind
        thread?.ask(.open(token: token, kind: kind))
        return token
    }

    /// Each open token's kind.
    private var kinds: [Int: SensorKind] = [:]

    /// Closes the sensor `token` opened; nothing more comes for it.
    func close(_ token: Int) {
        kinds[token] = nil
        guard handlers.removeValue(forKey: token) != nil else { return }
        thread?.ask(.close(token: token))
    }

    private func received() {
        guard let thread else { return }
        for output in thread.take() {
            guard let handler = handlers[output.token] else { continue }
            if case .failed(_, _, .missing) = output, let kind = kinds[output.token] { missing.insert(kind) }
            handler(output)
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

/// What the Sensor Core offers a device tagged for it, for a driver's
/// `discover`: nothing while `problem` holds, else every kind but `missing`.
package struct SensorCoreOffer: Sendable, Equatable {
    package struct Problem: Sendable, Equatable {
        var reason: String
        var fix: String
    }

    var problem: Problem?
    var missing: Set<SensorKind>

    /// The driver of `kind`'s answer.
    func discovery(_ kind: SensorKind) -> SensorDiscovery {
        if let problem { return .unusable(reason: problem.reason, fix: problem.fix) }
        if missing.contains(kind) {
            let (reason, fix) = SensorCoreOffer.missingProblem(kind)
            return .unusable(reason: reason, fix: fix)
        }
        return .yes
    }

    static func missingProblem(_ kind: SensorKind) -> (reason: String, fix: String) {
        ("the Sensor Core has no \(kind.rawValue)",
         "udev's IIO_SENSOR_PROXY_TYPE names one for this phone: take ssc-\(kind == .accelerometer ? "accel" : kind.rawValue) out of the rule that adds it")
    }
}

/// `struct sockaddr_qrtr`.
private struct QRTRAddress {
    var family: UInt16 = 0
    var node: UInt32 = 0
    var port: UInt32 = 0
}
