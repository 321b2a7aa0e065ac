/// The reply to the protocol's `status` request: what the daemon sees and why,
/// for `orientctl status` and a calibration wizard (docs/protocol.md, "status").
///
/// ```swift
/// let line = status.json(seq: 1)                        // {"type":"status","seq":1,…}
/// let again = try DaemonStatus(jsonLine: Array(line.utf8))
/// ```
///
/// A decoder ignores members it does not know, so the daemon may add some; a
/// member this type needs that is missing or of the wrong kind is an error
/// naming it. Strings the daemon reads from the system (paths, names) are
/// clipped to `maxTextBytes` so the line stays within the protocol's limit.
public struct DaemonStatus: Sendable, Equatable {
    /// The accelerometer the daemon chose, as udev and sysfs describe it.
    public struct Sensor: Sendable, Equatable {
        /// The IIO device's name, `iio:deviceN`.
        public var device: String
        /// Its sysfs path (`/sys/devices/…/iio:deviceN`).
        public var syspath: String
        /// The IIO `name` attribute (the chip: `mxc4005`, `accel_3d`), if any.
        public var name: String?
        /// The driver bound to the parent device, if any.
        public var driver: String?
        /// The parent device's modalias (`acpi:MXC4005:MXC4005:`, `i2c:…`), if any:
        /// half of a hwdb match key.
        public var modalias: String?
        /// How it is read now: `buffered`, `polled`, or `none` while idle.
        public var capture: String
        /// The sample rate the daemon asks for, Hz.
        public var rateHz: Double?
        /// The sensor reports only on change.
        public var onChange: Bool

        public init(
            device: String, syspath: String, name: String? = nil, driver: String? = nil, modalias: String? = nil,
            capture: String = "none", rateHz: Double? = nil, onChange: Bool = false
        ) {
            self.device = device
            self.syspath = syspath
            self.name = name
            self.driver = driver
            self.modalias = modalias
            self.capture = capture
            self.rateHz = rateHz
            self.onChange = onChange
        }
    }

    /// A value and the reason it was chosen (`config`, `default`, `drm`, …).
    public struct Decision<Value: Sendable & Equatable>: Sendable, Equatable {
        public var value: Value
        public var reason: String

        public init(_ value: Value, reason: String) {
            self.value = value
            self.reason = reason
        }
    }

    /// One constraint in force, and the client holding it.
    public struct Constraint: Sendable, Equatable {
        public var id: String
        /// The orientations it allows (resolved mask names, normal … right-up).
        public var allow: [String]
        /// The client's serial number, as the daemon's log names it (`client 7`).
        public var client: Int
        /// The client's credentials (SO_PEERCRED), when the kernel gave them.
        public var uid: UInt32?
        public var pid: Int32?

        public init(id: String, allow: [String], client: Int, uid: UInt32?, pid: Int32?) {
            self.id = id
            self.allow = allow
            self.client = client
            self.uid = uid
            self.pid = pid
        }
    }

    /// The rotation lock and who set it (uid kept across restarts; pid only when
    /// set since the daemon started).
    public struct Lock: Sendable, Equatable {
        public var orientation: Orientation
        public var uid: UInt32?
        public var pid: Int32?

        public init(orientation: Orientation, uid: UInt32?, pid: Int32?) {
            self.orientation = orientation
            self.uid = uid
            self.pid = pid
        }
    }

    /// The daemon's version (`orientd --version`).
    public var version: String
    /// The configuration file read, nil when none was (the defaults apply).
    public var configFile: String?
    /// The trace replayed with `--mock`, nil on hardware.
    public var mockTrace: String?
    /// `active`, `idle`, `absent` or `mock`, as in the `state` message.
    public var sensorState: SensorStatus
    /// The chosen accelerometer; nil when none was found (or in mock mode).
    public var sensor: Sensor?
    /// The machine's DMI modalias (`/sys/class/dmi/id/modalias`): the other half
    /// of a hwdb match key. Nil where there is no DMI (most ARM devices).
    public var dmiModalias: String?
    /// The mount matrix in use and where it came from: `config`,
    /// `ACCEL_MOUNT_MATRIX` (udev), `mount_matrix`, `in_accel_mount_matrix`,
    /// `in_mount_matrix` (sysfs), `trace` (the replayed trace's header) or `identity`.
    public var mountMatrix: Decision<MountMatrix>
    /// The panel's natural geometry, and why: `config`, `drm` (the internal
    /// panel's mode) or `default` (nothing found: portrait).
    public var natural: Decision<NaturalGeometry>
    /// The sign of z: +1 when a device lying face up reads +g on z after the
    /// mount matrix, −1 when it reads −g; and why (`default`, `config`, …).
    public var zSign: Decision<Int>
    /// Clients connected, subscribed to `state`, and reading `samples`.
    public var clients: Int
    public var subscribers: Int
    public var sampleReaders: Int
    /// Processes holding the orientation over D-Bus; nil when the daemon has no D-Bus side.
    public var dbusClaimers: Int?
    /// The rotation lock, nil when unlocked.
    public var lock: Lock?
    /// Constraints in force, in client order; the first ones when there are
    /// more than fit in a line (`constraintCount` says how many there are).
    public var constraints: [Constraint]
    public var constraintCount: Int

    public init(
        version: String, configFile: String? = nil, mockTrace: String? = nil, sensorState: SensorStatus,
        sensor: Sensor? = nil, dmiModalias: String? = nil, mountMatrix: Decision<MountMatrix>,
        natural: Decision<NaturalGeometry>, zSign: Decision<Int>, clients: Int = 0, subscribers: Int = 0,
        sampleReaders: Int = 0, dbusClaimers: Int? = nil, lock: Lock? = nil, constraints: [Constraint] = [],
        constraintCount: Int? = nil
    ) {
        self.version = version
        self.configFile = configFile
        self.mockTrace = mockTrace
        self.sensorState = sensorState
        self.sensor = sensor
        self.dmiModalias = dmiModalias
        self.mountMatrix = mountMatrix
        self.natural = natural
        self.zSign = zSign
        self.clients = clients
        self.subscribers = subscribers
        self.sampleReaders = sampleReaders
        self.dbusClaimers = dbusClaimers
        self.lock = lock
        self.constraints = constraints
        self.constraintCount = constraintCount ?? constraints.count
    }

    /// Longest string the encoder writes for a path or name read from the system.
    public static let maxTextBytes = 512
}

// MARK: Encoding

extension DaemonStatus {
    /// The `status` reply as one line, without the newline, at most `limit`
    /// bytes: constraints are left out from the end until it fits
    /// (`constraints_total` still counts them all).
    public func json(seq: Int64?, limit: Int = 4096) -> String {
        var shown = constraints
        while true {
            let line = encoded(seq: seq, constraints: shown)
            if line.utf8.count <= limit || shown.isEmpty { return line }
            shown.removeLast()
        }
    }

    /// The members of the reply after `type` and `seq`, as a JSON object.
    public func jsonValue(constraints shown: [Constraint]? = nil) -> JSONValue {
        func text(_ s: String?) -> JSONValue { s.map { .string(clipped($0)) } ?? .null }
        func integer<T: BinaryInteger>(_ n: T?) -> JSONValue { n.map { .number(Double($0)) } ?? .null }
        let sensorValue: JSONValue
        if let sensor {
            sensorValue = .object([
                JSONMember(key: "state", value: .string(sensorState.rawValue)),
                JSONMember(key: "device", value: text(sensor.device)),
                JSONMember(key: "syspath", value: text(sensor.syspath)),
                JSONMember(key: "name", value: text(sensor.name)),
                JSONMember(key: "driver", value: text(sensor.driver)),
                JSONMember(key: "modalias", value: text(sensor.modalias)),
                JSONMember(key: "capture", value: .string(sensor.capture)),
                JSONMember(key: "rate_hz", value: sensor.rateHz.map { .number($0) } ?? .null),
                JSONMember(key: "on_change", value: .bool(sensor.onChange)),
            ])
        } else {
            sensorValue = .object([JSONMember(key: "state", value: .string(sensorState.rawValue))])
        }
        var members = [
            JSONMember(key: "version", value: .string(clipped(version))),
            JSONMember(key: "config", value: text(configFile)),
            JSONMember(key: "mock", value: text(mockTrace)),
            JSONMember(key: "sensor", value: sensorValue),
            JSONMember(key: "dmi_modalias", value: text(dmiModalias)),
            JSONMember(key: "mount_matrix", value: .object([
                JSONMember(key: "matrix", value: .string(mountMatrix.value.description)),
                JSONMember(key: "source", value: .string(mountMatrix.reason)),
            ])),
            JSONMember(key: "natural", value: .object([
                JSONMember(key: "geometry", value: .string(natural.value.rawValue)),
                JSONMember(key: "reason", value: .string(natural.reason)),
            ])),
            JSONMember(key: "z_sign", value: .object([
                JSONMember(key: "sign", value: .number(Double(zSign.value))),
                JSONMember(key: "reason", value: .string(zSign.reason)),
            ])),
        ]
        var consumers = [
            JSONMember(key: "clients", value: integer(clients)),
            JSONMember(key: "subscribers", value: integer(subscribers)),
            JSONMember(key: "samples", value: integer(sampleReaders)),
        ]
        if let dbusClaimers { consumers.append(JSONMember(key: "dbus_claimers", value: integer(dbusClaimers))) }
        members.append(JSONMember(key: "consumers", value: .object(consumers)))
        members.append(JSONMember(key: "lock", value: lock.map { lock in
            .object([
                JSONMember(key: "orientation", value: .string(lock.orientation.rawValue)),
                JSONMember(key: "uid", value: integer(lock.uid)),
                JSONMember(key: "pid", value: integer(lock.pid)),
            ])
        } ?? .null))
        members.append(JSONMember(key: "constraints", value: .array((shown ?? constraints).map { constraint in
            .object([
                JSONMember(key: "id", value: .string(constraint.id)),
                JSONMember(key: "allow", value: .array(constraint.allow.map { .string($0) })),
                JSONMember(key: "client", value: integer(constraint.client)),
                JSONMember(key: "uid", value: integer(constraint.uid)),
                JSONMember(key: "pid", value: integer(constraint.pid)),
            ])
        })))
        members.append(JSONMember(key: "constraints_total", value: integer(constraintCount)))
        return .object(members)
    }

    private func encoded(seq: Int64?, constraints shown: [Constraint]) -> String {
        let body = jsonValue(constraints: shown).json()
        return "{\"type\":\"status\"" + (seq.map { ",\"seq\":\($0)" } ?? "") + "," + body.dropFirst()
    }
}

/// `s` cut to `DaemonStatus.maxTextBytes` bytes of UTF-8 (on a scalar boundary).
private func clipped(_ s: String) -> String {
    guard s.utf8.count > DaemonStatus.maxTextBytes else { return s }
    var out = String.UnicodeScalarView()
    var bytes = 0
    for scalar in s.unicodeScalars {
        bytes += String(scalar).utf8.count
        if bytes > DaemonStatus.maxTextBytes - 3 { break }
        out.append(scalar)
    }
    return String(out) + "…"
}

// MARK: Decoding

extension DaemonStatus {
    /// Decodes a `status` line (without its newline); `seq` is ignored.
    public init(jsonLine: some Collection<UInt8>) throws(ProtocolDecodeError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(jsonLine))
        } catch {
            throw ProtocolDecodeError("status line is not valid JSON: \(error)")
        }
        guard value["type"]?.string == "status", let members = value.members else {
            throw ProtocolDecodeError("expected a status message, got \(value["type"].map(describeJSON) ?? value.kindDescription)")
        }
        try self.init(fields: members)
    }

    /// Decodes the members of a `status` reply (those besides `type` and `seq`).
    public init(fields: [JSONMember]) throws(ProtocolDecodeError) {
        let root = StatusFields(.object(fields), path: "status")
        let version = try root.string("version")
        let sensorFields = try root.object("sensor")
        let state: SensorStatus = try sensorFields.enumeration("state")
        var sensor: Sensor?
        if let device = try sensorFields.optionalString("device") {
            sensor = Sensor(
                device: device, syspath: try sensorFields.optionalString("syspath") ?? "",
                name: try sensorFields.optionalString("name"), driver: try sensorFields.optionalString("driver"),
                modalias: try sensorFields.optionalString("modalias"),
                capture: try sensorFields.optionalString("capture") ?? "none",
                rateHz: try sensorFields.optionalNumber("rate_hz"),
                onChange: try sensorFields.optionalBool("on_change") ?? false)
        }
        let matrixFields = try root.object("mount_matrix")
        let matrixText = try matrixFields.string("matrix")
        let matrix: MountMatrix
        do {
            matrix = try MountMatrix(parsing: matrixText)
        } catch {
            throw ProtocolDecodeError("'status.mount_matrix.matrix' is not a mount matrix: \(error.description)")
        }
        let matrixSource = try matrixFields.string("source")
        let naturalFields = try root.object("natural")
        let zFields = try root.object("z_sign")
        let sign = try zFields.integer("sign")
        guard sign == 1 || sign == -1 else { throw ProtocolDecodeError("'status.z_sign.sign' must be 1 or -1, not \(sign)") }
        let consumers = try root.object("consumers")
        var lock: Lock?
        if let lockFields = try root.optionalObject("lock") {
            let orientation: Orientation = try lockFields.enumeration("orientation")
            guard orientation != .undefined else { throw ProtocolDecodeError("'status.lock.orientation' must not be undefined") }
            lock = Lock(orientation: orientation, uid: try lockFields.optionalUInt32("uid"), pid: try lockFields.optionalInt32("pid"))
        }
        var constraints: [Constraint] = []
        for (index, entry) in try root.array("constraints").enumerated() {
            let fields = StatusFields(entry, path: "status.constraints[\(index)]")
            guard entry.members != nil else { throw ProtocolDecodeError("'\(fields.path)' must be an object, not \(entry.kindDescription)") }
            var allow: [String] = []
            for name in try fields.array("allow") {
                guard let text = name.string, let o = Orientation(name: text), o != .undefined else {
                    throw ProtocolDecodeError("'\(fields.path).allow' holds \(describeJSON(name)), not an orientation name")
                }
                allow.append(text)
            }
            constraints.append(Constraint(
                id: try fields.string("id"), allow: allow, client: try fields.integer("client"),
                uid: try fields.optionalUInt32("uid"), pid: try fields.optionalInt32("pid")))
        }
        self.init(
            version: version, configFile: try root.optionalString("config"),
            mockTrace: try root.optionalString("mock"), sensorState: state, sensor: sensor,
            dmiModalias: try root.optionalString("dmi_modalias"),
            mountMatrix: Decision(matrix, reason: matrixSource),
            natural: Decision(try naturalFields.enumeration("geometry"), reason: try naturalFields.string("reason")),
            zSign: Decision(sign, reason: try zFields.string("reason")),
            clients: try consumers.count("clients"), subscribers: try consumers.count("subscribers"),
            sampleReaders: try consumers.count("samples"),
            dbusClaimers: try consumers.optionalInteger("dbus_claimers").map { n throws(ProtocolDecodeError) in
                guard n >= 0 else { throw ProtocolDecodeError("'status.consumers.dbus_claimers' must not be negative") }
                return n
            },
            lock: lock, constraints: constraints,
            constraintCount: max(constraints.count, try root.count("constraints_total")))
    }
}

/// Typed access to one object of a status reply, with errors naming the member's path.
private struct StatusFields {
    let value: JSONValue
    let path: String

    init(_ value: JSONValue, path: String) {
        self.value = value
        self.path = path
    }

    private func member(_ key: String) -> JSONValue? {
        let found = value[key]
        return found == .null ? nil : found
    }

    private func missing(_ key: String) -> ProtocolDecodeError {
        ProtocolDecodeError("\(path) is missing '\(key)'")
    }

    private func wrong(_ key: String, _ expected: String, _ found: JSONValue) -> ProtocolDecodeError {
        ProtocolDecodeError("'\(path).\(key)' must be \(expected), not \(describeJSON(found))")
    }

    func optionalObject(_ key: String) throws(ProtocolDecodeError) -> StatusFields? {
        guard let found = member(key) else { return nil }
        guard found.members != nil else { throw wrong(key, "an object", found) }
        return StatusFields(found, path: "\(path).\(key)")
    }

    func object(_ key: String) throws(ProtocolDecodeError) -> StatusFields {
        guard let fields = try optionalObject(key) else { throw missing(key) }
        return fields
    }

    func array(_ key: String) throws(ProtocolDecodeError) -> [JSONValue] {
        guard let found = member(key) else { throw missing(key) }
        guard let elements = found.array else { throw wrong(key, "an array", found) }
        return elements
    }

    func optionalString(_ key: String) throws(ProtocolDecodeError) -> String? {
        guard let found = member(key) else { return nil }
        guard let s = found.string else { throw wrong(key, "a string", found) }
        return s
    }

    func string(_ key: String) throws(ProtocolDecodeError) -> String {
        guard let s = try optionalString(key) else { throw missing(key) }
        return s
    }

    func optionalNumber(_ key: String) throws(ProtocolDecodeError) -> Double? {
        guard let found = member(key) else { return nil }
        guard let d = found.number else { throw wrong(key, "a number", found) }
        return d
    }

    func optionalBool(_ key: String) throws(ProtocolDecodeError) -> Bool? {
        guard let found = member(key) else { return nil }
        guard let b = found.bool else { throw wrong(key, "true or false", found) }
        return b
    }

    func optionalInteger(_ key: String) throws(ProtocolDecodeError) -> Int? {
        guard let d = try optionalNumber(key) else { return nil }
        guard d.rounded(.towardZero) == d, abs(d) < 0x1p53, let n = Int(exactly: d) else {
            throw wrong(key, "an integer", .number(d))
        }
        return n
    }

    func integer(_ key: String) throws(ProtocolDecodeError) -> Int {
        guard let n = try optionalInteger(key) else { throw missing(key) }
        return n
    }

    /// A count: a non-negative integer.
    func count(_ key: String) throws(ProtocolDecodeError) -> Int {
        let n = try integer(key)
        guard n >= 0 else { throw wrong(key, "a count (0 or more)", .number(Double(n))) }
        return n
    }

    func optionalUInt32(_ key: String) throws(ProtocolDecodeError) -> UInt32? {
        guard let n = try optionalInteger(key) else { return nil }
        guard let value = UInt32(exactly: n) else { throw wrong(key, "a uid (0 to 4294967295)", .number(Double(n))) }
        return value
    }

    func optionalInt32(_ key: String) throws(ProtocolDecodeError) -> Int32? {
        guard let n = try optionalInteger(key) else { return nil }
        guard let value = Int32(exactly: n), value > 0 else { throw wrong(key, "a pid", .number(Double(n))) }
        return value
    }

    func enumeration<T: RawRepresentable<String> & CaseIterable>(_ key: String) throws(ProtocolDecodeError) -> T {
        try namedCase(try string(key), key: "\(path).\(key)")
    }
}
