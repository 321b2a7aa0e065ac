#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import OrientSense
import OrientProtocol

/// `input-accel`: an accelerometer of the input subsystem (udev
/// `ID_INPUT_ACCELEROMETER=1`: lis3lv02d, some older tablets' drivers), read
/// through libevdev as `ABS_X`, `ABS_Y`, `ABS_Z` events, one reading per
/// `SYN_REPORT`. Each axis's resolution (units per g, EVIOCGABS) gives its
/// scale; an axis without one (lis3lv02d, the N900's lis302dl, uinput
/// devices) takes 1, and the engine then takes the first reading's magnitude
/// as g and learns it from the readings at rest, as for IIO
/// (`GravityEstimate`). The configuration's `scale` overrides both. The first
/// reading is the kernel's state at open.
final class InputAccelDriver: AccelerometerDriver {
    static let name = "input-accel"
    /// Standard gravity, m/s²: one g of an axis's resolution.
    static let g = 9.80665
    /// The device read.
    let device: UdevIIODevice
    private unowned let sensor: HardwareSensor
    private let loop: EventLoop
    private let log: Log
    private let evdev: EvdevDevice
    private let scale: Vector3
    /// The axes as last reported, raw.
    private var raw: Vector3
    private var firstTimer: EventLoop.TimerID?
    private var watching = false
    private(set) var capture: HardwareSensor.Capture = .none
    /// evdev reports changes only (the driver filters by fuzz): silence is not a gap.
    var isOnChange: Bool { true }

    /// Whether udev's rules and the device make it an input accelerometer.
    static func discover(_ device: SensorDevice) -> Bool {
        device.subsystem == "input" && device.devnode != nil && device.properties["ID_INPUT_ACCELEROMETER"] == "1"
            && (device.proxyTypes.map { $0.contains(name) } ?? true)
    }

    init(device: UdevIIODevice, sensor: HardwareSensor, loop: EventLoop, log: Log) throws(SensorError) {
        guard let node = device.info.devnode else { throw SensorError(message: "\(device.info.sysname): no device node", code: ENODEV) }
        self.device = device
        self.sensor = sensor
        self.loop = loop
        self.log = log
        evdev = try EvdevDevice(path: node)
        var resolutions: [Int32] = []
        var values: [Double] = []
        for code in [ABS_X, ABS_Y, ABS_Z] {
            guard let info = evdev.absInfo(UInt32(code)) else {
                throw SensorError(message: "\(node) (\(evdev.name)) has no ABS_\(["X", "Y", "Z"][Int(code)]) axis", code: ENOTSUP)
            }
            resolutions.append(info.resolution)
            values.append(Double(info.value))
        }
        if let configured = sensor.config.scale {
            scale = Vector3(configured, configured, configured)
        } else if resolutions.allSatisfy({ $0 > 0 }) {
            let g = InputAccelDriver.g
            scale = Vector3(g / Double(resolutions[0]), g / Double(resolutions[1]), g / Double(resolutions[2]))
        } else {
            // All in counts: one axis in counts beside others in m/s² would bend the direction.
            scale = Vector3(1, 1, 1)
            log.notice("\(device.info.sysname): \(evdev.name) gives no resolution for an axis; its g is taken from its readings (set `[sensor] scale` to give it)")
        }
        raw = Vector3(values[0], values[1], values[2])
    }

    func start() -> (started: Bool, problem: String?) {
        capture = .events
        sensor.captureChanged()
        log.info("\(device.info.sysname): \(evdev.name) through evdev (\(evdev.path)), \(formatNumber(InputAccelDriver.g / scale.x)) units per g"
            + (scale == Vector3(1, 1, 1) && sensor.config.scale == nil ? " until its readings say" : ""))
        // The kernel's state first, from the loop.
        firstTimer = loop.schedule(atMs: MonotonicClock.nowMs()) { [unowned self] in
            self.firstTimer = nil
            self.deliver()
        }
        watching = true
        loop.watch(evdev.fd, for: .readable) { [unowned self] _ in self.read() }
        return (true, nil)
    }

    private func read() {
        let events: [EvdevEvent]
        do {
            events = try evdev.drain()
        } catch {
            log.warning("\(error); treating the sensor as removed")
            sensor.driverFailed(unreadable: nil)
            return
        }
        var dropped = false
        for event in events {
            if event.isDropped {
                dropped = true
            } else if event.type == UInt16(EV_ABS), !dropped {
                switch Int32(event.code) {
                case ABS_X: raw.x = Double(event.value)
                case ABS_Y: raw.y = Double(event.value)
                case ABS_Z: raw.z = Double(event.value)
                default: break
                }
            } else if event.isReport {
                if dropped {
                    // After a resync libevdev holds the kernel's state.
                    dropped = false
                    raw = Vector3(
                        Double(evdev.value(type: UInt32(EV_ABS), code: UInt32(ABS_X)) ?? 0),
                        Double(evdev.value(type: UInt32(EV_ABS), code: UInt32(ABS_Y)) ?? 0),
                        Double(evdev.value(type: UInt32(EV_ABS), code: UInt32(ABS_Z)) ?? 0))
                }
                deliver()
                if !watching { return }
            }
        }
    }

    private func deliver() {
        _ = sensor.deliver(Sample(tMs: MonotonicClock.nowMs(), vector: raw * scale))
    }

    /// Every reading is delivered as it comes: nothing to hurry.
    func takeReadingNow() {}

    func close() {
        loop.cancel(firstTimer)
        firstTimer = nil
        if watching { loop.unwatch(evdev.fd) }
        watching = false
        capture = .none
    }
}
