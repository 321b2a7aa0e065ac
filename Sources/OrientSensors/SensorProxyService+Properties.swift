// The Properties and error answers of the interface: Get, GetAll and Set as
// GDBus answers them for iio-sensor-proxy.

extension SensorProxyService {
    /// Every property of `interface`, in iio-sensor-proxy's order; nil for an
    /// interface the objects do not have.
    public func properties(of interface: String) -> [Change]? {
        switch interface {
        case Self.interface:
            return [
                Change("HasAccelerometer", .bool(hasAccelerometer)),
                Change("AccelerometerOrientation", .string(orientation.rawValue)),
                Change("AccelerometerTilt", .string(tilt.rawValue)),
                Change("HasAmbientLight", .bool(hasAmbientLight)),
                Change("LightLevelUnit", .string(lightLevel.unit.rawValue)),
                Change("LightLevel", .double(lightLevel.value)),
                Change("HasProximity", .bool(hasProximity)),
                Change("ProximityNear", .bool(proximityNear)),
            ]
        case Self.compassInterface:
            return [Change("HasCompass", .bool(hasCompass)), Change("CompassHeading", .double(compassHeading))]
        default:
            return nil
        }
    }

    /// The properties of `interface` as `sender` may read them: anyone may
    /// read `HasCompass` (iio-sensor-proxy 3.7's monitor-sensor reads it
    /// from every user), but the heading itself only a sender that holds a
    /// compass claim, which GeoClue alone can make (the bus policy, then
    /// polkit); anyone else reads −1, unknown.
    func properties(of interface: String, for sender: String) -> [Change]? {
        guard let all = properties(of: interface) else { return nil }
        guard interface == Self.compassInterface, !claims[.compass].contains(sender) else { return all }
        return all.map { $0.name == "CompassHeading" ? Change($0.name, .double(CompassHeading.unknown)) : $0 }
    }

    func properties(_ call: Call, own: String) -> Reply {
        func noInterface(_ name: String) -> Reply {
            .error(name: DBusError.invalidArgs, message: "No such interface '\(name)' on object at path \(call.path)")
        }
        switch call.member {
        case "Get":
            guard call.signature == "ss", call.strings.count == 2 else { return badArguments(call, expected: "ss") }
            guard call.strings[0] == own, let all = properties(of: own, for: call.sender) else { return noInterface(call.strings[0]) }
            guard let value = all.first(where: { $0.name == call.strings[1] })?.value else {
                return .error(name: DBusError.invalidArgs, message: "No such property '\(call.strings[1])'")
            }
            return .value(value)
        case "GetAll":
            guard call.signature == "s", call.strings.count == 1 else { return badArguments(call, expected: "s") }
            guard call.strings[0] == own, let all = properties(of: own, for: call.sender) else { return noInterface(call.strings[0]) }
            return .all(all)
        case "Set":
            guard call.signature == "ssv" else { return badArguments(call, expected: "ssv") }
            return .error(name: DBusError.propertyReadOnly, message: "Every property of \(own) is read-only")
        default:
            return .error(name: DBusError.unknownMethod, message: "No such method '\(call.member)' in \(Self.propertiesInterface)")
        }
    }

    private func badArguments(_ call: Call, expected: String) -> Reply {
        .error(name: DBusError.invalidArgs, message: "Type of message, '(\(call.signature))', does not match expected type '(\(expected))'")
    }

    func badSignature(_ call: Call, _ token: UInt64, expected: String) -> Action {
        .reply(token: token, badArguments(call, expected: expected))
    }

    func unknownMethod(_ call: Call, _ token: UInt64) -> Action {
        .reply(token: token, .error(name: DBusError.unknownMethod, message: "Method '\(call.member)' does not exist on object \(call.path)"))
    }
}
