public import OrientProtocol

/// The wizard's findings as text: what changes, the hwdb entry, and how to
/// apply it. Pure, so the words are tested without a daemon.
public struct CalibrationReport: Sendable {
    /// The sensor as the daemon names it (`iio:device2`), nil when unknown.
    public var device: String?
    /// The chip and driver, for the entry's comment (`bmc150_accel`, `bmc150_accel_i2c`).
    public var chip: String?
    /// The matrix in use and where it came from (`ACCEL_MOUNT_MATRIX`, `config`, `in_mount_matrix`, `trace`, `identity`).
    public var current: MountMatrix
    public var currentSource: String
    public var poses: PoseSet
    public var fit: MountFit
    /// The key to write under, nil when none is known.
    public var key: HwdbMatchKey?
    /// The machine, for the entry's comment (`TOSHIBA WT10-A`), nil when unknown.
    public var machine: String?
    /// The daemon's z sign, when known (+1: face up reads +z after the matrix).
    public var zSign: Int?

    /// The local hwdb file systemd's 60-sensor.hwdb tells users to create.
    public static let localHwdbPath = "/etc/udev/hwdb.d/61-sensor-local.hwdb"

    public init(
        device: String?, chip: String?, current: MountMatrix, currentSource: String, poses: PoseSet, fit: MountFit,
        key: HwdbMatchKey?, machine: String?, zSign: Int?
    ) {
        self.device = device
        self.chip = chip
        self.current = current
        self.currentSource = currentSource
        self.poses = poses
        self.fit = fit
        self.key = key
        self.machine = machine
        self.zSign = zSign
    }

    /// Whether the matrix in use already gives every pose right.
    public var nothingToChange: Bool { MountFit.equivalent(current, fit.matrix) }

    /// How the matrix was found, in a sentence.
    public var finding: String {
        var lines: [String] = []
        switch fit.kind {
        case .signedPermutation(let offset):
            lines.append(
                "The sensor's axes lie along the panel's, swapped or reversed"
                    + (offset < 0.5 ? "." : " (your poses were within \(oneDecimal(offset))° of that)."))
        case .rotation(let offset):
            lines.append(
                "The sensor is mounted at an angle: \(oneDecimal(offset))° from the nearest axis-aligned matrix, so the new matrix is the exact rotation your poses measured.")
        }
        if fit.mirrored {
            lines.append(
                "The new matrix is mirrored (determinant -1), as most in systemd's hwdb are: it keeps lying face up reading +z, as the hwdb convention and iio-sensor-proxy's tilt expect.")
        }
        return lines.joined(separator: "\n")
    }

    /// The table: each pose under the matrix in use and under the new one.
    public var comparison: String {
        let rows: [(String, String, String)] =
            [("", "in use (\(currentSource))", "new")]
            + [("matrix", current.description, fit.matrix.description)]
            + CalibrationPose.allCases.map { pose in
                let raw = poses[pose].mean
                return (
                    pose.phrase, PanelPose(raw: raw, matrix: current, zSign: zSign ?? 1).description,
                    PanelPose(raw: raw, matrix: fit.matrix).description
                )
            }
        let first = rows.map(\.0.count).max() ?? 0
        let second = rows.map(\.1.count).max() ?? 0
        return rows.map { row in
            "  " + row.0.padded(to: first) + "   " + row.1.padded(to: second) + "   " + row.2
        }.joined(separator: "\n")
    }

    /// The key to fill in when the sensor's is unknown (a trace recorded elsewhere).
    public static let placeholderKey = "sensor:modalias:<parent modalias up to its first ID>*:dmi:*svn<vendor>:pn<product>:*"

    /// The entry: under `key`, or under `placeholderKey` when there is none.
    public var entry: HwdbEntry {
        let what = [machine, chip].compactMap { $0 }.joined(separator: ", ")
        return HwdbEntry(
            comment: (what.isEmpty ? "" : "\(what): ") + "mount matrix found by orientctl calibrate",
            key: key?.key ?? CalibrationReport.placeholderKey, matrix: fit.matrix.description)
    }

    /// The commands that load a written entry.
    public var loadSteps: String {
        let devname = device.map { "/dev/\($0)" } ?? "/dev/iio:deviceN"
        return """
            Load it (as root):
              systemd-hwdb update
              udevadm trigger -v -p DEVNAME=\(devname)
            orientd re-reads the mount matrix on udev's change event (orientctl status shows it and its source).
            """
    }

    /// The orientd-only alternative: the config file's key.
    public var configAlternative: String {
        var lines = [
            "Or, for orientd alone (not for other programs reading the sensor), put it in /etc/orientd/orientd.conf",
            "and reload orientd (systemctl reload orientd):",
            "  [sensor]",
            "  mount-matrix = \(fit.matrix)",
        ]
        if let zSign, zSign != 1 {
            lines += [
                "  [classifier]",
                "  z-sign = 1        # the new matrix already makes lying face up read +z",
            ]
        }
        return lines.joined(separator: "\n")
    }

    /// How to share the entry.
    public static let upstream = """
        To fix it for everyone with this device, send the entry to systemd: a pull request adding it to
        hwdb.d/60-sensor.hwdb (sorted by brand and model) at https://github.com/systemd/systemd, or an issue at
        https://github.com/systemd/systemd/issues with the entry, the device's name and the output of
        `udevadm info --export-db`.
        """

    /// Warnings about how the daemon will see the change.
    public var cautions: [String] {
        var out: [String] = []
        if currentSource == "config" {
            out.append(
                "orientd's config sets mount-matrix, which overrides udev: change it there (below), or remove it for the hwdb entry to take effect in orientd.")
        }
        if let zSign, zSign != 1 {
            out.append(
                "orientd takes lying face up to read -z on this sensor (z sign \(zSign), orientctl status says why), but the new matrix makes it read +z: set z-sign = 1 in the [classifier] section of /etc/orientd/orientd.conf as well, whichever way you apply the matrix.")
        }
        return out
    }
}

extension String {
    package func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
