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

    private let loop: EventLoop
    private let log: Log
    private var settings: Settings
    private(set) var service: SensorProxyService
    private var bus: OpaquePointer?
    private var fd: Int32 = -1
    private var busTimer: EventLoop.TimerID?
    /// One bound per kind on the first claim's wait for that sensor's first reading.
    private var claimTimers: [SensorKind: EventLoop.TimerID] = [:]
    /// The claimers of each kind after the last actions were carried out (what the logs and the demand last said).
    private var knownClaims: [SensorKind: Set<String>] = [:]
    private var reconnectTimer: EventLoop.TimerID?
    /// Calls not answered yet (held claims, claims waiting for polkit), referenced.
    private var calls: [UInt64: OpaquePointer] = [:]
    private var nextToken: UInt64 = 1
    /// One sd-bus track per claimer: its handler runs when the claimer leaves the bus.
    private var tracks: [String: (track: OpaquePointer, box: Unmanaged<Watched>)] = [:]
    /// Whether this process owns the name.
    private(set) var owner = false
    /// RequestName was answered (a later NameAcquired is news worth a log line).
    private var nameAnswered = false
    /// Told when the demand for any kind of sensor (or the claimers) may have changed.
    var onDemandChange: (() -> Void)?

    /// The sender a track is for, handed to sd-bus's C callback.
    private final class Watched {
        unowned let owner: SensorProxyBus
        let sender: String
        init(owner: SensorProxyBus, sender: String) {
            self.owner = owner
            self.sender = sender
        }
    }

    /// A polkit check or a name-owner check in flight.
    private final class Pending {
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

    private func rearm() {
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

    // MARK: Calls

    private func received(_ message: OpaquePointer) -> Int32 {
        guard sd_bus_message_is_method_call(message, nil, nil) > 0 else { return 0 }
        let signature = sd_bus_message_get_signature(message, 1).map { String(cString: $0) } ?? ""
        var strings: [String] = []
        // Only an all-string body of a few arguments is read: nothing this
        // interface takes has more, and anything else is answered by its signature.
        if !signature.isEmpty, signature.count <= 3, signature.allSatisfy({ $0 == "s" }) {
            for _ in signature {
                var value: UnsafePointer<CChar>?
                guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &value) > 0, let value else { break }
                strings.append(String(cString: value))
            }
        }
        let call = SensorProxyService.Call(
            sender: sd_bus_message_get_sender(message).map { String(cString: $0) } ?? "",
            path: sd_bus_message_get_path(message).map { String(cString: $0) } ?? "",
            interface: sd_bus_message_get_interface(message).map { String(cString: $0) },
            member: sd_bus_message_get_member(message).map { String(cString: $0) } ?? "",
            signature: signature, strings: strings)
        let token = nextToken
        nextToken += 1
        calls[token] = sd_bus_message_ref(message)
        perform(service.receive(call, token: token))
        return 1
    }

    /// The daemon published a state (or had a reading while a claim waits for one).
    func update(_ reading: SensorProxyService.Reading) {
        guard bus != nil else { return }
        perform(service.update(reading))
    }

    private func perform(_ actions: [SensorProxyService.Action]) {
        for action in actions {
            switch action {
            case .reply(let token, let reply): send(reply, to: token)
            case .authorise(let token, let sender): checkAuthorization(token: token, sender: sender)
            case .watch(let sender): watch(sender)
            case .unwatch(let sender): unwatch(sender)
            case .signal(let destination, let path, let interface, let changes):
                signal(changes, to: destination, path: path, interface: interface)
            }
        }
        var demandChanged = false
        for kind in SensorKind.allCases {
            let was = knownClaims[kind] ?? [], now = service.claimers(of: kind)
            if was != now {
                demandChanged = true
                knownClaims[kind] = now
                logClaims(of: kind, was: was, now: now)
            }
            boundClaimWait(kind)
        }
        if demandChanged { onDemandChange?() }
        rearm()
    }

    /// Arms `kind`'s bound on the first reading while a claim waits for one; cancels it once none does.
    private func boundClaimWait(_ kind: SensorKind) {
        let armed = claimTimers[kind] != nil
        if service.awaitingReading(kind), !armed {
            claimTimers[kind] = loop.schedule(atMs: MonotonicClock.nowMs() + settings.claimWaitMs) { [unowned self] in
                self.claimTimers[kind] = nil
                self.perform(self.service.claimTimedOut(kind))
            }
        } else if !service.awaitingReading(kind), armed {
            loop.cancel(claimTimers.removeValue(forKey: kind))
        }
    }

    private func logClaims(of kind: SensorKind, was: Set<String>, now: Set<String>) {
        let count = "\(now.count) claimer\(now.count == 1 ? "" : "s")"
        for sender in now.subtracting(was).sorted() { log.info("D-Bus: \(sender) claims \(Self.sensorName(kind)) (\(count))") }
        for sender in was.subtracting(now).sorted() { log.info("D-Bus: \(sender) released \(Self.sensorName(kind)) (\(count))") }
    }

    private static func sensorName(_ kind: SensorKind) -> String {
        switch kind {
        case .accelerometer: "the accelerometer"
        case .light: "the light sensor"
        case .proximity: "the proximity sensor"
        case .compass: "the compass"
        }
    }

    private func send(_ reply: SensorProxyService.Reply, to token: UInt64) {
        guard let call = calls.removeValue(forKey: token) else { return }
        defer { sd_bus_message_unref(call) }
        guard let bus, sd_bus_message_get_expect_reply(call) > 0 else { return }
        var message: OpaquePointer?
        switch reply {
        case .error(let name, let text):
            let built = name.withCString { namePointer in
                text.withCString { textPointer in
                    var error = sd_bus_error(name: namePointer, message: textPointer, _need_free: 0)
                    return sd_bus_message_new_method_error(call, &message, &error)
                }
            }
            guard built >= 0 else { return }
        default:
            guard sd_bus_message_new_method_return(call, &message) >= 0, let message else { return }
            switch reply {
            case .value(let value): BusMessage.appendVariant(message, value)
            case .all(let properties): BusMessage.appendDictionary(message, properties)
            case .xml(let text): BusMessage.appendString(message, text)
            case .empty, .error: break
            }
        }
        guard let message else { return }
        sd_bus_send(bus, message, nil)
        sd_bus_message_unref(message)
    }

    private func signal(_ changes: [SensorProxyService.Change], to destination: String, path: String, interface: String) {
        guard let bus else { return }
        var message: OpaquePointer?
        guard sd_bus_message_new_signal(bus, &message, path, SensorProxyService.propertiesInterface, "PropertiesChanged") >= 0,
            let message
        else { return }
        defer { sd_bus_message_unref(message) }
        sd_bus_message_set_destination(message, destination)
        BusMessage.appendString(message, interface)
        BusMessage.appendDictionary(message, changes)
        sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "s")
        sd_bus_message_close_container(message)
        sd_bus_send(bus, message, nil)
    }

    // MARK: Claimers leaving the bus

    private func watch(_ sender: String) {
        guard let bus, tracks[sender] == nil else { return }
        var track: OpaquePointer?
        let box = Unmanaged.passRetained(Watched(owner: self, sender: sender))
        let created = sd_bus_track_new(bus, &track, { _, userdata in
            guard let userdata else { return 0 }
            let watched = Unmanaged<Watched>.fromOpaque(userdata).takeUnretainedValue()
            watched.owner.left(watched.sender)
            return 0
        }, box.toOpaque())
        guard created >= 0, let track, sd_bus_track_add_name(track, sender) >= 0 else {
            if let track { sd_bus_track_unref(track) }
            box.release()
            log.warning("D-Bus: cannot watch \(sender) on the bus; its claim ends now")
            perform(service.left(sender))
            return
        }
        tracks[sender] = (track, box)
        // The claimer may have left before the track's match was in place: ask
        // the bus, which answers after installing that match.
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &message, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner") >= 0,
            let message
        else { return }
        defer { sd_bus_message_unref(message) }
        BusMessage.appendString(message, sender)
        let pending = Unmanaged.passRetained(Pending(owner: self, token: 0, sender: sender))
        let r = sd_bus_call_async(bus, nil, message, { reply, userdata, _ in
            guard let userdata else { return 0 }
            let pending = Unmanaged<Pending>.fromOpaque(userdata).takeRetainedValue()
            if let reply, sd_bus_message_is_method_error(reply, nil) > 0, let owner = pending.owner {
                owner.left(pending.sender)
            }
            return 0
        }, pending.toOpaque(), 0)
        if r < 0 { pending.release() }
    }

    private func unwatch(_ sender: String) {
        guard let entry = tracks.removeValue(forKey: sender) else { return }
        sd_bus_track_unref(entry.track)
        entry.box.release()
    }

    private func left(_ sender: String) {
        guard tracks[sender] != nil || service.pendingAuthorisations > 0 else { return }
        log.info("D-Bus: \(sender) left the bus; its claims end")
        perform(service.left(sender))
    }

    // MARK: polkit

    private func checkAuthorization(token: UInt64, sender: String) {
        guard let bus else { return }
        var message: OpaquePointer?
        guard sd_bus_message_new_method_call(
            bus, &message, "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
            "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization") >= 0, let message
        else {
            perform(service.authorised(token: token, allowed: false, detail: "cannot ask polkit"))
            return
        }
        defer { sd_bus_message_unref(message) }
        // subject (sa{sv}): a system bus name.
        sd_bus_message_open_container(message, CChar(UInt8(ascii: "r")), "sa{sv}")
        BusMessage.appendString(message, "system-bus-name")
        BusMessage.appendDictionary(message, [SensorProxyService.Change("name", .string(sender))])
        sd_bus_message_close_container(message)
        BusMessage.appendString(message, SensorProxyService.claimAction)
        sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{ss}")
        sd_bus_message_close_container(message)
        var flags: UInt32 = 0  // no user interaction, as iio-sensor-proxy
        sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &flags)
        BusMessage.appendString(message, "")
        let pending = Unmanaged.passRetained(Pending(owner: self, token: token, sender: sender))
        let r = sd_bus_call_async(bus, nil, message, { reply, userdata, _ in
            guard let userdata else { return 0 }
            let pending = Unmanaged<Pending>.fromOpaque(userdata).takeRetainedValue()
            if let owner = pending.owner, let reply { owner.authorisationAnswered(reply, token: pending.token) }
            return 0
        }, pending.toOpaque(), 10_000_000)
        if r < 0 {
            pending.release()
            perform(service.authorised(token: token, allowed: false, detail: "cannot ask polkit: \(errorText(r))"))
        }
    }

    private func authorisationAnswered(_ reply: OpaquePointer, token: UInt64) {
        if sd_bus_message_is_method_error(reply, nil) > 0 {
            let error = sd_bus_message_get_error(reply)
            let name = error.flatMap { $0.pointee.name }.map { String(cString: $0) } ?? ""
            let text = error.flatMap { $0.pointee.message }.map { String(cString: $0) } ?? name
            // No polkit on this bus: `auto` allows, `required` refuses.
            let noPolkit = name == DBusError.serviceUnknown || name == DBusError.nameHasNoOwner
            if noPolkit, settings.polkit == .auto {
                perform(service.authorised(token: token, allowed: true))
            } else {
                log.info("D-Bus: claim refused: polkit: \(text)")
                perform(service.authorised(token: token, allowed: false, detail: noPolkit ? "polkit is not running" : text))
            }
            return
        }
        var authorised: Int32 = 0
        let read = sd_bus_message_enter_container(reply, CChar(UInt8(ascii: "r")), "bba{ss}") > 0
            && sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "b")), &authorised) > 0
        perform(service.authorised(token: token, allowed: read && authorised != 0, detail: read ? nil : "polkit's answer was malformed"))
    }

    private func errorText(_ code: Int32) -> String { String(cString: strerror(-code)) }
}
