package import OrientProtocol
package import OrientSensors

/// The latest readings of the sensors beside the accelerometer, as the
/// drivers (or a mock replay) set them on `Daemon.environment`.
package struct EnvironmentReadings: Sendable, Equatable {
    /// The ambient light sensor: absent, or present with its latest level.
    package var light: SensorValue<LightLevel> = .absent
    /// The proximity sensor: absent, or present with near (true) or far.
    package var proximity: SensorValue<Bool> = .absent
    /// When each kind last changed, sensor clock in ms (`environmentChanged` sets it).
    package var changedAtMs: [SensorKind: Double] = [:]

    /// No light and no proximity sensor.
    package init() {}

    /// What a replay of `trace` starts with: a sensor, not read yet, for each
    /// optional column the trace has (docs/traces.md).
    package init(trace: Trace) {
        if trace.columns.contains(.light) { light = .present(nil) }
        if trace.columns.contains(.proximity) { proximity = .present(nil) }
        let start = trace.samples.first?.tMs ?? 0
        changedAtMs = [.light: start, .proximity: start]
    }
}

/// The light and proximity sensors on the socket (`watch-sensors`,
/// docs/protocol.md): who watches what, and the readings pushed to them.
///
/// The drivers set `environment.light` / `environment.proximity` and call
/// `environmentChanged(_:)`; `environmentDemand` says which sensors to keep
/// open (`updateDemand()` runs whenever it may have changed).
extension Daemon {
    /// The kinds some socket client watches now: the sensors worth opening.
    package var environmentDemand: Set<SensorKind> {
        var kinds = Set<SensorKind>()
        for client in server?.connections ?? [] where !client.closing {
            for sensor in client.watchedSensors { kinds.insert(SensorKind(sensor)) }
        }
        return kinds
    }

    /// Pushes the current `environment` value of `kind` to every client that
    /// watches it and may read it now (`sensors-permission`, checked per uid
    /// at each push, so a client whose uid left the seat gets nothing more).
    /// `atMs` is the reading's time on the sensor clock (now when nil).
    ///
    /// Coalesced like states: a client whose replies are still queued is only
    /// marked as owed, and gets the latest reading of each owed kind when its
    /// socket drains (never a backlog). Kinds the socket does not serve
    /// (accelerometer, compass) only have their time recorded.
    package func environmentChanged(_ kind: SensorKind, atMs: Double? = nil) {
        environment.changedAtMs[kind] = atMs ?? sensorNow
        guard let server, let sensor = EnvironmentSensor(kind) else { return }
        var line: String?
        var permitted: [UInt32?: Bool] = [:]  // one answer per uid, not per client
        for client in server.connections where client.watchedSensors.contains(sensor) && !client.closing {
            let permits = permitted[client.uid] ?? seat.permits(config.sensorsPermission, uid: client.uid)
            permitted[client.uid] = permits
            guard permits else { continue }
            if client.queuedBytes > 0 || !client.sensorsOwed.isEmpty {
                client.sensorsOwed.insert(sensor)
                continue
            }
            let text = line ?? sensorMessage(sensor).json()
            line = text
            server.send(text, to: client)
        }
    }

    /// `watch-sensors`: watch exactly `sensors` from now on (empty stops, and
    /// is always allowed); the reply carries their readings now.
    func watchSensors(_ sensors: Set<EnvironmentSensor>, from client: ClientConnection, seq: Int64?) {
        if !sensors.isEmpty {
            guard permits(config.sensorsPermission, key: "sensors-permission", what: "watch-sensors", client, seq) else { return }
        }
        let before = environmentDemand
        client.watchedSensors = sensors
        // The reply carries the latest of each: nothing is owed any more.
        client.sensorsOwed = []
        server?.send(Reply.sensorsOK(seq: seq, readings: sensors.sorted().map(sensorMessage)), to: client)
        if sensors.isEmpty {
            log.info("\(client.name) stops watching sensors")
        } else {
            log.info("\(client.name) watches \(sensors.sorted().map(\.rawValue).joined(separator: ", "))")
        }
        if environmentDemand != before { updateDemand() }
    }

    /// Sends a drained client the latest reading of each kind it is owed
    /// (`SocketServer.onDrained`).
    func sendOwedSensors(to client: ClientConnection) {
        let owed = client.sensorsOwed.sorted()
        client.sensorsOwed = []
        guard !owed.isEmpty, seat.permits(config.sensorsPermission, uid: client.uid) else { return }
        for sensor in owed where client.watchedSensors.contains(sensor) {
            server?.send(sensorMessage(sensor).json(), to: client)
        }
    }

    /// The current reading of `sensor` as the protocol carries it.
    func sensorMessage(_ sensor: EnvironmentSensor) -> SensorMessage {
        let kind = SensorKind(sensor)
        let tMs = environment.changedAtMs[kind] ?? sensorNow
        switch sensor {
        case .light:
            guard case .present(let level) = environment.light else { return SensorMessage(.light, present: false, tMs: tMs) }
            guard let level, level.value.isFinite, level.value >= 0 else { return SensorMessage(.light, reading: nil, tMs: tMs) }
            let unit: LightUnitName = level.unit == .vendor ? .vendor : .lux
            return SensorMessage(.light, reading: .light(level: level.value, unit: unit), tMs: tMs)
        case .proximity:
            guard case .present(let near) = environment.proximity else {
                return SensorMessage(.proximity, present: false, tMs: tMs)
            }
            return SensorMessage(.proximity, reading: near.map { .proximity(near: $0) }, tMs: tMs)
        }
    }

    /// A replayed line of readings (`orientd --mock`): through `environment`
    /// and `environmentChanged`, as a driver's reading would go.
    func replayEnvironment(_ reading: EnvironmentSample, unit: LightUnitName) {
        if let level = reading.light {
            environment.light = .present(LightLevel(level, unit: unit == .vendor ? .vendor : .lux))
            environmentChanged(.light, atMs: reading.tMs)
        }
        if let near = reading.proximity {
            environment.proximity = .present(near)
            environmentChanged(.proximity, atMs: reading.tMs)
        }
    }

    /// The `status` entries of a replay's sensors: the trace's accelerometer
    /// and the sensors of its optional columns.
    var mockSensorEntries: [DaemonStatus.SensorEntry] {
        guard let replay else { return [] }
        let path = options.mockTracePath ?? "trace"
        var entries = [
            DaemonStatus.SensorEntry(
                kind: .accelerometer, device: "mock", syspath: path, sources: ["t_ms", "x", "y", "z"], state: .inUse)
        ]
        for column in replay.trace.columns where column.isEnvironment {
            let sensor: EnvironmentSensor = column == .light ? .light : .proximity
            let message = sensorMessage(sensor)
            let value: String?
            switch message.reading {
            case .light(let level, let unit)?: value = "\(jsonNumber(level)) \(unit.rawValue)"
            case .proximity(let near)?: value = near ? "near" : "far"
            case nil: value = nil
            }
            let watched = environmentDemand.contains(SensorKind(sensor))
            entries.append(DaemonStatus.SensorEntry(
                kind: sensor == .light ? .light : .proximity, device: "mock", syspath: path, sources: [column.rawValue],
                state: watched ? .inUse : .idle, value: value))
        }
        return entries
    }

    /// The `status` entry of the hardware accelerometer, when there is one:
    /// iio-sensor-proxy's driver name for how it is (or would be) read, and
    /// the attributes behind the readings.
    var accelerometerEntry: DaemonStatus.SensorEntry? {
        guard let sensor, let device = sensor.device else { return nil }
        if device.sensorCore {
            return DaemonStatus.SensorEntry(
                kind: .accelerometer, device: device.info.sysname, syspath: device.info.syspath, driver: SensorCoreAccelDriver.name,
                sources: ["libssc: QMI service 400 over QRTR", device.info.devnode ?? device.info.sysname],
                state: sensor.status == .active ? .inUse : .idle)
        }
        if device.input {
            return DaemonStatus.SensorEntry(
                kind: .accelerometer, device: device.info.sysname, syspath: device.info.syspath, driver: InputAccelDriver.name,
                sources: [device.info.devnode ?? device.info.sysname, "ABS_X", "ABS_Y", "ABS_Z"],
                state: sensor.status == .active ? .inUse : .idle)
        }
        let buffered = sensor.capture == .buffered || (sensor.capture == .none && device.info.hasScanElements)
        let scales = ["in_accel_scale", "in_accel_x_scale", "in_accel_y_scale", "in_accel_z_scale", "scale", "in_accel_offset"]
            .filter { device.attributes[$0] != nil }
        let sources: [String]
        if buffered {
            sources = [device.info.devnode ?? "/dev/\(device.info.sysname)"]
                + ["x", "y", "z"].map { "scan_elements/in_accel_\($0)_en" }.filter { device.attributes[$0] != nil } + scales
        } else {
            sources = ["x", "y", "z"].map { "in_accel_\($0)_raw" } + scales
        }
        return DaemonStatus.SensorEntry(
            kind: .accelerometer, device: device.info.sysname, syspath: device.info.syspath,
            driver: buffered ? "iio-buffer-accel" : "iio-poll-accel", sources: sources,
            state: sensor.status == .active ? .inUse : .idle)
    }
}

extension SensorKind {
    /// The kind of a sensor the socket serves.
    init(_ sensor: EnvironmentSensor) {
        switch sensor {
        case .light: self = .light
        case .proximity: self = .proximity
        }
    }
}

extension EnvironmentSensor {
    /// The socket's name for `kind`; nil for the kinds `watch-sensors` does not serve.
    init?(_ kind: SensorKind) {
        switch kind {
        case .light: self = .light
        case .proximity: self = .proximity
        case .accelerometer, .compass: return nil
        }
    }
}
