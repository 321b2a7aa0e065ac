import OrientProtocol
import OrientSensors

/// The sensors beside the accelerometer, as the daemon serves them: their
/// readings reach the D-Bus side and the socket's watchers, and `status`
/// lists every sensor found or skipped.
extension Daemon {
    /// A light, proximity or compass reading, or its sensor, changed.
    func sensorChanged(_ kind: SensorKind) {
        guard let slot = hub?[kind] else { return }
        switch slot.value {
        case .absent:
            if kind == .light { environment.light = .absent }
            if kind == .proximity { environment.proximity = .absent }
        case .light(let level): environment.light = .present(level)
        case .proximity(let near): environment.proximity = .present(near)
        case .compass: break
        }
        environmentChanged(kind)
        sensorProxy?.update(sensorProxyReading)
        updateStatus()
    }

    /// The compass heading the D-Bus side publishes.
    var compassValue: SensorValue<Double> {
        if case .compass(let heading)? = hub?[.compass]?.value { return .present(heading) }
        return .absent
    }

    /// Every hardware sensor for `status`: the accelerometer in use and those
    /// skipped, then each other kind's.
    var hardwareSensorEntries: [DaemonStatus.SensorEntry] {
        var entries = accelerometerEntry.map { [$0] } ?? []
        let base = hub?.base
        for skipped in sensor?.skipped ?? [] {
            if let base, skipped.syspath == base.device?.info.syspath {
                // The base's accelerometer is read for the hinge angle, not the orientation.
                entries.append(DaemonStatus.SensorEntry(
                    kind: .accelerometer, device: skipped.sysname, syspath: skipped.syspath, driver: base.device?.driver,
                    sources: [], state: base.status == .active ? .inUse : .idle,
                    reason: "\(skipped.reason): read for the hinge angle (tablet mode)"))
                continue
            }
            entries.append(DaemonStatus.SensorEntry(
                kind: .accelerometer, device: skipped.sysname, syspath: skipped.syspath, driver: nil, sources: [],
                state: .skipped, reason: skipped.reason))
        }
        for kind in SensorKind.allCases {
            guard let slot = hub?[kind], let entryKind = DaemonStatus.SensorEntry.Kind(rawValue: kind.rawValue) else { continue }
            if let chosen = slot.chosen {
                entries.append(DaemonStatus.SensorEntry(
                    kind: entryKind, device: chosen.device.sysname, syspath: chosen.device.syspath, driver: chosen.driver.name,
                    sources: slot.sources, state: slot.isOpen ? .inUse : .idle, value: Daemon.valueText(slot.value)))
            }
            for skipped in slot.skipped {
                entries.append(DaemonStatus.SensorEntry(
                    kind: entryKind, device: skipped.device.sysname, syspath: skipped.device.syspath, driver: skipped.driver,
                    sources: [], state: .skipped, reason: skipped.reason))
            }
        }
        return entries
    }

    /// The problems of skipped sensors that have a fix (a proximity sensor
    /// without a near level).
    var sensorProblems: [DaemonStatus.Problem] {
        var problems: [DaemonStatus.Problem] = []
        for kind in SensorKind.allCases {
            for skipped in hub?[kind]?.skipped ?? [] {
                guard let fix = skipped.fix else { continue }
                problems.append(DaemonStatus.Problem(
                    sensor: skipped.device.sysname, problem: "\(kind.rawValue) sensor not offered: \(skipped.reason)", fix: fix))
            }
        }
        return problems
    }

    /// A reading as `status` shows it.
    static func valueText(_ value: SensorSlot.Value) -> String? {
        switch value {
        case .absent, .light(nil), .proximity(nil), .compass(nil): return nil
        case .light(let level?): return "\(formatNumber(level.value)) \(level.unit.rawValue)"
        case .proximity(let near?): return near ? "near" : "far"
        case .compass(let heading?): return "\(formatNumber(heading))°"
        }
    }
}
