#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol
import OrientDevices

/// The `status` request: what the daemon sees and why, from one place.
extension Daemon {
    /// The sign of z and why it was chosen (`Daemon.zSign`, the decision the
    /// classifier runs with): the config's `z-sign`, else the driver family,
    /// and whether it is configured or only assumed.
    var zSignDecision: DaemonStatus.Decision<Int> {
        let decided = zSign
        return DaemonStatus.Decision(decided.sign < 0 ? -1 : 1, reason: "\(decided.known ? "configured" : "assumed"): \(decided.source)")
    }

    /// The natural geometry in use and why: the config pins it, or the internal
    /// panel's mode decided, or nothing was found and portrait is the default.
    var naturalDecision: DaemonStatus.Decision<NaturalGeometry> {
        DaemonStatus.Decision(natural, reason: naturalReason)
    }

    /// The mount matrix in use and where it came from.
    var mountMatrixDecision: DaemonStatus.Decision<MountMatrix> {
        let source: String
        if let sensor, sensor.device != nil {
            source = sensor.matrixSource.rawValue
        } else if config.mountMatrix != nil {
            source = MountMatrixSource.config.rawValue
        } else {
            source = replay == nil ? MountMatrixSource.identity.rawValue : "trace"
        }
        return DaemonStatus.Decision(engine.mountMatrix, reason: source)
    }

    /// The configuration file read, nil when the defaults apply.
    var configFileInUse: String? {
        guard let path = options.configPath else { return nil }
        var info = stat()
        return !options.configOptional || stat(path, &info) == 0 ? path : nil
    }

    /// Everything `status` reports, as of now.
    var status: DaemonStatus {
        let connections = (server?.connections ?? []).sorted { $0.serial < $1.serial }
        var constraints: [DaemonStatus.Constraint] = []
        for client in connections {
            for (id, mask) in client.constraints {
                constraints.append(DaemonStatus.Constraint(
                    id: id, allow: mask.names, client: client.serial, uid: client.uid, pid: client.pid))
            }
        }
        var sensorInfo: DaemonStatus.Sensor?
        if let sensor, let device = sensor.device {
            sensorInfo = DaemonStatus.Sensor(
                device: device.info.sysname, syspath: device.info.syspath, name: device.info.name, driver: device.driver,
                // The Sensor Core's firmware sets its rate: nothing is asked.
                modalias: device.modalias, capture: sensor.capture.rawValue, rateHz: device.sensorCore ? nil : sensor.rateHz,
                deliveredHz: sensor.deliveredHz,
                onChange: sensor.isOnChange)
        }
        var status = DaemonStatus(
            version: orientdVersion, configFile: configFileInUse, mockTrace: options.mockTracePath,
            sensorState: state.sensor, sensor: sensorInfo, dmiModalias: Daemon.dmiModalias(),
            mountMatrix: mountMatrixDecision, natural: naturalDecision, zSign: zSignDecision,
            clients: connections.count, subscribers: server?.subscriberCount ?? 0,
            sampleReaders: connections.count { $0.wantsSamples }, dbusClaimers: sensorProxy.map { $0.service.claimers.count },
            lock: state.locked.map { DaemonStatus.Lock(orientation: $0, uid: lock.owner, pid: lock.setterPID) },
            constraints: constraints, problems: [gravityProblem, publishedSwitchProblem].compactMap { $0 } + sensorProblems)
        status.sensors = replay == nil ? hardwareSensorEntries : mockSensorEntries
        status.tabletMode = tabletModeStatus
        return status
    }

    /// The machine's DMI modalias (`dmi:bvn…:svn…:pn…`), the hwdb's machine match; nil without DMI.
    static func dmiModalias() -> String? {
        guard let bytes = try? readFile("/sys/class/dmi/id/modalias", limit: 4096) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
        return text.isEmpty ? nil : text
    }

    /// What a recorded trace's header should say about where its samples came
    /// from, as members of the `samples` reply (docs/traces.md).
    var samplesProvenance: [(key: String, value: String)] {
        var members: [(key: String, value: String)] = [
            ("orientd_version", orientdVersion), ("mount_matrix_source", mountMatrixDecision.reason),
        ]
        if let device = sensor?.device {
            members.append(("iio_device", device.info.sysname))
            if let name = device.info.name { members.append(("iio_name", name)) }
            if let driver = device.driver { members.append(("driver", driver)) }
        }
        if replay != nil { members.append(("clock", "trace")) } else { members.append(("clock", "CLOCK_MONOTONIC")) }
        // The sign the classifier uses: a replay of the recording reads it (and the hinge angle depends on it).
        members.append(("z_sign", zSign.sign < 0 ? "-1" : "1"))
        return members
    }
}
