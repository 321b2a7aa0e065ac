import CSystemd
import OrientProtocol
import OrientSensors

/// The claims: who claims what (logged as it changes), each first claim's
/// bounded wait for a reading, and claimers leaving the bus (an sd-bus track
/// per claimer).
extension SensorProxyBus {
    /// Logs the claims and releases since the last actions, bounds each kind's
    /// wait for a first reading, and tells `onDemandChange` when the claimers changed.
    func noteClaims() {
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

    // MARK: Claimers leaving the bus

    func watch(_ sender: String) {
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

    func unwatch(_ sender: String) {
        guard let entry = tracks.removeValue(forKey: sender) else { return }
        sd_bus_track_unref(entry.track)
        entry.box.release()
    }

    private func left(_ sender: String) {
        guard tracks[sender] != nil || service.pendingAuthorisations > 0 else { return }
        log.info("D-Bus: \(sender) left the bus; its claims end")
        perform(service.left(sender))
    }
}
