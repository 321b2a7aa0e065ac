#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol
package import OrientSensors

/// The one sensor of a kind the daemon uses (light, proximity or compass):
/// which device and driver, opened only while someone wants it, followed
/// through hotplug, its latest value, and what was skipped and why.
///
/// A device is chosen among those a driver discovers, as the accelerometer
/// is: devices that udev tagged (`IIO_SENSOR_PROXY_TYPE`) before those found
/// by orientd's own checks, then the lowest device number. Faults never
/// recurse: a read failure closes the driver and the retry or rescan runs
/// from the loop, later.
package final class SensorSlot {
    /// What it reads.
    package let kind: SensorKind
    private let drivers: [any SensorDriver.Type]
    private let context: SensorContext
    private var loop: EventLoop { context.loop }
    private var log: Log { context.log }

    /// The chosen device and its driver, if any.
    package private(set) var chosen: (device: SensorDevice, driver: any SensorDriver.Type)?
    /// Devices of this kind not used, and why; with a fix where one is known.
    package private(set) var skipped: [(device: SensorDevice, driver: String, reason: String, fix: String?)] = []
    /// The open driver while reading.
    private var open: (any SensorDriver)?
    private var retryTimer: EventLoop.TimerID?
    /// Opens failed in a row (the retry backs off, the warning is said once).
    private var openFailures = 0
    private var failures = 0
    private var loggedFailure = false

    /// The latest reading: absent without a device, nil until the first
    /// reading after opening (and after a failed read: a sensor that stops
    /// answering no longer vouches for its last value).
    package private(set) var value: Value = .absent

    /// A value of any of the kinds.
    package enum Value: Sendable, Equatable {
        case absent
        case light(LightLevel?)
        case proximity(Bool?)
        case compass(Double?)
    }

    /// Told when `value`, the chosen device or the reading state changed.
    package var onChange: (SensorKind) -> Void = { _ in }

    /// Whether anyone wants readings (a D-Bus claim, a socket watcher, a recorder).
    package var wanted = false {
        didSet { if wanted != oldValue { update() } }
    }

    /// Whether the driver is open now.
    package var isOpen: Bool { open != nil }

    /// What the chosen device's driver reads (status).
    package var sources: [String] { chosen.map { $0.driver.sources(for: $0.device) } ?? [] }

    package init(kind: SensorKind, drivers: [any SensorDriver.Type], context: SensorContext) {
        self.kind = kind
        self.drivers = drivers
        self.context = context
    }

    /// Chooses again among `devices` (start, hotplug, reload).
    package func rescan(_ devices: [SensorDevice]) {
        var candidates: [(device: SensorDevice, driver: any SensorDriver.Type)] = []
        var skipped: [(device: SensorDevice, driver: String, reason: String, fix: String?)] = []
        for device in devices {
            var judged = false
            for driver in drivers {
                switch driver.discover(device) {
                case .no: continue
                case .yes: candidates.append((device, driver))
                case .unusable(let reason, let fix): skipped.append((device, driver.name, reason, fix))
                }
                judged = true
                break
            }
            // udev named a driver of this kind, and the device has nothing it reads.
            if !judged, let tagged = drivers.first(where: { device.proxyTypes?.contains($0.name) == true }) {
                skipped.append((device, tagged.name, "udev names \(tagged.name) for it (IIO_SENSOR_PROXY_TYPE) but \(tagged.name) finds nothing it can read",
                    "check its driver, or the udev rule or hwdb entry that sets IIO_SENSOR_PROXY_TYPE"))
            }
        }
        candidates.sort { a, b in
            let tagged = (a.device.proxyTypes != nil, b.device.proxyTypes != nil)
            if tagged.0 != tagged.1 { return tagged.0 }
            return deviceNumber(a.device) < deviceNumber(b.device)
        }
        let pick = candidates.first
        for other in candidates.dropFirst() {
            skipped.append((other.device, other.driver.name, "another \(kind.rawValue) sensor is in use (\(pick?.device.sysname ?? ""))", nil))
        }
        for entry in skipped where !self.skipped.contains(where: { $0.device.syspath == entry.device.syspath && $0.reason == entry.reason }) {
            log.notice("\(kind.rawValue): skipping \(entry.device.sysname): \(entry.reason)" + (entry.fix.map { "; \($0)" } ?? ""))
        }
        self.skipped = skipped
        // The same device by the same driver is kept open: its attributes'
        // values (the raw reading among them) change between enumerations.
        let changed = pick?.device.syspath != chosen?.device.syspath
            || pick.map { ObjectIdentifier($0.driver) } != chosen.map { ObjectIdentifier($0.driver) }
        guard changed else {
            if let pick { chosen = pick }
            return
        }
        closeDriver()
        openFailures = 0
        if let pick {
            log.notice("\(kind.rawValue): \(pick.device.sysname) (\(pick.device.attributes["name"].map { $0.trimmingWhitespace() } ?? "unnamed"), \(pick.driver.name))")
        } else if let previous = chosen {
            log.notice("\(kind.rawValue): \(previous.device.sysname) gone; no \(kind.rawValue) sensor")
        }
        chosen = pick
        value = pick == nil ? .absent : empty
        update()
        onChange(kind)
    }

    /// Present, no reading yet.
    private var empty: Value {
        switch kind {
        case .light: .light(nil)
        case .proximity: .proximity(nil)
        case .compass: .compass(nil)
        case .accelerometer: .absent
        }
    }

    private func update() {
        if wanted, open == nil, retryTimer == nil, let chosen {
            openDriver(chosen)
        } else if !wanted, open != nil || retryTimer != nil {
            closeDriver()
            if chosen != nil, value != empty {
                value = empty
                onChange(kind)
            }
        }
    }

    private func openDriver(_ chosen: (device: SensorDevice, driver: any SensorDriver.Type)) {
        do {
            open = try chosen.driver.init(device: chosen.device, context: context) { [unowned self] event in
                self.delivered(event)
            }
            if openFailures > 0 { log.notice("\(kind.rawValue): \(chosen.device.sysname): open after \(openFailures) failed tries") }
            openFailures = 0
        } catch {
            // 1 s, doubling to a minute while it keeps failing; said once, not per try.
            let delay = min(1000 * pow(2, Double(min(openFailures, 6))), 60_000)
            if openFailures == 0 {
                log.warning("\(kind.rawValue): \(chosen.device.sysname): cannot open: \(error); retrying, less often the longer it fails")
            }
            openFailures += 1
            scheduleRetry(afterMs: delay)
        }
    }

    private func closeDriver() {
        loop.cancel(retryTimer)
        retryTimer = nil
        open?.close()
        open = nil
    }

    /// Tries to open again later, from the loop (never from inside a failure).
    private func scheduleRetry(afterMs delay: Double) {
        loop.cancel(retryTimer)
        retryTimer = loop.schedule(atMs: MonotonicClock.nowMs() + delay) { [unowned self] in
            self.retryTimer = nil
            self.update()
        }
    }

    private func delivered(_ event: SensorEvent) {
        let new: Value
        switch event {
        case .light(let level): new = .light(level)
        case .proximity(let near): new = .proximity(near)
        case .compass(let heading): new = .compass(heading)
        case .failed(let error):
            failures += 1
            if !loggedFailure || error.vanished { log.warning("\(kind.rawValue): \(error)" + (error.vanished ? "; closing it until udev says more" : " (retrying)")) }
            loggedFailure = true
            // The last value is no longer vouched for: a proximity sensor
            // that stops answering must not keep the screen blanked.
            if value != empty {
                value = empty
                onChange(kind)
            }
            if error.vanished {
                // Closed now; a udev remove (or a change bringing it back) rescans.
                // Retried slowly in case udev says nothing (a driver that fails
                // reads without the device going away).
                closeDriver()
                scheduleRetry(afterMs: 2000)
            }
            return
        }
        if failures > 0 { log.notice("\(kind.rawValue): reading again after \(failures) failed reads") }
        failures = 0
        loggedFailure = false
        if new != value {
            value = new
            onChange(kind)
        }
    }
}

/// `iio:device12` → 12, `event5` → 5: the order devices are preferred in.
func deviceNumber(_ device: SensorDevice) -> Int {
    Int(String(device.sysname.reversed().prefix(while: \.isNumber).reversed())) ?? Int.max
}
