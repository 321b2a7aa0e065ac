// The `status` reply read: the client's side of DaemonStatus. Unknown members
// are ignored, and so is a missing `problems` (daemons before it); an error
// names the member's path (`status.z_sign.sign`).

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
                deliveredHz: try sensorFields.optionalNumber("delivered_hz"),
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
        var problems: [Problem] = []
        for (index, entry) in try root.optionalArray("problems").enumerated() {
            let fields = StatusFields(entry, path: "status.problems[\(index)]")
            guard entry.members != nil else { throw ProtocolDecodeError("'\(fields.path)' must be an object, not \(entry.kindDescription)") }
            problems.append(Problem(
                sensor: try fields.optionalString("sensor"), problem: try fields.string("problem"), fix: try fields.string("fix")))
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
            constraintCount: max(constraints.count, try root.count("constraints_total")), problems: problems)
        sensors = try DaemonStatus.sensorEntries(in: fields)
        if let mode = try root.optionalObject("tablet_mode") {
            tabletMode = TabletModeStatus(
                mode: try mode.enumeration("mode"), source: try mode.enumeration("source"),
                device: try mode.optionalString("device"), reason: try mode.string("reason"),
                hingeAngle: try mode.optionalNumber("hinge_angle"), autoRotate: try mode.enumeration("auto_rotate"),
                autoRotateReason: try mode.string("auto_rotate_reason"),
                uinputSwitch: try mode.optionalString("uinput_switch"),
                uinputSwitchReason: try mode.optionalString("uinput_switch_reason") ?? "")
        }
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
        guard member(key) != nil else { throw missing(key) }
        return try optionalArray(key)
    }

    /// The array, or none when the member is missing or null.
    func optionalArray(_ key: String) throws(ProtocolDecodeError) -> [JSONValue] {
        guard let found = member(key) else { return [] }
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
