import OrientClient
import OrientProtocol

/// What `orientctl status` found, and how to say it: a few lines for people,
/// or one JSON object, with each problem and its one-line fix.
struct StatusReport {
    /// Something that keeps the screen from rotating as it should, and the fix.
    struct Problem: Equatable {
        var problem: String
        var fix: String
    }

    var socket: String
    /// Why the daemon could not be reached; nil when it answered.
    var unreachable: OrientClientError?
    var state: StateMessage?
    var daemon: DaemonStatus?
    var conflict: ServiceConflict

    /// The problems, worst first.
    var problems: [Problem] {
        var found: [Problem] = []
        if let unreachable {
            let fix: String
            if case .unavailable(let reason) = unreachable, reason.contains("permission denied") {
                fix = "ask for access to \(socket), or use --socket to reach a daemon you started"
            } else {
                fix = "sudo systemctl enable --now orientd.socket (or start orientd with --socket \(socket))"
            }
            found.append(Problem(problem: "orientd is not reachable: \(unreachable)", fix: fix))
        }
        if conflict.running {
            found.append(Problem(
                problem: "iio-sensor-proxy is running: it reads the same accelerometer and rotates the screen its own way",
                fix: "sudo systemctl mask --now iio-sensor-proxy"))
        } else if conflict.installed, !conflict.masked {
            found.append(Problem(
                problem: "iio-sensor-proxy is installed and starts when a desktop asks for it",
                fix: "sudo systemctl mask iio-sensor-proxy"))
        }
        guard let daemon else { return found }
        if daemon.sensorState == .absent {
            found.append(Problem(
                problem: "no accelerometer found",
                fix: "check `ls /sys/bus/iio/devices`, then `sudo udevadm control --reload && sudo udevadm trigger -s iio`; "
                    + "`journalctl -u orientd` names what was skipped"))
        }
        for problem in daemon.problems {
            found.append(Problem(problem: (problem.sensor.map { "\($0): " } ?? "") + problem.problem, fix: problem.fix))
        }
        if daemon.subscribers == 0, (daemon.dbusClaimers ?? 0) == 0 {
            found.append(Problem(
                problem: "nothing follows the orientation (no subscriber): the screen will not turn",
                fix: "run `orientctl follow` in your session (README: \"Will my screen rotate?\")"))
        }
        return found
    }

    // MARK: For people

    var text: String {
        var lines: [String] = []
        func row(_ label: String, _ value: String) { lines.append(pad(label + ":") + value) }
        func more(_ value: String) { lines.append(pad("") + value) }
        if let daemon {
            lines.append("orientd \(daemon.version) on \(socket), " + (daemon.configFile.map { "config \($0)" } ?? "no config file (defaults)"))
            if let state { row("state", state.summary) }
            if let trace = daemon.mockTrace {
                row("sensor", "mock: replaying \(trace)")
            } else if let sensor = daemon.sensor {
                let delivered = sensor.deliveredHz.map { ", \(jsonNumber($0)) Hz delivered" } ?? ""
                // A rate the daemon does not ask for (the Sensor Core's firmware sets it): what comes.
                let rate = sensor.rateHz.map { " at \(jsonNumber($0)) Hz asked\(delivered)" } ?? delivered
                let capture = sensor.capture == "none" ? "" : ", \(sensor.capture)\(rate)"
                row("sensor", "\(sensor.device) \(sensor.name ?? "(no name)") (driver \(sensor.driver ?? "unknown")), "
                    + "\(StatusReport.sampling(daemon.sensorState))\(capture)\(sensor.onChange ? ", reports on change" : "")")
                more(sensor.syspath)
                more("modalias \(sensor.modalias ?? "unknown"), machine \(daemon.dmiModalias ?? "unknown (no DMI)")")
            } else {
                row("sensor", "none found")
            }
            row("mount matrix", "\(daemon.mountMatrix.value) (\(StatusReport.matrixSource(daemon.mountMatrix.reason)))")
            row("natural", "\(daemon.natural.value.rawValue) (\(StatusReport.naturalReason(daemon.natural.reason)))")
            let z = daemon.zSign.value > 0 ? "+" : "-"
            row("z sign", "\(z)1 (face up reads \(z)g on z), \(StatusReport.zSignReason(daemon.zSign.reason))")
            if let tablet = daemon.tabletMode {
                let angle = tablet.hingeAngle.map { ", hinge at \(jsonNumber($0))°" } ?? ""
                row("tablet mode", "\(tablet.mode.rawValue) (\(tablet.source == .none ? "no source" : "from the \(tablet.source.rawValue)"): \(tablet.reason)\(angle))")
                row("auto-rotate", "\(tablet.autoRotate.rawValue) (\(tablet.autoRotateReason))")
                if !tablet.uinputSwitchReason.isEmpty {
                    row("uinput switch", "\(tablet.uinputSwitch ?? "none") (\(tablet.uinputSwitchReason))")
                }
            }
            let s = daemon.subscribers, r = daemon.sampleReaders, d = daemon.dbusClaimers ?? 0
            row("consumers", "\(s) subscriber\(s == 1 ? "" : "s"), \(r) recording, \(d) D-Bus claimer\(d == 1 ? "" : "s")"
                + " (\(daemon.clients) client\(daemon.clients == 1 ? "" : "s") connected)")
            if let lock = daemon.lock {
                row("lock", "\(lock.orientation.rawValue), set by \(StatusReport.holder(uid: lock.uid, pid: lock.pid, client: nil))")
            } else {
                row("lock", "none")
            }
            if daemon.constraints.isEmpty {
                row("constraints", "none")
            } else {
                for (index, constraint) in daemon.constraints.enumerated() {
                    let text = "\(constraint.id): \(constraint.allow.joined(separator: ",")) by "
                        + StatusReport.holder(uid: constraint.uid, pid: constraint.pid, client: constraint.client)
                    if index == 0 { row("constraints", text) } else { more(text) }
                }
                if daemon.constraintCount > daemon.constraints.count {
                    more("… and \(daemon.constraintCount - daemon.constraints.count) more")
                }
            }
            lines += StatusReport.sensorLines(daemon.sensors, pad: pad)
        } else {
            lines.append("orientd on \(socket): not reachable")
        }
        row("iio-sensor-proxy", conflictText)
        let problems = self.problems
        lines.append("")
        if problems.isEmpty {
            lines.append("no problems found")
        } else {
            lines.append("problems:")
            for problem in problems {
                lines.append("  \(problem.problem)")
                lines.append("    fix: \(problem.fix)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private var conflictText: String {
        switch (conflict.installed, conflict.running, conflict.masked) {
        case (_, true, _): return "running (a conflict)"
        case (true, false, true): return "installed, masked"
        case (true, false, false): return "installed, not masked (a conflict when started)"
        case (false, false, _): return "not installed"
        }
    }

    func pad(_ label: String) -> String {
        label + String(repeating: " ", count: max(1, 18 - label.count))
    }

    /// The sensor's state, with what idle means (the `state` line may say
    /// active: the `get` behind it sampled the sensor for a fresh reading).
    static func sampling(_ state: SensorStatus) -> String {
        state == .idle ? "idle (sampled only while a client needs readings)" : state.rawValue
    }

    static func holder(uid: UInt32?, pid: Int32?, client: Int?) -> String {
        var parts: [String] = []
        if let client { parts.append("client \(client)") }
        parts.append("uid \(uid.map { String($0) } ?? "?")")
        if let pid { parts.append("pid \(pid)") }
        return parts.joined(separator: ", ")
    }

    static func matrixSource(_ source: String) -> String {
        switch source {
        case "trace": return "from the trace's header"
        case "config": return "from the config's mount-matrix"
        case "identity": return "no source gave one: identity"
        case "ACCEL_MOUNT_MATRIX": return "from udev ACCEL_MOUNT_MATRIX"
        case "mount_matrix", "in_accel_mount_matrix", "in_mount_matrix": return "from sysfs \(source)"
        default: return "from \(source)"
        }
    }

    /// The z sign's reason (`configured: …` or `assumed: …`, docs/protocol.md) as a phrase.
    static func zSignReason(_ reason: String) -> String {
        switch reason {
        case "configured: config z-sign": return "from the config's z-sign"
        case "assumed: trace header z_sign": return "assumed from the trace's header"
        // The driver is on the sensor row; "proper acceleration under a rotation" is docs/classifier.md's.
        case _ where reason.hasSuffix("(the default)"): return "assumed: the default"
        case _ where reason.hasPrefix("assumed: "): return "assumed for " + reason.dropFirst("assumed: ".count)
        default: return reason
        }
    }

    static func naturalReason(_ reason: String) -> String {
        switch reason {
        case "config": return "from the config"
        case "drm": return "the internal panel's mode"
        case "default": return "no internal panel found: the default"
        default: return reason
        }
    }

    // MARK: For programs

    var json: String {
        var members = [
            JSONMember(key: "socket", value: .string(socket)),
            JSONMember(key: "reachable", value: .bool(unreachable == nil)),
            JSONMember(key: "error", value: unreachable.map { .string($0.description) } ?? .null),
        ]
        let stateValue = state.flatMap { try? JSONParser.parse(Array($0.json().utf8)) }
        members.append(JSONMember(key: "state", value: stateValue ?? .null))
        members.append(JSONMember(key: "daemon", value: daemon?.jsonValue() ?? .null))
        members.append(JSONMember(key: "iio_sensor_proxy", value: .object([
            JSONMember(key: "installed", value: .bool(conflict.installed)),
            JSONMember(key: "running", value: .bool(conflict.running)),
            JSONMember(key: "masked", value: .bool(conflict.masked)),
        ])))
        members.append(JSONMember(key: "problems", value: .array(problems.map { problem in
            .object([JSONMember(key: "problem", value: .string(problem.problem)), JSONMember(key: "fix", value: .string(problem.fix))])
        })))
        return JSONValue.object(members).json() + "\n"
    }
}
