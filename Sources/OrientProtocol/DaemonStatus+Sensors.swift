// The `sensors` list of the `status` reply: every sensor the daemon found or
// skipped, with what it reads and why (docs/protocol.md, "status").

extension DaemonStatus {
    /// One sensor the daemon found: what it is, where, how iio-sensor-proxy
    /// would drive it, the attributes it reads, and whether it is in use.
    ///
    /// ```swift
    /// SensorEntry(kind: .light, device: "iio:device2", syspath: "/sys/…/iio:device2",
    ///             driver: "iio-poll-als", sources: ["in_illuminance0_raw", "in_illuminance0_scale"],
    ///             state: .inUse, value: "312.5 lux")
    /// ```
    public struct SensorEntry: Sendable, Equatable {
        /// The kinds of sensor a status lists.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// The display's accelerometer.
            case accelerometer
            /// An ambient light sensor.
            case light
            /// A proximity sensor.
            case proximity
            /// A compass.
            case compass
        }

        /// Whether the daemon uses the sensor.
        public enum State: String, Sendable, Hashable, CaseIterable {
            /// Opened and read now.
            case inUse = "in-use"
            /// Chosen, but nobody needs its readings now.
            case idle
            /// Found and not used; `reason` says why.
            case skipped
        }

        /// What kind of sensor it is.
        public var kind: Kind
        /// The device's sysfs name (`iio:device4`, `applesmc.768`).
        public var device: String
        /// Its sysfs path.
        public var syspath: String
        /// iio-sensor-proxy's name for the driver that serves it (`iio-poll-als`,
        /// `iio-buffer-accel`), nil when none applies.
        public var driver: String?
        /// The attributes read (`in_illuminance0_raw`, `in_illuminance0_scale`).
        public var sources: [String]
        /// In use, idle or skipped.
        public var state: State
        /// Why it was skipped (or anything else worth saying about its state).
        public var reason: String?
        /// Its latest value as text (`312.5 lux`, `near`), when there is one.
        public var value: String?

        /// A sensor as the daemon reports it.
        public init(
            kind: Kind, device: String, syspath: String, driver: String? = nil, sources: [String] = [], state: State,
            reason: String? = nil, value: String? = nil
        ) {
            self.kind = kind
            self.device = device
            self.syspath = syspath
            self.driver = driver
            self.sources = sources
            self.state = state
            self.reason = reason
            self.value = value
        }

        /// Most entries of `sources` written; more are left out.
        public static let maxSources = 16
        /// Longest string written for a driver, a source or a value.
        public static let maxShortTextBytes = 128

        /// The entry as a JSON object, strings clipped.
        var jsonValue: JSONValue {
            func text(_ s: String?, _ limit: Int) -> JSONValue { s.map { .string(clippedText($0, to: limit)) } ?? .null }
            let short = SensorEntry.maxShortTextBytes
            return .object([
                JSONMember(key: "kind", value: .string(kind.rawValue)),
                JSONMember(key: "device", value: text(device, short)),
                JSONMember(key: "syspath", value: text(syspath, DaemonStatus.maxTextBytes)),
                JSONMember(key: "driver", value: text(driver, short)),
                JSONMember(key: "sources", value: .array(sources.prefix(SensorEntry.maxSources).map { text($0, short) })),
                JSONMember(key: "state", value: .string(state.rawValue)),
                JSONMember(key: "reason", value: text(reason, DaemonStatus.maxTextBytes)),
                JSONMember(key: "value", value: text(value, short)),
            ])
        }

        /// Decodes one entry; nil for a kind this reader does not know (a newer
        /// daemon's sensor), so the rest of the status still reads.
        init?(json value: JSONValue, path: String) throws(ProtocolDecodeError) {
            guard let members = value.members else {
                throw ProtocolDecodeError("'\(path)' must be an object, not \(value.kindDescription)")
            }
            func member(_ key: String) -> JSONValue? {
                let found = members.first { $0.key == key }?.value
                return found == .null ? nil : found
            }
            func string(_ key: String) throws(ProtocolDecodeError) -> String? {
                guard let found = member(key) else { return nil }
                guard let s = found.string else {
                    throw ProtocolDecodeError("'\(path).\(key)' must be a string, not \(describeJSON(found))")
                }
                return s
            }
            func required(_ key: String) throws(ProtocolDecodeError) -> String {
                guard let s = try string(key) else { throw ProtocolDecodeError("\(path) is missing '\(key)'") }
                return s
            }
            guard let kind = Kind(rawValue: try required("kind")) else { return nil }
            let state: State = try namedCase(try required("state"), key: "\(path).state")
            var sources: [String] = []
            if let list = member("sources") {
                guard let entries = list.array else {
                    throw ProtocolDecodeError("'\(path).sources' must be an array, not \(describeJSON(list))")
                }
                for (index, entry) in entries.enumerated() {
                    guard let name = entry.string else {
                        throw ProtocolDecodeError("'\(path).sources[\(index)]' must be a string, not \(describeJSON(entry))")
                    }
                    sources.append(name)
                }
            }
            self.init(
                kind: kind, device: try required("device"), syspath: try string("syspath") ?? "",
                driver: try string("driver"), sources: sources, state: state, reason: try string("reason"),
                value: try string("value"))
        }
    }

    /// The `sensors` member of a status reply's members: the entries of known
    /// kinds; empty when the member is absent (a daemon older than the list).
    static func sensorEntries(in fields: [JSONMember]) throws(ProtocolDecodeError) -> [SensorEntry] {
        guard let value = fields.first(where: { $0.key == "sensors" })?.value, value != .null else { return [] }
        guard let entries = value.array else {
            throw ProtocolDecodeError("'status.sensors' must be an array, not \(describeJSON(value))")
        }
        var sensors: [SensorEntry] = []
        for (index, entry) in entries.enumerated() {
            if let sensor = try SensorEntry(json: entry, path: "status.sensors[\(index)]") { sensors.append(sensor) }
        }
        return sensors
    }

    /// The `sensors` member written.
    var sensorsJSON: JSONValue { .array(sensors.map(\.jsonValue)) }

    /// The status line when even without constraints it passes `limit`: the
    /// sensor entries are left out from the end until it fits.
    func jsonWithFewerSensors(seq: Int64?, limit: Int) -> String {
        var fewer = self
        fewer.constraints = []
        var line = fewer.json(seq: seq, limit: .max)
        while line.utf8.count > limit, !fewer.sensors.isEmpty {
            fewer.sensors.removeLast()
            line = fewer.json(seq: seq, limit: .max)
        }
        return line
    }
}

/// `s` cut to `limit` bytes of UTF-8 (on a scalar boundary, with "…").
private func clippedText(_ s: String, to limit: Int) -> String {
    guard s.utf8.count > limit else { return s }
    var out = String.UnicodeScalarView()
    var bytes = 0
    for scalar in s.unicodeScalars {
        bytes += String(scalar).utf8.count
        if bytes > limit - 3 { break }
        out.append(scalar)
    }
    return String(out) + "…"
}
