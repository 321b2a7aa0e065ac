#if canImport(Glibc)
import Glibc
#endif
import OrientDevices
import OrientProtocol

/// `iio-buffer-accel` and `iio-poll-accel`: an IIO accelerometer read through
/// its IIO buffer (buffered capture, `BufferedCapture`) when it has scan elements and a device
/// node, else by polling its raw sysfs attributes (`RawAttributes`); a buffer
/// that fails or stays silent falls back to polling.
///
/// The polled path reads at the sensor's rate while the device moves or the
/// classifier is deciding, and every `still-interval` while it rests
/// (`SamplingPolicy`, owned by the sensor). Transient read errors are logged
/// once and retried, garbage values dropped; a device that is gone, or has
/// nothing to read, is handed back to the sensor, which rescans from the loop.
final class IIOAccelDriver: AccelerometerDriver {
    static let name = "iio-buffer-accel"
    /// The device read.
    let device: UdevIIODevice
    private unowned let sensor: HardwareSensor
    private let loop: EventLoop
    private let log: Log
    private let accelerometer: IIOAccelerometer
    /// The polled path's reads, off the loop.
    private let poller: Poller<Result<Vector3, SensorError>>
    /// The buffer's poll fd while buffered capture runs.
    private var bufferFD: Int32?
    /// Fires when the buffer has delivered nothing in time: fall back to polling.
    private var bufferWatchdog: EventLoop.TimerID?
    private var bufferDelivered = false
    private var lastBufferedTime = 0.0
    private var failures = 0
    private var loggedFailure = false
    private var loggedGarbage = false
    private var closed = false

    /// How it reads now.
    private(set) var capture: HardwareSensor.Capture = .none

    /// The sensor reports only on change (a HID sensor hub's buffer, which has
    /// `in_accel_hysteresis`): silence is not a gap.
    var isOnChange: Bool { capture == .buffered && device.attributes["in_accel_hysteresis"] != nil }

    /// How long the buffer may stay silent after it starts before polling takes over, ms.
    static let bufferGraceMs = 500.0
    /// The same for a sensor that reports only on change (a HID sensor hub):
    /// its first report comes when the hub has powered the sensor up, which
    /// took over 500 ms on a loaded machine (the real driver under QEMU).
    static let onChangeBufferGraceMs = 1500.0

    /// The grace for this device.
    private var bufferGraceMs: Double {
        device.attributes["in_accel_hysteresis"] != nil ? IIOAccelDriver.onChangeBufferGraceMs : IIOAccelDriver.bufferGraceMs
    }

    /// Opens the device, sets its sampling frequency and starts reading.
    /// Returns nil (after telling the sensor) when the device has nothing to read.
    init(device: UdevIIODevice, sensor: HardwareSensor, loop: EventLoop, log: Log) throws(SensorError) {
        self.device = device
        self.sensor = sensor
        self.loop = loop
        self.log = log
        accelerometer = try IIOAccelerometer(sysname: device.info.sysname)
        poller = Poller(loop: loop, log: log)
        let a = device.attributes
        let available = a["sampling_frequency_available"] ?? a["in_accel_sampling_frequency_available"]
        // Read now, not at enumeration: on a HID sensor it asks the hub (`Udev.isReading`).
        let current = accelerometer.readAttribute("sampling_frequency") ?? accelerometer.readAttribute("in_accel_sampling_frequency")
        if let hz = SamplingFrequency.choose(available: available, current: current, target: sensor.config.classifier.sampleRateHz) {
            if accelerometer.setSamplingFrequency(hz) {
                log.info("\(device.info.sysname): sampling_frequency set to \(formatFrequency(hz)) Hz")
            }
        }
        if a["in_accel_hysteresis"] != nil { accelerometer.clearHysteresis() }
    }

    /// Starts capture: buffered where it can, else polled. False when the
    /// device has nothing to read (`problem` says why).
    func start() -> (started: Bool, problem: String?) {
        var bufferProblem: String?
        let silentBefore = device.info.hasRawAxes && sensor.silentBuffers.contains(device.info.syspath)
        if silentBefore {
            log.info("\(device.info.sysname): its buffer delivered nothing last time; polling (until udev reports a change)")
        }
        let buffered = !silentBefore && device.info.hasScanElements && device.info.devnode != nil && startBuffered(problem: &bufferProblem)
        if !buffered, !device.info.hasRawAxes {
            return (false, "has scan elements but its buffer cannot start (\(bufferProblem ?? "no device node")), "
                + "and no in_accel_{x,y,z}_raw attributes to poll")
        }
        if !buffered { capture = .polled }
        sensor.captureChanged()  // before the first reading: the engine resets its classifier for the new session
        if !buffered { startPolling() }
        return (true, nil)
    }

    /// A recorder wants every reading: take the next one now, not at the end
    /// of the still interval.
    func takeReadingNow() {
        guard capture == .polled else { return }
        poller.pollNow()
    }

    private func startPolling() {
        capture = .polled
        let policy = sensor.samplingPolicy
        let still = policy.stillIntervalMs > policy.fastIntervalMs
            ? "; every \(formatFrequency(policy.stillIntervalMs)) ms while still" : ""
        log.info("\(device.info.sysname): sampling at \(formatFrequency(sensor.rateHz)) Hz (polled\(still))")
        sensor.samplingPolicy.start(atMs: MonotonicClock.nowMs())
        let raw = ThreadOwned(RawAttributes(sysname: device.info.sysname, directory: accelerometer.directory))
        poller.start(
            name: device.info.sysname, read: { Result { () throws(SensorError) in try raw.value.read() } },
            finish: { raw.value.close() }
        ) { [unowned self] reading, t in self.polled(reading, atMs: t) }
    }

    /// Starts buffered capture; false when the buffer cannot be set up.
    private func startBuffered(problem: inout String?) -> Bool {
        let fd: Int32
        do {
            fd = try accelerometer.startBuffer(samples: 4)
        } catch {
            problem = error.description
            if device.info.hasRawAxes { log.info("\(device.info.sysname): no buffered capture (\(error)); polling") }
            return false
        }
        bufferFD = fd
        bufferDelivered = false
        lastBufferedTime = MonotonicClock.nowMs()
        capture = .buffered
        log.info("\(device.info.sysname): buffered capture started")
        loop.watch(fd, for: .readable) { [unowned self] _ in self.readBuffer() }
        let grace = bufferGraceMs
        bufferWatchdog = loop.schedule(atMs: MonotonicClock.nowMs() + grace) { [unowned self] in
            self.bufferWatchdog = nil
            guard !self.bufferDelivered, !self.closed else { return }
            if self.isOnChange, self.device.info.hasRawAxes {
                // A sensor that reports only on change may just be slow to
                // power up (a HID hub under load took seconds): poll until its
                // buffer delivers, and keep the buffer.
                self.log.notice("\(self.device.info.sysname): the buffer delivered nothing in \(Int(grace)) ms; polling until it does")
                self.capture = .polled
                self.sensor.captureChanged()
                self.startPolling()
                return
            }
            self.log.notice("\(self.device.info.sysname): the buffer delivered nothing in \(Int(grace)) ms; polling instead")
            self.sensor.noteSilentBuffer(self.device)
            self.fallBackToPolling()
        }
        return true
    }

    private func fallBackToPolling() {
        stopBuffered()
        guard device.info.hasRawAxes else {
            sensor.driverFailed(unreadable: "its buffer stopped delivering, and it has no in_accel_{x,y,z}_raw attributes to poll")
            return
        }
        capture = .polled
        sensor.captureChanged()
        startPolling()
    }

    private func stopBuffered() {
        loop.cancel(bufferWatchdog)
        bufferWatchdog = nil
        if let fd = bufferFD { loop.unwatch(fd) }
        bufferFD = nil
        accelerometer.stopBuffer()
    }

    private func readBuffer() {
        let scans: [(timestampNs: Int64?, raw: Vector3)]
        do {
            scans = try accelerometer.readBuffer()
        } catch {
            if error.vanished {
                log.warning("\(error); treating the sensor as removed")
                sensor.driverFailed(unreadable: nil)
            } else {
                log.warning("\(error); polling instead")
                fallBackToPolling()
            }
            return
        }
        guard !scans.isEmpty else { return }
        bufferDelivered = true
        if capture == .polled {
            // The buffer of a slow on-change sensor delivers at last: stop polling.
            stopPolling()
            capture = .buffered
            log.info("\(device.info.sysname): the buffer delivers; polling stopped")
            sensor.captureChanged()
            if closed { return }
        }
        // Arrival time for the newest scan; earlier scans of the batch keep their
        // spacing from the kernel's timestamps (or the nominal period without them).
        let now = MonotonicClock.nowMs()
        let newest = scans[scans.count - 1].timestampNs
        let calibration = sensor.calibration
        for (index, scan) in scans.enumerated() {
            let age: Double
            if let stamp = scan.timestampNs, let newest {
                // In Double: a garbage timestamp near ±2^63 must not overflow Int64.
                age = min(max(0, (Double(newest) - Double(stamp)) / 1_000_000), 1e9)
            } else {
                age = Double(scans.count - 1 - index) * 1000 / sensor.rateHz
            }
            // Never before the capture started or before the previous reading: a
            // backlog read at start collapses onto the start instead of going back in time.
            let t = max(now - age, lastBufferedTime)
            lastBufferedTime = t
            _ = sensor.deliver(Sample(tMs: t, vector: calibration.apply(raw: scan.raw)))
            if closed { return }
        }
    }

    /// Stops reading and closes everything.
    func close() {
        closed = true
        stopBuffered()
        stopPolling()
        capture = .none
    }

    /// Stops the polled path (its thread closes the raw attribute files).
    private func stopPolling() {
        poller.stop()
    }

    /// One reading of the polled path, taken at `t`; returns the interval to
    /// the next (the policy's). Nothing here allocates or logs in the common case.
    private func polled(_ reading: Result<Vector3, SensorError>, atMs t: Double) -> Double {
        let interval: Double
        do {
            let raw = try reading.get()
            if failures > 0 { log.notice("\(accelerometer.sysname): reading again after \(failures) failed reads") }
            failures = 0
            loggedFailure = false
            let vector = sensor.calibration.apply(raw: raw)
            let classifier = sensor.deliver(Sample(tMs: t, vector: vector))
            guard !closed else { return 0 }
            let panel = sensor.mountMatrix.apply(vector)
            let settling = sensor.fullRate || classifier.deadlinePending
                || classifier.filtered.map { sensor.samplingPolicy.differs($0, panel) } ?? true
            interval = sensor.samplingPolicy.interval(after: panel, atMs: t, settling: settling)
        } catch {
            interval = sensor.samplingPolicy.interval(atMs: t)
            failures += 1
            if error.vanished {
                if access(device.info.syspath, F_OK) == 0, !device.info.hasRawAxes {
                    // The device is there but has nothing to poll.
                    sensor.driverFailed(unreadable: "cannot be read: \(error)" + (device.info.hasScanElements ? " (and its buffer could not start)" : ""))
                } else {
                    log.warning("\(error); treating the sensor as removed")
                    sensor.driverFailed(unreadable: nil)
                }
                return 0
            }
            if error.code == EINVAL {
                if !loggedGarbage { log.warning("\(error) (dropping such readings)") }
                loggedGarbage = true
            } else if !loggedFailure {
                log.warning("\(error) (retrying)")
                loggedFailure = true
            }
        }
        return interval
    }
}

/// One way of reading the accelerometer (`IIOAccelDriver`, `InputAccelDriver`):
/// created to start reading a device, it hands each reading to its
/// `HardwareSensor` and tells it of capture changes and failures.
protocol AccelerometerDriver: AnyObject {
    /// How it reads now (`status`).
    var capture: HardwareSensor.Capture { get }
    /// Readings come only on change: silence is not a gap.
    var isOnChange: Bool { get }
    /// Starts reading; false with the reason when the device has nothing to read.
    func start() -> (started: Bool, problem: String?)
    /// Take the next reading now (a recorder arrived).
    func takeReadingNow()
    /// Stops reading and closes everything.
    func close()
}
