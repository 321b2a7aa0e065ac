import CSystemd
import OrientSensors

/// polkit: whether a claimer may claim, asked of polkit's CheckAuthorization
/// without user interaction, as iio-sensor-proxy asks.
extension SensorProxyBus {
    func checkAuthorization(token: UInt64, sender: String) {
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
}
