import OrientProtocol

extension StatusReport {
    /// The `sensors` rows: one per sensor the daemon found, with how it is
    /// read, its state (and why it was skipped) and its value.
    ///
    ///     sensors:          accelerometer iio:device4 (iio-poll-accel), in use
    ///                         reads in_accel_x_raw, in_accel_y_raw, in_accel_z_raw, in_accel_scale
    ///                       light iio:device2 (iio-poll-als), idle: 312.5 lux
    static func sensorLines(_ sensors: [DaemonStatus.SensorEntry], pad: (String) -> String) -> [String] {
        guard !sensors.isEmpty else { return [pad("sensors:") + "none listed"] }
        var lines: [String] = []
        for (index, entry) in sensors.enumerated() {
            var text = "\(entry.kind.rawValue) \(entry.device)"
            if let driver = entry.driver { text += " (\(driver))" }
            switch entry.state {
            case .inUse: text += ", in use"
            case .idle: text += ", idle"
            case .skipped: text += ", skipped"
            }
            if let reason = entry.reason { text += " (\(reason))" }
            if let value = entry.value { text += ": \(value)" }
            lines.append(pad(index == 0 ? "sensors:" : "") + text)
            if !entry.sources.isEmpty { lines.append(pad("") + "  reads " + entry.sources.joined(separator: ", ")) }
        }
        return lines
    }
}
