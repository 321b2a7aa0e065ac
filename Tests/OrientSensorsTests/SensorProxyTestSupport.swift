import OrientProtocol
import OrientSensors

typealias Service = SensorProxyService

extension SensorProxyService.Action {
    /// A PropertiesChanged on the main object, to `destination`.
    static func main(_ destination: String, _ changes: SensorProxyService.Change...) -> Self {
        .signal(destination: destination, path: Service.path, interface: Service.interface, changes: changes)
    }

    /// A PropertiesChanged on the compass object, to `destination`.
    static func compass(_ destination: String, _ changes: SensorProxyService.Change...) -> Self {
        .signal(destination: destination, path: Service.compassPath, interface: Service.compassInterface, changes: changes)
    }

    /// The signal's destination and property names, if it is a signal.
    var signalled: (destination: String, names: [String])? {
        guard case .signal(let destination, _, _, let changes) = self else { return nil }
        return (destination, changes.map(\.name))
    }

    /// The D-Bus error name, if it is an error reply.
    var errorName: String? {
        guard case .reply(_, .error(let name, _)) = self else { return nil }
        return name
    }
}

extension SensorProxyService {
    /// A method call on the main object (or the compass's, for the compass's methods).
    static func call(_ member: String, from sender: String = ":1.1", signature: String = "", strings: [String] = []) -> Call {
        let compass = member.hasSuffix("Compass")
        return Call(
            sender: sender, path: compass ? compassPath : path, interface: compass ? compassInterface : interface, member: member,
            signature: signature, strings: strings)
    }

    /// `Properties.Get` of `name` on its object, asked by `sender` (by
    /// default the sender `call` claims for).
    mutating func get(_ name: String, from sender: String = ":1.1") -> Value? {
        let compass = name == "HasCompass" || name == "CompassHeading"
        let call = Call(
            sender: sender, path: compass ? Self.compassPath : Self.path, interface: Self.propertiesInterface, member: "Get",
            signature: "ss", strings: [compass ? Self.compassInterface : Self.interface, name])
        guard case .reply(_, .value(let value)) = receive(call, token: 9999).first else { return nil }
        return value
    }
}

extension SensorProxyService.Reading {
    /// An accelerometer read and upright, with the other sensors as given.
    static func with(
        light: SensorValue<LightLevel> = .absent, proximity: SensorValue<Bool> = .absent, compass: SensorValue<Double> = .absent
    ) -> Self {
        Self(hasAccelerometer: true, fresh: true, orientation: .normal, tilt: .vertical, light: light, proximity: proximity, compass: compass)
    }
}
