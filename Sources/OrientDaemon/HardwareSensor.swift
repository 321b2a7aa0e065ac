#if canImport(Glibc)
import Glibc
#endif
package import OrientSense
package import OrientProtocol

/// The accelerometer as the daemon sees it: found and followed with libudev,
/// read through a libiio buffer (buffered capture) or by polling the raw sysfs
/// attributes, calibrated and timestamped.
///
/// Sampling runs only while `wanted` is true; otherwise nothing is open and no
/// timer is armed. The polled path reads at the sensor's rate while the device
/// moves or the classifier is deciding, and every `still-interval` while it
/// rests (`SamplingPolicy`). Faults never stop the daemon: a vanished device makes the
/// sensor absent until udev announces one again, transient read errors are
/// logged once and retried, and garbage values are dropped.
package final class HardwareSensor {
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

    private let loop: EventLoop
    private let log: Log
    private let udev: Udev
    private var config: DaemonConfig
    /// Raw counts to m/s² for the chosen device (sysfs scales and offsets, or the config's `scale`).
    package private(set) var calibration = AxisCalibration(scale: Vector3(1, 1, 1), offset: .zero)
    private var accelerometer: IIOAccelerometer?
    private var pollTimer: EventLoop.TimerID?
    /// The raw attribute files' replacement watch while polling (see `IIOAccelerometer.watchReplacements`).
    private var replacementFD: Int32?
    /// The polled path's rate: full while moving, slow while still.
    package private(set) var samplingPolicy: SamplingPolicy
    /// The buffer's poll fd while buffered capture runs.
    private var bufferFD: Int32?
    /// Fires when the buffer has delivered nothing in time: fall back to polling.
    private var bufferWatchdog: EventLoop.TimerID?
    private var bufferDelivered = false
    private var lastBufferedTime = 0.0
    /// How the sensor is read now.
    package private(set) var capture: Capture = .none

    /// How readings are taken.
    package enum Capture: String, Sendable {
        case none, buffered, polled
    }

    /// The sensor reports only on change (a HID sensor hub's buffer, which has
    /// `in_accel_hysteresis`): silence is not a gap.
    package var isOnChange: Bool {
        capture == .buffered && device?.attributes["in_accel_hysteresis"] != nil
    }

    /// How long the buffer may stay silent after it starts before polling takes over, ms.
    package static let bufferGraceMs = 500.0
    private var failures = 0
    private var loggedFailure = false
    private var loggedGarbage = false
    private var loggedAbsent = false

    /// Poll at the sensor's rate even while the device rests (someone records the
    /// readings). Turned on while polling slowly, the next reading is taken now,
    /// not at the end of the still interval.
    package var fullRate = false {
        didSet {
            guard fullRate, !oldValue, capture == .polled, pollTimer != nil else { return }
            loop.cancel(pollTimer)
            pollTimer = nil
            poll()
        }
    }

    /// Whether anyone needs readings now (a subscriber, a `get`, a recorder).
    package var wanted = false {
        didSet { if wanted != oldValue { updateSampling() } }
    }

    package init(loop: EventLoop, log: Log, config: DaemonConfig) throws(SystemError) {
        self.loop = loop
        self.log = log
        self.config = config
        self.udev = try Udev()
        rateHz = max(10, config.classifier.sampleRateHz)
        samplingPolicy = HardwareSensor.policy(config, rateHz: rateHz)
    }

    private static func policy(_ config: DaemonConfig, rateHz: Double) -> SamplingPolicy {
        // Resting readings stay well inside max-sample-gap, so they never count as a gap.
        SamplingPolicy(config.sampling, fastIntervalMs: 1000 / rateHz, longestIntervalMs: config.classifier.maxSampleGapMs / 2)
    }

    /// Starts following udev events and picks a sensor.
    package func start() {
        do {
            let fd = try udev.startMonitor()
            loop.watch(fd, for: .readable) { [unowned self] _ in self.udevEvents() }
        } catch {
            log.warning("udev monitor unavailable (\(error)); hotplug will not be followed")
        }
        rescan(reason: "start")
    }

    /// A new configuration (SIGHUP): re-reads the mount matrix and re-chooses.
    package func reconfigure(_ config: DaemonConfig) {
        self.config = config
        zSign = ZSign.decide(setting: config.zSign, driverName: device?.info.name)
        rateHz = max(10, config.classifier.sampleRateHz)
        samplingPolicy = HardwareSensor.policy(config, rateHz: rateHz)
        samplingPolicy.start(atMs: MonotonicClock.nowMs())
        rescan(reason: "configuration reloaded")
    }

    private func udevEvents() {
        let events = udev.receiveEvents()
        guard !events.isEmpty else { return }
        for event in events { log.info("udev: \(event.action.rawValue) \(event.sysname)") }
        rescan(reason: events.map { "\($0.action.rawValue) \($0.sysname)" }.joined(separator: ", "))
    }

    /// Enumerates the IIO devices again and (re)chooses the accelerometer.
    package func rescan(reason: String) {
        let devices = udev.iioDevices()
        let decision = AccelerometerChoice.choose(devices.map(\.info), pinned: config.device)
        for skipped in decision.skipped where skipped.device.hasRawAxes || skipped.device.hasScanElements {
            log.info("skipping \(skipped.device.sysname): \(skipped.reason)")
        }
        let chosen = decision.chosen.flatMap { info in devices.first { $0.info.sysname == info.sysname } }
        if let pinned = config.device, chosen == nil {
            log.warning("configured device '\(pinned)' not found")
        }
        let previous = device
        device = chosen
        if chosen?.info.sysname != previous?.info.sysname {
            closeDevice()
            if let chosen {
                log.notice("accelerometer: \(chosen.info.sysname) (\(chosen.info.name ?? "unnamed")) at \(chosen.info.syspath)")
            } else if previous != nil {
                log.notice("accelerometer \(previous?.info.sysname ?? "") gone; sensor absent")
            }
        }
        if chosen == nil, !loggedAbsent {
            // Once: the first thing to know when nothing rotates.
            loggedAbsent = true
            let seen = devices.filter { $0.info.hasRawAxes || $0.info.hasScanElements }.map(\.info.sysname)
            log.notice("no accelerometer found (\(seen.isEmpty ? "no IIO device with accel axes" : "skipped: \(seen.joined(separator: ", "))")); "
                + "publishing sensor \"absent\" until udev announces one (`orientctl status` explains)")
        }
        if let chosen { configure(from: chosen) }
        status = chosen == nil ? .absent : (accelerometer != nil ? .active : .idle)
        updateSampling()
        onChange()
        log.debug("sensor rescan (\(reason))")
    }

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
        let decided = ZSign.decide(setting: config.zSign, driverName: device.info.name)
        if decided != zSign { log.info("\(device.info.sysname): z sign \(decided)") }
        zSign = decided
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
        if wanted, let device, accelerometer == nil {
            open(device)
        } else if !wanted, accelerometer != nil {
            closeDevice()
            status = device == nil ? .absent : .idle
            onChange()
        }
    }

    private func open(_ device: UdevIIODevice) {
        do {
            let accelerometer = try IIOAccelerometer(sysname: device.info.sysname)
            let a = device.attributes
            let available = a["sampling_frequency_available"] ?? a["in_accel_sampling_frequency_available"]
            let current = a["sampling_frequency"] ?? a["in_accel_sampling_frequency"]
            if let hz = SamplingFrequency.choose(available: available, current: current, target: config.classifier.sampleRateHz) {
                if accelerometer.setSamplingFrequency(hz) {
                    log.info("\(device.info.sysname): sampling_frequency set to \(formatFrequency(hz)) Hz")
                }
            }
            if a["in_accel_hysteresis"] != nil { accelerometer.clearHysteresis() }
            self.accelerometer = accelerometer
            failures = 0
            status = .active
            let buffered = device.info.hasScanElements && device.info.devnode != nil && startBuffered(accelerometer, device)
            if !buffered { capture = .polled }
            onChange()  // before the first reading: the engine resets its classifier for the new session
            if !buffered { startPolling(device) }
        } catch {
            log.warning("\(device.info.sysname): cannot open: \(error)")
            status = .idle
            onChange()
            // Try again shortly while someone still wants readings.
            pollTimer = loop.schedule(atMs: MonotonicClock.nowMs() + 1000) { [unowned self] in
                self.pollTimer = nil
                if self.wanted, self.accelerometer == nil, let device = self.device { self.open(device) }
            }
        }
    }

    private func startPolling(_ device: UdevIIODevice) {
        capture = .polled
        let still = samplingPolicy.stillIntervalMs > samplingPolicy.fastIntervalMs
            ? "; every \(formatFrequency(samplingPolicy.stillIntervalMs)) ms while still" : ""
        log.info("\(device.info.sysname): sampling at \(formatFrequency(rateHz)) Hz (polled\(still))")
        samplingPolicy.start(atMs: MonotonicClock.nowMs())
        if replacementFD == nil, let fd = accelerometer?.watchReplacements() {
            replacementFD = fd
            loop.watch(fd, for: .readable) { [unowned self] _ in self.accelerometer?.replacementsNoted() }
        }
        poll()
    }

    /// Starts buffered capture; false when the buffer cannot be set up.
    private func startBuffered(_ accelerometer: IIOAccelerometer, _ device: UdevIIODevice) -> Bool {
        let fd: Int32
        do {
            fd = try accelerometer.startBuffer(samples: 4)
        } catch {
            log.info("\(device.info.sysname): no buffered capture (\(error)); polling")
            return false
        }
        bufferFD = fd
        bufferDelivered = false
        lastBufferedTime = MonotonicClock.nowMs()
        capture = .buffered
        log.info("\(device.info.sysname): buffered capture started")
        loop.watch(fd, for: .readable) { [unowned self] _ in self.readBuffer() }
        bufferWatchdog = loop.schedule(atMs: MonotonicClock.nowMs() + HardwareSensor.bufferGraceMs) { [unowned self] in
            self.bufferWatchdog = nil
            guard !self.bufferDelivered, let device = self.device else { return }
            self.log.notice("\(device.info.sysname): the buffer delivered nothing in \(Int(HardwareSensor.bufferGraceMs)) ms; polling instead")
            self.stopBuffered()
            self.capture = .polled
            self.onChange()
            self.startPolling(device)
        }
        return true
    }

    private func stopBuffered() {
        loop.cancel(bufferWatchdog)
        bufferWatchdog = nil
        if let fd = bufferFD { loop.unwatch(fd) }
        bufferFD = nil
        accelerometer?.stopBuffer()
    }

    private func readBuffer() {
        guard let accelerometer else { return }
        let scans: [(timestampNs: Int64?, raw: Vector3)]
        do {
            scans = try accelerometer.readBuffer()
        } catch {
            if error.vanished {
                log.warning("\(error); treating the sensor as removed")
                closeDevice()
                rescan(reason: "buffer read failed")
            } else {
                log.warning("\(error); polling instead")
                stopBuffered()
                capture = .polled
                onChange()
                if let device { startPolling(device) }
            }
            return
        }
        guard !scans.isEmpty else { return }
        bufferDelivered = true
        // Arrival time for the newest scan; earlier scans of the batch keep their
        // spacing from the kernel's timestamps (or the nominal period without them).
        let now = MonotonicClock.nowMs()
        let newest = scans[scans.count - 1].timestampNs
        for (index, scan) in scans.enumerated() {
            let age: Double
            if let stamp = scan.timestampNs, let newest {
                // In Double: a garbage timestamp near ±2^63 must not overflow Int64.
                age = min(max(0, (Double(newest) - Double(stamp)) / 1_000_000), 1e9)
            } else {
                age = Double(scans.count - 1 - index) * 1000 / rateHz
            }
            // Never before the capture started or before the previous reading: a
            // backlog read at start collapses onto the start instead of going back in time.
            let t = max(now - age, lastBufferedTime)
            lastBufferedTime = t
            _ = onSample(Sample(tMs: t, vector: calibration.apply(raw: scan.raw)))
        }
    }

    private func closeDevice() {
        stopBuffered()
        loop.cancel(pollTimer)
        pollTimer = nil
        if let fd = replacementFD { loop.unwatch(fd) }
        replacementFD = nil
        accelerometer?.closeRawAttributes()
        accelerometer = nil
        capture = .none
    }

    /// One reading of the polled path; schedules the next at the policy's interval.
    /// Nothing here allocates or logs in the common case.
    private func poll() {
        guard let accelerometer else { return }
        let t = MonotonicClock.nowMs()
        let interval: Double
        do {
            let raw = try accelerometer.readRaw()
            if failures > 0 { log.notice("\(accelerometer.sysname): reading again after \(failures) failed reads") }
            failures = 0
            loggedFailure = false
            let vector = calibration.apply(raw: raw)
            let classifier = onSample(Sample(tMs: t, vector: vector))
            let panel = mountMatrix.apply(vector)
            let settling = fullRate || classifier.deadlinePending
                || classifier.filtered.map { samplingPolicy.differs($0, panel) } ?? true
            interval = samplingPolicy.interval(after: panel, atMs: t, settling: settling)
        } catch {
            interval = samplingPolicy.interval(atMs: t)
            failures += 1
            if error.vanished {
                log.warning("\(error); treating the sensor as removed")
                closeDevice()
                rescan(reason: "read failed")
                return
            }
            if error.code == EINVAL {
                if !loggedGarbage { log.warning("\(error) (dropping such readings)") }
                loggedGarbage = true
            } else if !loggedFailure {
                log.warning("\(error) (retrying)")
                loggedFailure = true
            }
        }
        guard self.accelerometer != nil else { return }
        pollTimer = loop.schedule(atMs: t + interval) { [unowned self] in self.poll() }
    }
}
