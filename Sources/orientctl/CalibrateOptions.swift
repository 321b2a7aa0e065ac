import OrientCalibration

/// `orientctl calibrate`'s options, validated.
struct CalibrateOptions: Equatable {
    /// No prompts: poses from `traces`, the entry written only with `write`.
    var nonInteractive = false
    /// Write the entry to `hwdbFile` without asking.
    var write = false
    /// The local hwdb file (`/etc/udev/hwdb.d/61-sensor-local.hwdb`).
    var hwdbFile = CalibrationReport.localHwdbPath
    /// How long each pose must be held still, seconds.
    var restSeconds = 1.0
    /// The match key to write under, instead of the one the wizard derives.
    var matchKey: String?
    /// Recorded poses: none (read them live), one trace holding the three poses
    /// in order, or one trace per pose (upright, left-up, face-up).
    var traces: [String] = []

    /// The calibrate-only options, for parsing and "did you mean".
    static let optionNames = ["--non-interactive", "--write", "--hwdb-file", "--rest", "--match-key"]

    /// Applies one option (`value` reads its argument); nil when accepted, else the usage error.
    mutating func apply(_ option: String, value: () -> String?) -> String? {
        switch option {
        case "--non-interactive":
            nonInteractive = true
        case "--write":
            write = true
        case "--hwdb-file":
            guard let path = value(), !path.isEmpty else { return "--hwdb-file needs a path" }
            hwdbFile = path
        case "--rest":
            guard let text = value(), let seconds = Double(text), seconds.isFinite, seconds >= 0.2, seconds <= 10 else {
                return "--rest needs a number of seconds from 0.2 to 10"
            }
            restSeconds = seconds
        case "--match-key":
            guard let key = value(), key.hasPrefix("sensor:"), !key.contains("\n") else {
                return "--match-key needs a hwdb key starting with 'sensor:'"
            }
            matchKey = key
        default:
            return "unknown option '\(option)'"
        }
        return nil
    }

    /// Checks the positional arguments (trace files); nil when fine.
    func problem() -> String? {
        guard [0, 1, 3].contains(traces.count) else {
            return "calibrate takes one trace holding the three poses, or three traces (upright, left-up, face-up); got \(traces.count)"
        }
        if nonInteractive && traces.isEmpty {
            return "--non-interactive needs the poses as recorded traces (orientctl record)"
        }
        return nil
    }
}
