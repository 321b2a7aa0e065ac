#if canImport(Glibc)
import Glibc
#endif
import CLinux
import OrientProtocol
import OrientSensors

/// A Qualcomm phone's Snapdragon Sensor Core (SSC): whether its sensors can be
/// read now, and the process that reads them through libssc.
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
/// **The process.** libssc is loaded only in `orientd --sensor-core`
/// (`SensorCoreProcess`, `SensorCoreChild`), which opens and closes sensors
/// as asked and sends their readings back as lines the loop reads: libssc's
/// calls block, it needs GLib's main context iterated, and it cannot be
/// told that its service went away without crashing or leaking
/// (`SensorCoreProcess` says how). When the service goes, the process is
/// ended, and the next open starts another. docs/architecture.md, "The
/// Sensor Core", says more.
///
/// Followed when the hub first sees a device udev tagged for it
/// (`IIO_SENSOR_PROXY_TYPE` `ssc-*`): elsewhere nothing is started or opened.
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
    private var following = false
    /// Why libssc does not load (the process said so), or why QRTR cannot be followed.
    private var libraryProblem: String?
    private var qrtrProblem: String?
    private var lookupFD: Int32 = -1
    private var servers = QRTRServers(service: QRTRControl.sensorCoreService)
    private var child: SensorCoreChild?
    /// The loop's side of each open sensor, by token.
    private var handlers: [Int: (SensorCoreMessage) -> Void] = [:]
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

    /// Starts its process (which says whether libssc loads) and looks the
    /// service up, once (the hub calls it for each device tagged for the
    /// Sensor Core).
    func follow() {
        guard !following else { return }
        following = true
        do throws(SystemError) {
            try startLookup()
        } catch {
            log.warning("Sensor Core: cannot follow its service through QRTR: \(error); its sensors stay absent")
            qrtrProblem = "\(error)"
        }
        startChild()
        updateAvailability()
    }

    private func updateAvailability() {
        availability =
            if let libraryProblem { .noLibrary(libraryProblem) }
            else if let qrtrProblem { .noQRTR(qrtrProblem) }
            else if servers.isUp { .up }
            else if servers.listed { .serviceDown }
            else { .lookingUp }
    }

    /// Starts the process if none runs; false (logged) if it cannot.
    @discardableResult
    private func startChild() -> Bool {
        guard child == nil, libraryProblem == nil else { return child != nil }
        do throws(SystemError) {
            let started = try SensorCoreChild(loop: loop, log: log)
            started.onMessage = { [unowned self] message in self.received(message) }
            started.onEnd = { [unowned self] how in self.childEnded(how) }
            child = started
            log.info("Sensor Core: its process started (pid \(started.pid))")
            return true
        } catch {
            log.warning("Sensor Core: cannot start its process: \(error)")
            return false
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
                if wasUp != servers.isUp || !wasUp { log.notice("Sensor Core: its service (QMI 400) is \(servers.isUp ? "up" : "down")") }
                if wasUp, !servers.isUp { serviceLost() }
                updateAvailability()
            } catch {
                log.warning("Sensor Core: ignoring a packet from the QRTR name service: \(error)")
            }
        }
    }

    /// The service went away: the process is ended (what libssc held goes
    /// with it), and every open sensor is told at once (a restart that comes
    /// back before the hub rescans still opens everything anew).
    private func serviceLost() {
        missing = []
        guard let child else { return }
        self.child = nil
        log.info("Sensor Core: its process ended with the service (\(child.end()))")
        failAll("the Sensor Core's service went away")
    }

    /// The process ended by itself: after saying libssc does not load, or
    /// crashed (libssc's fault, not the daemon's).
    private func childEnded(_ how: String) {
        child = nil
        if libraryProblem != nil { return }
        log.warning("Sensor Core: its process ended (\(how)); another starts at the next open")
        failAll("the Sensor Core's process ended (\(how))")
    }

    private func failAll(_ message: String) {
        for (token, handler) in handlers.sorted(by: { $0.key < $1.key }) {
            handler(.failed(token: token, why: .lost, message: message))
        }
    }

    // MARK: Sensors

    /// Opens the sensor of `kind` in the process; its readings and failure go
    /// to `handler`, on the loop, until `close`. Returns its token.
    func open(_ kind: SensorKind, handler: @escaping (SensorCoreMessage) -> Void) throws(SensorError) -> Int {
        guard startChild(), let child else { throw SensorError(message: "the Sensor Core's process cannot start", code: ENOENT) }
        let token = nextToken
        nextToken += 1
        handlers[token] = handler
        kinds[token] = kind
        child.send(.open(token: token, kind: kind))
        return token
    }

    /// Each open token's kind.
    private var kinds: [Int: SensorKind] = [:]

    /// Closes the sensor `token` opened; nothing more comes for it.
    func close(_ token: Int) {
        kinds[token] = nil
        guard handlers.removeValue(forKey: token) != nil else { return }
        child?.send(.close(token: token))
    }

    private func received(_ message: SensorCoreMessage) {
        switch message {
        case .ready:
            log.info("Sensor Core: libssc loaded in its process")
        case .noLibrary(let why):
            log.warning("Sensor Core: \(LibSSC.soname) cannot be loaded (\(why)); its sensors stay absent (install \(LibSSC.package))")
            libraryProblem = why
            updateAvailability()
        default:
            guard let token = message.token, let handler = handlers[token] else { return }
            if case .failed(_, .missing, _) = message, let kind = kinds[token] { missing.insert(kind) }
            handler(message)
        }
    }

    private func stop() {
        loop.cancel(telling)
        if lookupFD >= 0 {
            loop.unwatch(lookupFD)
            Glibc.close(lookupFD)
            lookupFD = -1
        }
        child?.close()
        child = nil
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
