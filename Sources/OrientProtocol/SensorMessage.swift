// The sensors beside the accelerometer on the socket (docs/protocol.md,
// "watch-sensors"): the names a client watches, the `sensor` message pushed on
// a change, and the readings the `watch-sensors` reply carries at once.

/// A sensor a socket client may watch with `watch-sensors`.
public enum EnvironmentSensor: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The ambient light sensor: a level in lux or the vendor's scale.
    case light
    /// The proximity sensor: something near the screen (a phone held to an ear) or not.
    case proximity

    /// In declaration order (replies list readings this way).
    public static func < (a: EnvironmentSensor, b: EnvironmentSensor) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }
}

/// The unit of a light level on the socket and in traces: `lux`, or `vendor`
/// (a vendor's own relative scale, 0–100, as iio-sensor-proxy's hwmon driver gives).
public enum LightUnitName: String, Sendable, Hashable, CaseIterable {
    /// Lux.
    case lux
    /// The vendor's relative scale.
    case vendor
}

/// One sensor's reading as the protocol carries it: pushed as
/// `{"type":"sensor",…}` to clients that watch it, and listed in the
/// `watch-sensors` reply.
///
/// ```swift
/// SensorMessage(.light, reading: .light(level: 312.5, unit: .lux), tMs: 1500).json()
/// // {"type":"sensor","sensor":"light","present":true,"level":312.5,"unit":"lux","t_ms":1500}
/// SensorMessage(.proximity, present: false, tMs: 0).json()
/// // {"type":"sensor","sensor":"proximity","present":false,"t_ms":0}
/// ```
public struct SensorMessage: Sendable, Equatable {
    /// A value one sensor gives.
    public enum Reading: Sendable, Equatable {
        /// A light level (finite, 0 or more) in `unit`.
        case light(level: Double, unit: LightUnitName)
        /// Whether something is near the proximity sensor.
        case proximity(near: Bool)
    }

    /// Which sensor.
    public var sensor: EnvironmentSensor
    /// Whether the daemon has such a sensor.
    public var present: Bool
    /// The latest reading; nil when the sensor is absent or has not been read yet.
    public var reading: Reading?
    /// Sensor-clock time of the reading (or of the sensor appearing or going),
    /// ms: CLOCK_MONOTONIC, or the trace's clock in mock mode.
    public var tMs: Double

    /// A sensor that is there, with its reading (nil until the first one).
    public init(_ sensor: EnvironmentSensor, reading: Reading?, tMs: Double) {
        self.sensor = sensor
        self.present = true
        self.reading = reading
        self.tMs = tMs
    }

    /// A sensor that is there or not, without a reading.
    public init(_ sensor: EnvironmentSensor, present: Bool, tMs: Double) {
        self.sensor = sensor
        self.present = present
        self.reading = nil
        self.tMs = tMs
    }

    /// The light level, when this is a light reading.
    public var level: Double? {
        if case .light(let level, _)? = reading { return level }
        return nil
    }

    /// Near or far, when this is a proximity reading.
    public var near: Bool? {
        if case .proximity(let near)? = reading { return near }
        return nil
    }

    /// The pushed message, one line without the newline:
    /// `{"type":"sensor","sensor":"light","present":true,"level":312.5,"unit":"lux","t_ms":1500}`.
    /// `level` and `unit` (light) or `near` (proximity) are left out while there is no reading.
    public func json() -> String {
        "{\"type\":\"sensor\"," + members
    }

    /// The members after `type` (and the closing brace), shared by the push and the reply's list.
    private var members: String {
        var s = "\"sensor\":\"\(sensor.rawValue)\",\"present\":" + (present ? "true" : "false")
        switch reading {
        case .light(let level, let unit)?: s += ",\"level\":" + jsonNumber(level) + ",\"unit\":\"\(unit.rawValue)\""
        case .proximity(let near)?: s += ",\"near\":" + (near ? "true" : "false")
        case nil: break
        }
        return s + ",\"t_ms\":" + formatMilliseconds(tMs) + "}"
    }

    /// The reading as a member of the `watch-sensors` reply's `sensors` list (no `type`).
    var listEntry: String { "{" + members }

    /// Decodes a `sensor` message's members (or an entry of the reply's
    /// `sensors` list); `type` and unknown members are ignored.
    ///
    /// - Throws: when `sensor` is not a known name, `present` is not a Boolean,
    ///   a reading's member is missing or of the wrong kind (a light level must
    ///   be a number, 0 or more; `unit` `lux` or `vendor`; `near` a Boolean),
    ///   or `t_ms` is not a number. The message names the member.
    public init(fields: [JSONMember]) throws(ProtocolDecodeError) {
        func member(_ key: String) -> JSONValue? {
            let found = fields.first { $0.key == key }?.value
            return found == .null ? nil : found
        }
        func wrong(_ key: String, _ expected: String, _ found: JSONValue) -> ProtocolDecodeError {
            ProtocolDecodeError("sensor message's '\(key)' must be \(expected), not \(describeJSON(found))")
        }
        guard let nameValue = member("sensor") else { throw ProtocolDecodeError("sensor message is missing 'sensor'") }
        guard let name = nameValue.string else { throw wrong("sensor", "a sensor name", nameValue) }
        let sensor: EnvironmentSensor = try namedCase(name, key: "sensor")
        guard let presentValue = member("present") else { throw ProtocolDecodeError("sensor message is missing 'present'") }
        guard let present = presentValue.bool else { throw wrong("present", "true or false", presentValue) }
        guard let timeValue = member("t_ms") else { throw ProtocolDecodeError("sensor message is missing 't_ms'") }
        guard let tMs = timeValue.number else { throw wrong("t_ms", "a number", timeValue) }
        var reading: Reading?
        switch sensor {
        case .light:
            if let levelValue = member("level") {
                guard let level = levelValue.number, level.isFinite, level >= 0 else {
                    throw wrong("level", "a light level (a number, 0 or more)", levelValue)
                }
                guard let unitValue = member("unit") else { throw ProtocolDecodeError("light sensor message has 'level' but no 'unit'") }
                guard let unitName = unitValue.string else { throw wrong("unit", "lux or vendor", unitValue) }
                reading = .light(level: level, unit: try namedCase(unitName, key: "unit"))
            }
        case .proximity:
            if let nearValue = member("near") {
                guard let near = nearValue.bool else { throw wrong("near", "true or false", nearValue) }
                reading = .proximity(near: near)
            }
        }
        if reading != nil, !present {
            throw ProtocolDecodeError("sensor message has a reading but 'present' is false")
        }
        self.sensor = sensor
        self.present = present
        self.reading = reading
        self.tMs = tMs
    }

    /// The readings of a `watch-sensors` reply (an `ok` whose members, besides
    /// `type` and `seq`, are `fields`), in the order listed.
    ///
    /// - Throws: when `sensors` is missing or not an array of objects, an
    ///   entry does not decode, or a sensor is listed twice.
    public static func readings(okFields fields: [JSONMember]) throws(ProtocolDecodeError) -> [SensorMessage] {
        guard let list = fields.first(where: { $0.key == "sensors" })?.value else {
            throw ProtocolDecodeError("the watch-sensors reply has no 'sensors'")
        }
        guard let entries = list.array else {
            throw ProtocolDecodeError("the watch-sensors reply's 'sensors' must be an array, not \(describeJSON(list))")
        }
        var readings: [SensorMessage] = []
        for (index, entry) in entries.enumerated() {
            guard let members = entry.members else {
                throw ProtocolDecodeError("'sensors' entry \(index + 1) must be an object, not \(entry.kindDescription)")
            }
            let reading: SensorMessage
            do {
                reading = try SensorMessage(fields: members)
            } catch {
                throw ProtocolDecodeError("'sensors' entry \(index + 1): \(error.message)")
            }
            guard !readings.contains(where: { $0.sensor == reading.sensor }) else {
                throw ProtocolDecodeError("'sensors' lists \(reading.sensor.rawValue) twice")
            }
            readings.append(reading)
        }
        return readings
    }
}

extension Reply {
    /// The reply to `watch-sensors`: `ok` with the current reading of every
    /// sensor now watched, in `EnvironmentSensor` order:
    /// `{"type":"ok","seq":1,"sensors":[{"sensor":"light","present":true,"level":312.5,"unit":"lux","t_ms":1500}]}`.
    /// An empty list answers `"sensors":[]` (watching stopped).
    public static func sensorsOK(seq: Int64?, readings: [SensorMessage]) -> String {
        var s = "{\"type\":\"ok\""
        if let seq { s += ",\"seq\":\(seq)" }
        return s + ",\"sensors\":[" + readings.sorted { $0.sensor < $1.sensor }.map(\.listEntry).joined(separator: ",") + "]}"
    }
}

extension RequestDecoder {
    /// At most this many entries in a `watch-sensors` list (more is refused
    /// before any entry is looked at; each sensor may be named once anyway).
    public static let maxSensorNames = 8
    /// The names a `watch-sensors` list may hold.
    public static let sensorNames = EnvironmentSensor.allCases.map(\.rawValue)

    /// The `sensors` list of `watch-sensors`: every name known, none twice;
    /// empty stops watching.
    static func sensorList(_ object: JSONValue, seq: Int64?) throws(ProtocolError) -> Set<EnvironmentSensor> {
        func bad(_ message: String) -> ProtocolError { ProtocolError(code: .badArgument, message: message, seq: seq) }
        let expected = "light or proximity"
        guard let value = object["sensors"] else {
            throw bad("watch-sensors needs 'sensors' (a list of sensor names, e.g. [\"light\",\"proximity\"]; [] stops watching)")
        }
        guard let entries = value.array else {
            throw bad("'sensors' must be an array of sensor names (\(expected)), not \(describeJSON(value))")
        }
        guard entries.count <= maxSensorNames else {
            throw bad("'sensors' has \(entries.count) entries; at most \(maxSensorNames) (each of \(expected) once)")
        }
        var sensors = Set<EnvironmentSensor>()
        for (index, entry) in entries.enumerated() {
            guard let name = entry.string else {
                throw bad("'sensors' entry \(index + 1) must be a string (\(expected)), not \(describeJSON(entry))")
            }
            guard let sensor = EnvironmentSensor(rawValue: name) else {
                switch name {
                case "accelerometer":
                    throw bad("the accelerometer is not watched with watch-sensors: subscribe gives the orientation, samples its readings")
                case "compass":
                    throw bad("the compass is not served on the socket (expected \(expected))")
                default:
                    throw bad("unknown sensor '\(shownInMessage(name))' in 'sensors' (expected \(expected))")
                }
            }
            guard sensors.insert(sensor).inserted else { throw bad("'sensors' names '\(name)' twice") }
        }
        return sensors
    }
}
