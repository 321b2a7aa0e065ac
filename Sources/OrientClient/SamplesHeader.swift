import OrientProtocol

extension Trace {
    /// The trace metadata a `samples` reply carries (docs/protocol.md, docs/traces.md): `mount_matrix`
    /// (text form, required), `rate_hz` (number, optional) and `on_change`
    /// (Boolean, optional, default false); the provenance strings listed in
    /// `provenanceKeys` become extra header lines as they are. Other fields are ignored.
    init(samplesReply fields: [JSONMember]) throws(OrientClientError) {
        func value(_ key: String) -> JSONValue? { fields.first { $0.key == key }?.value }
        guard let matrixValue = value("mount_matrix") else {
            throw .protocol("the samples reply has no 'mount_matrix'")
        }
        guard let matrixText = matrixValue.string else {
            throw .protocol("the samples reply's 'mount_matrix' must be a string, not \(matrixValue.kindDescription)")
        }
        let matrix: MountMatrix
        do {
            matrix = try MountMatrix(parsing: matrixText)
        } catch {
            throw .protocol("the samples reply's 'mount_matrix' is not a mount matrix: \(error.description)")
        }
        var rate: Double? = nil
        if let rateValue = value("rate_hz"), rateValue != .null {
            guard let number = rateValue.number, number > 0 else {
                throw .protocol("the samples reply's 'rate_hz' must be a positive number, not \(rateValue.json())")
            }
            rate = number
        }
        var onChange = false
        if let onChangeValue = value("on_change"), onChangeValue != .null {
            guard let flag = onChangeValue.bool else {
                throw .protocol("the samples reply's 'on_change' must be a Boolean, not \(onChangeValue.kindDescription)")
            }
            onChange = flag
        }
        var base: MountMatrix?
        if let baseValue = value("base_mount_matrix"), baseValue != .null {
            guard let text = baseValue.string, let parsed = try? MountMatrix(parsing: text) else {
                throw .protocol("the samples reply's 'base_mount_matrix' is not a mount matrix: \(baseValue.json())")
            }
            base = parsed
        }
        var extra: [(key: String, value: String)] = []
        for key in Trace.provenanceKeys {
            guard let member = value(key), member != .null else { continue }
            guard let text = member.string else {
                throw .protocol("the samples reply's '\(key)' must be a string, not \(member.kindDescription)")
            }
            extra.append((key: key, value: text))
        }
        self.init(mountMatrix: matrix, rateHz: rate, onChange: onChange, extraHeaders: extra)
        if let base {
            // A base accelerometer is read: its samples come as `base-sample`s, in base columns.
            baseMountMatrix = base
            columns = [.base]
        }
    }

    /// The members of a `samples` reply that say where the samples come from,
    /// copied into a recorded trace's header (docs/traces.md, "Recorded traces").
    static let provenanceKeys = [
        "orientd_version", "iio_device", "iio_name", "driver", "mount_matrix_source", "clock", "z_sign",
    ]
}
