import OrientDevices
import OrientProtocol
import OrientSense

/// What the daemon has said about the engine's learned g: the value last
/// seen, the one last warned about, and the device and calibration it was
/// learned on.
struct GravityNotes {
    /// What a newly seen learned g calls for.
    enum Note: Equatable {
        /// Nothing to say: unchanged, or close to the value already warned about.
        case none
        /// A value to warn about (the first on this device, or a different one).
        case learned(Double)
        /// Back at 1 g after a warning about this value.
        case backToOneG(Double)
    }

    private var noted: Double?
    private var warned: Double?
    private var device: String?
    private var calibration: AxisCalibration?

    /// Records `learned` (nil: none), the engine's learned g now.
    mutating func see(_ learned: Double?, relearnTolerance: Double) -> Note {
        guard learned != noted else { return .none }
        noted = learned
        guard let learned else { return warned.map(Note.backToOneG) ?? .none }
        if let warned, abs(learned / warned - 1) <= relearnTolerance { return .none }
        warned = learned
        return .learned(learned)
    }

    /// Whether the device or its calibration is another than the one g was
    /// learned on; if so, forgets everything noted about it.
    mutating func follow(device: String?, calibration: AxisCalibration) -> Bool {
        guard device != self.device || calibration != self.calibration else { return false }
        (self.device, self.calibration) = (device, calibration)
        (noted, warned) = (nil, nil)
        return true
    }

    /// A reload: `learned` is the engine's g after it, said nothing about;
    /// with learning off, no warning is remembered either.
    mutating func reloaded(learned: Double?, learns: Bool) {
        noted = learned
        if !learns { warned = nil }
    }
}

/// A wrong or missing scale: the engine learns the device's g from its readings
/// at rest (`GravityEstimate`); the daemon says so once in the log, lists it as a
/// problem in `status`, and forgets it when the device or its calibration changes.
extension Daemon {
    /// Logs a change of the engine's learned g, if it changed since last noted
    /// (called after every reading and tick that may have taught it): a warning
    /// the first time a value is learned on a device (not again for the same
    /// value), a notice when the readings at rest are back at 1 g.
    func noteGravity() {
        let note = gravityNotes.see(engine.gravity.learned, relearnTolerance: engine.gravity.settings.relearnTolerance)
        let prefix = sensor?.device.map { "\($0.info.sysname): " } ?? (replay != nil ? "trace: " : "")
        switch note {
        case .none: return
        case .backToOneG(let warned):
            log.notice("\(prefix)readings at rest are about 1 g again: no longer taking \(formatNumber(GravityEstimate.rounded(warned, significantDigits: 4))) m/s² as g")
        case .learned:
            guard let problem = gravityProblem else { return }
            log.warning("\(prefix)\(problem.problem); \(problem.fix)")
        }
    }

    /// Forgets the learned g when another device is chosen or the chosen one's
    /// calibration changed (a udev `change`, the config's `scale`): it was
    /// learned for the readings as they were.
    func followCalibration(of sensor: HardwareSensor) {
        guard gravityNotes.follow(device: sensor.device?.info.sysname, calibration: sensor.calibration) else { return }
        mutateEngine { engine in
            engine.forgetGravity()
            return nil
        }
    }

    /// The learned g as a `status` problem, with its fix; nil when none is learned.
    var gravityProblem: DaemonStatus.Problem? {
        guard let learned = engine.gravity.learned else { return nil }
        let g = engine.gravity.settings.standardGravity
        let problem = GravityEstimate.problem(learned: learned, standardGravity: g)
        guard let sensor, let device = sensor.device else {
            return DaemonStatus.Problem(
                problem: problem,
                fix: "the trace's samples are not in m/s²: record it again with the sensor's scale fixed (in_accel_scale or `[sensor] scale`)")
        }
        let a = device.attributes
        let attribute: String? =
            if a["in_accel_x_scale"] != nil || a["in_accel_y_scale"] != nil || a["in_accel_z_scale"] != nil { "in_accel_{x,y,z}_scale" }
            else if a["in_accel_scale"] != nil { "in_accel_scale" }
            else if a["scale"] != nil { "scale" }
            else { nil }
        let scale = sensor.calibration.scale
        let fix = GravityEstimate.fix(
            learned: learned, standardGravity: g, attribute: attribute,
            missing: device.input ? "the input device gives no resolution, or a wrong one (EVIOCGABS)" : "the driver gives no scale (in_accel_scale)",
            // The input driver scales by the axes' resolutions itself: the scale to set is not known here.
            scale: !device.input && scale.x == scale.y && scale.y == scale.z ? scale.x : nil)
        return DaemonStatus.Problem(sensor: device.info.sysname, problem: problem, fix: fix)
    }
}
