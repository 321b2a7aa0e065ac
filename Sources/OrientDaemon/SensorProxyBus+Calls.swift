import CSystemd
import OrientSensors

/// Method calls in; replies and PropertiesChanged signals out; the actions
/// ``SensorProxyService`` decides carried out.
extension SensorProxyBus {
    func received(_ message: OpaquePointer) -> Int32 {
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

    func perform(_ actions: [SensorProxyService.Action]) {
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
        noteClaims()
        rearm()
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
}
