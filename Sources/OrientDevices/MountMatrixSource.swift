package import OrientProtocol

/// Where the mount matrix in use came from, in precedence order (docs/behaviour.md).
///
/// The raw value is the config key, the udev property or the sysfs attribute
/// name, so a log line can say exactly what was read.
package enum MountMatrixSource: String, Sendable, CaseIterable, CustomStringConvertible {
    /// `mount_matrix` in orientd's config: overrides everything.
    case config
    /// udev property `ACCEL_MOUNT_MATRIX`, from systemd's `60-sensor.hwdb`.
    case udev = "ACCEL_MOUNT_MATRIX"
    /// sysfs `mount_matrix`.
    case mountMatrix = "mount_matrix"
    /// sysfs `in_accel_mount_matrix`.
    case inAccelMountMatrix = "in_accel_mount_matrix"
    /// sysfs `in_mount_matrix`.
    case inMountMatrix = "in_mount_matrix"
    /// No source gave a usable matrix: the sensor frame is the panel frame.
    case identity

    /// `config`, `udev ACCEL_MOUNT_MATRIX`, `sysfs mount_matrix`, … or `identity`.
    package var description: String {
        switch self {
        case .config: "config mount_matrix"
        case .udev: "udev ACCEL_MOUNT_MATRIX"
        case .mountMatrix, .inAccelMountMatrix, .inMountMatrix: "sysfs \(rawValue)"
        case .identity: "identity"
        }
    }

    /// Picks the mount matrix: the first source that parses, in the order config,
    /// udev `ACCEL_MOUNT_MATRIX`, sysfs `mount_matrix`, `in_accel_mount_matrix`,
    /// `in_mount_matrix`, then the identity.
    ///
    /// Texts are as read (nil when absent); trailing whitespace and the sysfs
    /// newline are ignored, and an empty text means the identity from that source,
    /// as in iio-sensor-proxy. A malformed text, or one with a zero row, is passed
    /// over with a warning naming the source and the error; the chosen matrix's
    /// repair warnings (`MountMatrix.warnings`) follow, prefixed by its source.
    package static func resolve(
        config: MountMatrix?, udev: String?, mountMatrix: String?, inAccelMountMatrix: String?,
        inMountMatrix: String?
    ) -> (matrix: MountMatrix, source: MountMatrixSource, warnings: [String]) {
        var warnings: [String] = []
        func chosen(_ matrix: MountMatrix, _ source: MountMatrixSource) -> (MountMatrix, MountMatrixSource, [String]) {
            (matrix, source, warnings + matrix.warnings.map { "\(source): \($0)" })
        }
        if let config { return chosen(config, .config) }
        let candidates: [(MountMatrixSource, String?)] = [
            (.udev, udev), (.mountMatrix, mountMatrix), (.inAccelMountMatrix, inAccelMountMatrix),
            (.inMountMatrix, inMountMatrix),
        ]
        for case let (source, text?) in candidates {
            if sysfsTrimmed(text).isEmpty { return chosen(.identity, source) }
            // Only the end is trimmed, so error columns count from the text as read.
            var trimmed = Substring(text)
            while let last = trimmed.last, last.isWhitespace { trimmed.removeLast() }
            do {
                return chosen(try MountMatrix(parsing: trimmed), source)
            } catch {
                let shown = trimmed.count > 80 ? "\(trimmed.prefix(80))…" : String(trimmed)
                warnings.append("ignoring \(source) '\(shown)': \(error)")
            }
        }
        return (.identity, .identity, warnings)
    }
}
