#if canImport(Glibc)
import Glibc
#endif
import CSystemd
import OrientProtocol
import OrientAccess
import OrientConfig
import OrientSensors

/// The daemon's D-Bus side: iio-sensor-proxy's `net.hadess.SensorProxy` on the
/// system bus through sd-bus, driven by the daemon's own event loop (the bus
/// fd in epoll, sd-bus's timeout on the loop's timer; no thread). It moves
/// messages; ``SensorProxyService`` decides what they mean (docs/dbus.md).
final class SensorProxyBus {
    struct Settings: Sendable {
        var polkit: DBusPolkit = .auto
        /// Take the name from its owner (iio-sensor-proxy owns it allowing replacement).
        var replace = false
        /// How long the first claim's reply waits for a reading.
        var claimWaitMs = 1000.0
        var limits = SensorProxyService.Limits()

        init(config: DBusConfig, replace: Bool) {
            polkit = config.polkit
            self.replace = replace || config.replace
            limits.claimers = config.claimers
        }
    }

    // State the extensions (SensorProxyBus+Calls.swift, +Claims.swift,
    // +Polkit.swift) use is internal; the rest stays private to this file.
    let loop: EventLoop
    let log: Log
    private(set) var settings: Settings
    var service: SensorProxyService
    private(set) var bus: OpaquePointer?
    private var fd: Int32 = -1
    private var busTimer: EventLoop.TimerID?
    /// One bound per kind on the first claim's wait for that sensor's first reading.
    var claimTimers: [SensorKind: EventLoop.TimerID] = [:]
    /// The claimers of each kind after the last actions were carried out (what the logs and the demand last said).
    var knownClaims: [SensorKind: Set<String>] = [:]
    private var reconnectTimer: EventLoop.TimerID?
    /// Calls not answered yet (held claims, claims waiting for polkit), referenced.
    var calls: [UInt64: OpaquePointer] = [:]
    var nextToken: UInt64 = 1
    /// One sd-bus track per claimer: its handler runs when the claimer leaves the bus.
    var tracks: [String: (track: OpaquePointer, box: Unmanaged<Watched>)] = [:]
    /// Whether this process owns the name.
    private(set) var owner = false
    /// RequestName was answered (a later NameAcquired is news worth a log line).
    private var nameAnswered = false
    /// Told when the demand for any kind of sensor (or the claimers) may have changed.
    var onDemandChange: (() -> Void)?

    /// The sender a track is for, handed to sd-bus's C callback.
    final class Watched {
        unowned let owner: SensorProxyBus
        let sender: String
        init(owner: SensorProxyBus, sender: String) {
            self.owner = owner
            self.sender = sender
        }
    }

    /// A polkit check or a name-owner check in flight.
    final class Pending {
        weak var owner: SensorProxyBus?
        let token: UInt64
        let sender: String
        init(owner: SensorProxyBus, token: UInt64, sender: String) {
            self.owner = owner
            self.token = token
            self.sender = sender
        }
    }

    init(loop: EventLoop, log: Log, settings: Settings, reading: SensorProxyService.Reading) {
        self.loop = loop
        self.log = log
        self.settings = settings
        service = SensorProxyBus.freshService(settings, reading: reading)
    }

    /// The interface with no claims, under `settings`, showing `reading`.
    private static func freshService(_ settings: Settings, reading: SensorProxyService.Reading) -> SensorProxyService {
        SensorProxyService(authorise: settings.polkit != .off, reading: reading, limits: settings.limits)
    }

    /// Someone claims `kind`: the daemon reads that sensor.
    func wants(_ kind: SensorKind) -> Bool { service.wants(kind) }
    /// Someone claims the accelerometer.
    var wantsSensor: Bool { service.wantsSensor }
    /// A claim of `kind` waits for that sensor's first reading.
    func awaitingReading(_ kind: SensorKind) -> Bool { service.awaitingReading(kind) }
    /// An accelerometer claim waits for the first reading.
    var awaitingReading: Bool { service.awaitingReading(.accelerometer) }

    /// Applies reloaded settings (the name's flags take effect at the next connection).
    func reconfigure(_ new: Settings) {
        settings = new
        service.authorise = new.polkit != .off
        service.limits = new.limits
    }

    // MARK: Connection

    /// Connects to the system bus ($DBUS_SYSTEM_BUS_ADDRESS or the default),
    /// exports the objects and asks for the name. Retries every few seconds
    /// while the bus is not there.
    func start() {
        reconnectTimer = nil
        var opened: OpaquePointer?
        let r = sd_bus_open_system_with_description(&opened, "orientd")
        guard r >= 0, let opened else {
            log.warning("D-Bus: cannot connect to the system bus (\(errorText(r))); serving the socket only, retrying in 5 s")
            scheduleReconnect()
            return
        }
        bus = opened
        let me = Unmanaged.passUnretained(self).toOpaque()
        for path in [SensorProxyService.path, SensorProxyService.compassPath] {
            let added = sd_bus_add_object(opened, nil, path, { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                return Unmanaged<SensorProxyBus>.fromOpaque(userdata).takeUnretainedValue().received(message)
            }, me)
            if added < 0 { log.error("D-Bus: cannot export \(path): \(errorText(added))") }
        }
        for member in ["NameAcquired", "NameLost"] {
            sd_bus_match_signal_async(opened, nil, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", member, { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                Unmanaged<SensorProxyBus>.fromOpaque(userdata).takeUnretainedValue().nameSignal(message)
                return 0
            }, nil, me)
        }
        var flags = UInt64(SD_BUS_NAME_ALLOW_REPLACEMENT) | UInt64(SD_BUS_NAME_QUEUE)
        if settings.replace { flags |= UInt64(SD_BUS_NAME_REPLACE_EXISTING) }
        sd_bus_request_name_async(opened, nil, SensorProxyService.busName, flags, { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            Unmanaged<SensorProxyBus>.fromOpaque(userdata).takeUnretainedValue().nameRequested(message)
            return 0
        }, me)
        fd = sd_bus_get_fd(opened)
        loop.watch(fd, for: .readable) { [unowned self] _ in self.pump() }
        pump()
    }

    private func scheduleReconnect() {
        loop.cancel(reconnectTimer)
        reconnectTimer = loop.schedule(atMs: MonotonicClock.nowMs() + 5000) { [unowned self] in self.start() }
    }

    /// Closes the connection (the name goes with it), answering nothing more.
    func close() {
        teardown()
        loop.cancel(reconnectTimer)
        reconnectTimer = nil
    }

    private func teardown() {
        for (_, entry) in tracks {
            sd_bus_track_unref(entry.track)
            entry.box.release()
        }
        tracks = [:]
        for (_, message) in calls { sd_bus_message_unref(message) }
        calls = [:]
        loop.cancel(busTimer)
        busTimer = nil
        for timer in claimTimers.values { loop.cancel(timer) }
        claimTimers = [:]
        if fd >= 0 { loop.unwatch(fd) }
        fd = -1
        if let bus { sd_bus_flush_close_unref(bus) }
        bus = nil
        owner = false
        nameAnswered = false
        // Every claim ended with the connection: the claimers' own connections
        // cannot reach a daemon that is no longer on the bus.
        service = SensorProxyBus.freshService(settings, reading: service.reading)
        knownClaims = [:]
        onDemandChange?()
    }

    /// Runs sd-bus until it has nothing to do (at most a batch, so one flood
    /// cannot starve the socket clients), then re-arms the fd and the timer.
    private func pump() {
        guard let bus else { return }
        for _ in 0..<64 {
            let r = sd_bus_process(bus, nil)
            if r < 0 {
                log.warning("D-Bus: lost the system bus (\(errorText(r))); serving the socket only, reconnecting in 5 s")
                teardown()
                scheduleReconnect()
                return
            }
            if r == 0 || self.bus == nil { break }
        }
        rearm()
    }

    func rearm() {
        guard let bus else { return }
        let wanted = sd_bus_get_events(bus)
        var events: EventLoop.Events = []
        if wanted > 0, Int16(truncatingIfNeeded: wanted) & Int16(POLLIN) != 0 { events.insert(.readable) }
        if wanted > 0, Int16(truncatingIfNeeded: wanted) & Int16(POLLOUT) != 0 { events.insert(.writable) }
        loop.change(fd, to: events)
        var usec: UInt64 = 0
        loop.cancel(busTimer)
        busTimer = nil
        if sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max {
            busTimer = loop.schedule(atMs: Double(usec) / 1000) { [unowned self] in
                self.busTimer = nil
                self.pump()
            }
        }
    }

    // MARK: The name

    private func nameRequested(_ message: OpaquePointer) {
        if sd_bus_message_is_method_error(message, nil) > 0 {
            let error = sd_bus_message_get_error(message)
            let text = error.flatMap { $0.pointee.message }.map { String(cString: $0) } ?? "refused"
            log.error("D-Bus: cannot own \(SensorProxyService.busName): \(text) (is the bus policy installed? see docs/dbus.md); serving the socket only")
            return
        }
        var result: UInt32 = 0
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "u")), &result) > 0 else { return }
        switch result {
        case 1, 4:
            owner = true
            nameAnswered = true
            log.notice("D-Bus: serving \(SensorProxyService.busName) on the system bus")
        case 2:
            nameAnswered = true
            log.warning(
                "D-Bus: \(SensorProxyService.busName) is owned by another process (iio-sensor-proxy?); the socket keeps serving, "
                    + "and the name is taken when its owner leaves (--replace, or [dbus] replace = true, takes it over now)")
        default:
            log.warning("D-Bus: \(SensorProxyService.busName) is owned by another process that does not allow replacement; serving the socket only")
        }
    }

    private func nameSignal(_ message: OpaquePointer) {
        var name: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &name) > 0, let name,
            String(cString: name) == SensorProxyService.busName
        else { return }
        let member = sd_bus_message_get_member(message).map { String(cString: $0) }
        if member == "NameAcquired", !owner {
            owner = true
            // The first NameAcquired comes before RequestName's reply, which logs it.
            if nameAnswered { log.notice("D-Bus: now own \(SensorProxyService.busName) (its owner left)") }
        } else if member == "NameLost", owner {
            owner = false
            log.warning("D-Bus: another process took \(SensorProxyService.busName); the socket keeps serving, and the name comes back when it leaves")
        }
    }

    func errorText(_ code: Int32) -> String { String(cString: strerror(-code)) }
}
