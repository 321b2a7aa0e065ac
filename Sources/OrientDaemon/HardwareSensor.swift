#if canImport(Glibc)
import Glibc
#endif
package import OrientSense
package import OrientDevices
package import OrientConfig
package import OrientProtocol

/// The accelerometer as the daemon sees it: found and followed with libudev,
/// read through its IIO buffer (buffered capture) or by polling the raw sysfs
/// attributes, calibrated and timestamped.
///
/// Sampling runs only while `wanted` is true; otherwise nothing is open and no
/// timer is armed. The polled path reads at the sensor's rate while the device
/// moves or the classifier is deciding, and every `still-interval` while it
/// rests (`SamplingPolicy`). Faults never stop the daemon: a vanished device makes the
/// sensor absent until udev announces one again, transient read errors are
/// logged once and retried, and garbage values are dropped.
package final class HardwareSensor {
    /// Which accelerometer it is: the display's (the orientation) or the
    /// base's of a 2-in-1 (the hinge angle, `TabletModeSource`).
    package enum Role: Sendable {
        case display, base
    }

    /// Which accelerometer this is.
    package let role: Role
    /// Where the chosen sensor is.
    package private(set) var status: SensorStatus = .absent
    /// The chosen device, if any.
    package private(set) var device: UdevIIODevice?
    /// The mount matrix in force and where it came from.
    package private(set) var mountMatrix: MountMatrix = .identity
    package private(set) var matrixSource: MountMatrixSource = .identity
    /// The z sign for the chosen device and why (`ZSign.decide`: the config,
    /// else the driver family).
    package private(set) var zSign = ZSign.decide(setting: .auto, driverName: nil)
    /// The rate the sensor is polled at, Hz.
    package private(set) var rateHz: Double

    /// Called with each reading (m/s², sensor frame, CLOCK_MONOTONIC ms).
    /// Returns the classifier's filtered vector (panel frame) and whether it has
    /// a deadline pending: while the filter has not caught up with the reading
    /// or a deadline is pending, the polled path keeps its full rate.
    package var onSample: (Sample) -> (filtered: Vector3?, deadlinePending: Bool) = { _ in (nil, false) }
    /// Called when the status, device or mount matrix changed.
    package var onChange: () -> Void = {}

    /// The rate readings arrive at while open, Hz (`status`, beside `rateHz`);
    /// nil when none came lately.
    package var deliveredHz: Double? { meter.hz(atMs: MonotonicClock.nowMs()) }
    private var meter = RateMeter()

    /// A driver's reading: measured, then handed to `onSample`.
    func deliver(_ sample: Sample) -> (filtered: Vector3?, deadlinePending: Bool) {
        meter.note(sample.tMs)
        return onSample(sample)
    }

    private let loop: EventLoop
    private let log: Log
    private let udev: Udev
    private let core: SensorCore
    private(set) var config: DaemonConfig
    /// Raw counts to m/s² for the chosen device (sysfs scales and offsets, or the config's `scale`).
    package private(set) var calibration = AxisCalibration(scale: Vector3(1, 1, 1), offset: .zero)
    /// The driver reading the device while sampling.
    private var driver: (any AccelerometerDriver)?
    /// Retries an open that failed, while someone wants readings.
    private var retryTimer: EventLoop.TimerID?
    /// The polled path's rate: full while moving, slow while still.
    package internal(set) var samplingPolicy: SamplingPolicy
    /// How the sensor is read now.
    package var capture: Capture { driver?.capture ?? .none }

    /// How readings are taken.
    package enum Capture: String, Sendable {
        case none, buffered, polled
        /// Input events (evdev).
        case events
    }

    /// The sensor reports only on change (a HID sensor hub's buffer, which has
    /// `in_accel_hysteresis`): silence is not a gap.
    package var isOnChange: Bool { driver?.isOnChange ?? false }

    private var loggedAbsent = false

    /// How many times the device read was lost (removed, unbound, or failing
    /// as a vanished device does): what was read before says nothing of the
    /// device now, and the daemon forgets it (`OrientationEngine.forgetReadings`).
    package private(set) var losses = 0

    /// Poll at the sensor's rate even while the device rests (someone records the
    /// readings). Turned on while polling slowly, the next reading is taken now,
    /// not at the end of the still interval.
    package var fullRate = false {
        didSet {
            guard fullRate, !oldValue else { return }
            driver?.takeReadingNow()
        }
    }

    /// Whether anyone needs readings now (a subscriber, a `get`, a recorder).
    package var wanted = false {
        didSet { if wanted != oldValue { updateSampling() } }
    }

    /// Accelerometers that cannot be read (scan elements whose buffer cannot
    /// start, and no raw attributes to poll), by syspath, with the reason:
    /// skipped until udev says something new about them or the config is reloaded.
    package private(set) var unreadable: [String: String] = [:]
    /// IIO accelerometers whose buffer started but delivered nothing in its
    /// grace, by syspath (`bmc150_accel` on a bus with no interrupt line sets
    /// up its FIFO, enables the buffer, and never fills it): polled at once at
    /// the next claims instead of another silent grace each time, until udev
    /// says something new about them or the config is reloaded.
    package private(set) var silentBuffers: Set<String> = []
    /// Accelerometers not used at the last rescan, and why (`status`).
    package private(set) var skipped: [(sysname: String, syspath: String, reason: String)] = []

    package init(loop: EventLoop, log: Log, config: DaemonConfig, udev: Udev, core: SensorCore, role: Role = .display) {
        self.role = role
        self.loop = loop
        self.log = log
        self.config = config
        self.udev = udev
        self.core = core
        rateHz = max(10, config.classifier.sampleRateHz)
        samplingPolicy = HardwareSensor.policy(config, rateHz: rateHz)
    }

    private static func policy(_ config: DaemonConfig, rateHz: Double) -> SamplingPolicy {
        // Resting readings stay well inside max-sample-gap, so they never count as a gap.
        SamplingPolicy(SamplingPolicy.Settings(), fastIntervalMs: 1000 / rateHz, longestIntervalMs: config.classifier.maxSampleGapMs / 2)
    }

    /// Picks a sensor (the hub follows udev and calls `udevEvents`).
    package func start() {
        rescan(reason: "start")
    }

    /// A new configuration (SIGHUP): re-reads the mount matrix and re-chooses.
    package func reconfigure(_ config: DaemonConfig) {
        self.config = config
        zSign = ZSign.decide(setting: config.zSign, driverName: device?.info.name)
        rateHz = max(10, config.classifier.sampleRateHz)
        samplingPolicy = HardwareSensor.policy(config, rateHz: rateHz)
        samplingPolicy.start(atMs: MonotonicClock.nowMs())
        unreadable = [:]
        silentBuffers = []
        rescan(reason: "configuration reloaded")
    }

    /// udev announced IIO devices (the hub passes them on): a device udev
    /// speaks of again gets another chance to be read.
    package func udevEvents(_ events: [Udev.Event]) {
        let iio = events.filter { $0.subsystem == "iio" || $0.subsystem == "input" }
        guard !iio.isEmpty else { return }
        for event in iio {
            unreadable = unreadable.filter { !$0.key.hasSuffix("/\(event.sysname)") }
            silentBuffers = silentBuffers.filter { !$0.hasSuffix("/\(event.sysname)") }
        }
        // udev announcing the device being polled: the buffer may have been
        // refused only because udev had not yet run its rules (the group's
        // access to the buffer attributes) when a sibling's event (the
        // trigger's, on a hub re-created) made us open it. Try it again.
        let announced = device.map { current in
            iio.contains { $0.sysname == current.info.sysname && ($0.action == .add || $0.action == .change) }
        } ?? false
        rescan(reason: iio.map { "\($0.action.rawValue) \($0.sysname)" }.joined(separator: ", "))
        if announced, let device, driver?.capture == .polled, device.info.hasScanElements, device.info.devnode != nil {
            log.info("\(device.info.sysname): udev announced it again while polling; trying buffered capture again")
            closeDevice()
            updateSampling()
        }
    }

    /// Rescans from the loop, not from inside the fault that asks for it:
    /// a device that fails again at once must not recurse through open,
    /// read and rescan.
    func rescanLater(reason: String) {
        loop.cancel(rescanTimer)
        rescanTimer = loop.schedule(atMs: MonotonicClock.nowMs()) { [unowned self] in
            self.rescanTimer = nil
            self.rescan(reason: reason)
        }
    }

    private var rescanTimer: EventLoop.TimerID?

    /// `device` has nothing to read: skip it, with the reason in `status`.
    func markUnreadable(_ device: UdevIIODevice, _ reason: String) {
        unreadable[device.info.syspath] = reason
        status = .idle
        log.warning("\(device.info.sysname): \(reason); skipping it until udev reports a change")
        closeDevice()
        rescanLater(reason: "\(device.info.sysname) unreadable")
    }

    /// The first input accelerometer (udev `ID_INPUT_ACCELEROMETER`), not in
    /// the base and readable, described as the accelerometer path needs it.
    private func inputAccelerometer() -> UdevIIODevice? {
        let candidates = udev.sensorDevices().filter { InputAccelDriver.discover($0) && unreadable[$0.syspath] == nil }
            .filter { ($0.properties["ACCEL_LOCATION"] == "base") == (role == .base) }
            .sorted { deviceNumber($0) < deviceNumber($1) }
        guard let device = candidates.first else { return nil }
        let info = IIODeviceInfo(
            sysname: device.sysname, syspath: device.syspath, devnode: device.devnode,
            name: device.attributes["name"].map { $0.trimmingWhitespace() }, accelLocation: device.properties["ACCEL_LOCATION"])
        var described = UdevIIODevice(info: info, properties: device.properties, attributes: [:])
        described.driver = device.driver
        described.input = true
        return described
    }

    /// The Sensor Core's accelerometer, where udev tagged a device for it
    /// (`ssc-accel`) and the Sensor Core can be read now; else why not, in
    /// `skipped`. Never the base's: a phone has one accelerometer.
    private func sensorCoreAccelerometer() -> UdevIIODevice? {
        guard role == .display else { return nil }
        let tagged = udev.sensorDevices().filter(SensorCoreAccelDriver.discover).sorted { deviceNumber($0) < deviceNumber($1) }
        guard let device = tagged.first else { return nil }
        core.follow()
        if let problem = core.problem {
            skipped.append((device.sysname, device.syspath, "\(SensorCoreAccelDriver.name): \(problem.reason); \(problem.fix)"))
            return nil
        }
        let info = IIODeviceInfo(
            sysname: device.sysname, syspath: device.syspath, devnode: device.devnode, name: nil,
            accelLocation: device.properties["ACCEL_LOCATION"])
        var described = UdevIIODevice(info: info, properties: device.properties, attributes: [:])
        described.driver = device.driver
        described.sensorCore = true
        return described
    }

    /// Enumerates the IIO devices again and (re)chooses the accelerometer.
    package func rescan(reason: String) {
        let devices = udev.iioDevices().filter { unreadable[$0.info.syspath] == nil }
        let decision =
            role == .display
            ? AccelerometerChoice.choose(devices.map(\.info), pinned: config.device)
            : AccelerometerChoice.Decision(chosen: AccelerometerChoice.base(devices.map(\.info)), skipped: [], notes: [])
        skipped = []
        for skipped in decision.skipped where skipped.device.hasRawAxes || skipped.device.hasScanElements {
            log.info("skipping \(skipped.device.sysname): \(skipped.reason)")
            self.skipped.append((skipped.device.sysname, skipped.device.syspath, skipped.reason))
        }
        for (syspath, reason) in unreadable.sorted(by: { $0.key < $1.key }) {
            self.skipped.append((String(syspath.split(separator: "/").last ?? ""), syspath, reason))
        }
        var chosen = decision.chosen.flatMap { info in devices.first { $0.info.sysname == info.sysname } }
        if chosen == nil, config.device == nil || role == .base {
            // No IIO accelerometer: an input one, as iio-sensor-proxy's input-accel reads.
            chosen = inputAccelerometer() ?? sensorCoreAccelerometer()
        }
        if let pinned = config.device, chosen == nil, role == .display {
            log.warning("configured device '\(pinned)' not found")
        }
        let previous = device
        device = chosen
        if chosen?.info.sysname != previous?.info.sysname {
            closeDevice()
            if previous != nil { losses += 1 }
            if let chosen {
                log.notice("\(what): \(chosen.info.sysname) (\(chosen.info.name ?? "unnamed")) at \(chosen.info.syspath)")
            } else if previous != nil {
                log.notice("\(what) \(previous?.info.sysname ?? "") gone; sensor absent")
            }
        }
        // Most machines have no base accelerometer: nothing to say about it.
        if chosen == nil, !loggedAbsent, role == .display {
            // Once: the first thing to know when nothing rotates.
            loggedAbsent = true
            let seen = devices.filter { $0.info.hasRawAxes || $0.info.hasScanElements }.map(\.info.sysname)
            log.notice("no accelerometer found (\(seen.isEmpty ? "no IIO device with accel axes" : "skipped: \(seen.joined(separator: ", "))")); "
                + "publishing sensor \"absent\" until udev announces one (`orientctl status` explains)")
        }
        if let chosen { configure(from: chosen) }
        status = chosen == nil ? .absent : (driver != nil ? .active : .idle)
        updateSampling()
        onChange()
        log.debug("sensor rescan (\(reason))")
    }

    /// "accelerometer" or "base accelerometer", for messages.
    package var what: String { role == .display ? "accelerometer" : "base accelerometer" }

    private func configure(from device: UdevIIODevice) {
        let a = device.attributes
        let resolved = MountMatrixSource.resolve(
            config: config.mountMatrix, udev: device.properties["ACCEL_MOUNT_MATRIX"], mountMatrix: a["mount_matrix"],
            inAccelMountMatrix: a["in_accel_mount_matrix"], inMountMatrix: a["in_mount_matrix"])
        if resolved.matrix != mountMatrix || resolved.source != matrixSource {
            log.notice("\(device.info.sysname): mount matrix \(resolved.matrix) from \(resolved.source)")
        }
        for warning in resolved.warnings { log.warning("\(device.info.sysname): \(warning)") }
        mountMatrix = resolved.matrix
        matrixSource = resolved.source
        let decided = ZSign.decide(setting: config.zSign, driverName: device.sensorCore ? SensorCoreAccelDriver.name : device.info.name)
        if decided != zSign { log.info("\(device.info.sysname): z sign \(decided)") }
        zSign = decided
        if device.input || device.sensorCore {
            // The input driver scales by each axis's resolution itself; libssc gives m/s².
            calibration = .identity
            return
        }
        do {
            let (calibration, warnings) = try AxisCalibration.resolve(
                // cros-ec sensors name their shared scale plainly `scale` (as iio-sensor-proxy reads it).
                perAxisScale: ["x", "y", "z"].map { a["in_accel_\($0)_scale"] }, sharedScale: a["in_accel_scale"] ?? a["scale"],
                perAxisOffset: ["x", "y", "z"].map { a["in_accel_\($0)_offset"] }, sharedOffset: a["in_accel_offset"] ?? a["offset"], scaleOverride: config.scale)
            self.calibration = calibration
            for warning in warnings { log.warning("\(device.info.sysname): \(warning)") }
        } catch {
            log.warning("\(device.info.sysname): \(error); using scale 1, offset 0")
            calibration = AxisCalibration(scale: Vector3(1, 1, 1), offset: .zero)
        }
    }

    // MARK: Sampling

    private func updateSampling() {
        if wanted, let device, driver == nil, retryTimer == nil {
            open(device)
        } else if !wanted, driver != nil || retryTimer != nil {
            closeDevice()
            status = device == nil ? .absent : .idle
            onChange()
        }
    }

    private func open(_ device: UdevIIODevice) {
        let driver: any AccelerometerDriver
        do {
            driver =
                if device.sensorCore {
                    SensorCoreAccelDriver(device: device, sensor: self, core: core, log: log)
                } else if device.input {
                    try InputAccelDriver(device: device, sensor: self, loop: loop, log: log)
                } else {
                    try IIOAccelDriver(device: device, sensor: self, loop: loop, log: log)
                }
        } catch {
            openFailed("\(error)")
            return
        }
        self.driver = driver
        status = .active
        meter.reset()
        let (started, problem) = driver.start()
        if !started { markUnreadable(device, problem ?? "has nothing to read") }
    }

    /// The device could not be opened (at once, or later: the Sensor Core
    /// answers from its thread): tried again shortly while someone still
    /// wants readings.
    func openFailed(_ reason: String) {
        guard let device else { return }
        log.warning("\(device.info.sysname): cannot open: \(reason)")
        closeDevice()
        status = .idle
        onChange()
        retryTimer = loop.schedule(atMs: MonotonicClock.nowMs() + 1000) { [unowned self] in
            self.retryTimer = nil
            self.updateSampling()
        }
    }

    /// The device's buffer delivered nothing in its grace (see `silentBuffers`).
    func noteSilentBuffer(_ device: UdevIIODevice) { silentBuffers.insert(device.info.syspath) }

    /// The driver's capture changed (started, or fell back to polling).
    func captureChanged() { onChange() }

    /// The driver cannot go on: the device is gone (`unreadable` nil: rescan),
    /// or has nothing to read (skipped with that reason). Handled from the loop.
    func driverFailed(unreadable reason: String?) {
        guard let device else { return }
        if let reason {
            markUnreadable(device, reason)
        } else {
            closeDevice()
            losses += 1
            status = .idle
            onChange()
            rescanLater(reason: "read failed")
        }
    }

    func closeDevice() {
        loop.cancel(retryTimer)
        retryTimer = nil
        driver?.close()
        driver = nil
    }
}
