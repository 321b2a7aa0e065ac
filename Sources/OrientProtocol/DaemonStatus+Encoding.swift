// The `status` reply written: the daemon's side of DaemonStatus, one JSON line
// that fits the protocol's limit, system strings clipped to `maxTextBytes`.

extension DaemonStatus {
    /// The `status` reply as one line, without the newline, at most `limit`
    /// bytes: constraints are left out from the end until it fits
    /// (`constraints_total` still counts them all). The line grows with each
    /// constraint shown, so the most that fit are found by bisection: a few
    /// encodings however many constraints there are.
    public func json(seq: Int64?, limit: Int = 4096) -> String {
        func line(showing count: Int) -> String { encoded(seq: seq, constraints: Array(constraints.prefix(count))) }
        let all = line(showing: constraints.count)
        if all.utf8.count <= limit { return all }
        var fits = 0, tooMany = constraints.count  // line(fits) fits or fits == 0; line(tooMany) does not
        while tooMany - fits > 1 {
            let middle = (fits + tooMany) / 2
            if line(showing: middle).utf8.count <= limit { fits = middle } else { tooMany = middle }
        }
        let fitted = line(showing: fits)
        return fitted.utf8.count <= limit || sensors.isEmpty ? fitted : jsonWithFewerSensors(seq: seq, limit: limit)
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
                JSONMember(key: "delivered_hz", value: sensor.deliveredHz.map { .number(($0 * 10).rounded() / 10) } ?? .null),
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
        members.append(JSONMember(key: "problems", value: .array(problems.map { problem in
            .object([
                JSONMember(key: "sensor", value: text(problem.sensor)),
                JSONMember(key: "problem", value: .string(clipped(problem.problem))),
                JSONMember(key: "fix", value: .string(clipped(problem.fix))),
            ])
        })))
        if let tabletMode { members.append(JSONMember(key: "tablet_mode", value: tabletMode.jsonValue)) }
        members.append(JSONMember(key: "sensors", value: sensorsJSON))
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
