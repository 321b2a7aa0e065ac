import OrientProtocol

extension Trace {
    /// The trace metadata a `samples` reply carries (SPEC §7, §8): `mount_matrix`
    /// (text form, required), `rate_hz` (number, optional) and `on_change`
    /// (Boolean, optional, default false). Other fields are ignored.
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
        self.init(mountMatrix: matrix, rateHz: rate, onChange: onChange)
    }
}
