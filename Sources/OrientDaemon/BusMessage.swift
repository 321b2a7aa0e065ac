import CSystemd
import OrientSensors

/// What the D-Bus side writes into an sd-bus message: strings, the variants of
/// ``SensorProxyService/Value`` and the `a{sv}` dictionaries of properties that
/// replies and PropertiesChanged carry (``SensorProxyBus`` sends them).
enum BusMessage {
    static func appendString(_ message: OpaquePointer, _ text: String) {
        text.withCString { _ = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
    }

    static func appendVariant(_ message: OpaquePointer, _ value: SensorProxyService.Value) {
        switch value {
        case .bool(let flag):
            var b: Int32 = flag ? 1 : 0
            sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), "b")
            sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &b)
        case .string(let text):
            sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), "s")
            appendString(message, text)
        case .double(let number):
            var d = number
            sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), "d")
            sd_bus_message_append_basic(message, CChar(UInt8(ascii: "d")), &d)
        }
        sd_bus_message_close_container(message)
    }

    static func appendDictionary(_ message: OpaquePointer, _ entries: [SensorProxyService.Change]) {
        sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}")
        for entry in entries {
            sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), "sv")
            appendString(message, entry.name)
            appendVariant(message, entry.value)
            sd_bus_message_close_container(message)
        }
        sd_bus_message_close_container(message)
    }
}
