#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol
package import OrientSensors

/// iio-sensor-proxy's `ssc-light`, `ssc-proximity` and `ssc-compass`: a
/// Qualcomm phone's light sensor, proximity sensor and compass, behind the
/// Snapdragon Sensor Core, read through libssc on the Sensor Core's thread
/// (`SensorCore`). The device is the one udev tagged for the driver (the
/// DSP's `fastrpc-adsp*` or `fastrpc-sdsp*` misc device, `IIO_SENSOR_PROXY_TYPE`):
/// it says the Sensor Core is there, and nothing is read from it.
///
/// Readings come as the firmware sends them: light in lux, proximity as near
/// or far (no near level), the compass as degrees from north.
package class SensorCoreDriver {
    /// The kind read, and the udev token naming the driver.
    package class var kind: SensorKind { .light }
    package class var name: String { "ssc-light" }

    private let core: SensorCore
    private var token: Int?

    package static func discover(_ device: SensorDevice) -> SensorDiscovery {
        guard device.subsystem == "misc", device.proxyTypes?.contains(name) == true else { return .no }
        return device.sensorCore?.discovery(kind) ?? .no
    }

    package static func sources(for device: SensorDevice) -> [String] {
        ["libssc: QMI service 400 over QRTR", device.devnode ?? device.sysname]
    }

    package required init(device: SensorDevice, context: SensorContext, deliver: @escaping (SensorEvent) -> Void) throws(SensorError) {
        core = context.core
        let kind = Self.kind, log = context.log
        token = try core.open(kind) { output in
            switch output {
            case .opened: log.info("\(kind.rawValue): the Sensor Core's \(kind.rawValue) is open (\(device.sysname))")
            // Gone as a vanished device is: the slot closes it and tries again
            // later, less often the longer it fails; a kind the Sensor Core
            // has none of is skipped from the next rescan on.
            case .failed(_, _, let message): deliver(.failed(SensorError(message: message, code: ENODEV)))
            case .light(_, let lux) where lux.isFinite && lux >= 0: deliver(.light(LightLevel(lux, unit: .lux)))
            case .proximity(_, let near): deliver(.proximity(near: near))
            case .compass(_, let degrees):
                if let heading = CompassHeading.degrees(raw: degrees, scale: 1, offset: 0) { deliver(.compass(heading)) }
            default: break
            }
        }
    }

    package func close() {
        if let token { core.close(token) }
        token = nil
    }
}

/// `ssc-light`: lux.
package final class SensorCoreLight: SensorCoreDriver, SensorDriver {}

/// `ssc-proximity`: near or far.
package final class SensorCoreProximity: SensorCoreDriver, SensorDriver {
    override package class var kind: SensorKind { .proximity }
    override package class var name: String { "ssc-proximity" }
}

/// `ssc-compass`: degrees from north.
package final class SensorCoreCompass: SensorCoreDriver, SensorDriver {
    override package class var kind: SensorKind { .compass }
    override package class var name: String { "ssc-compass" }
}

/// `ssc-accel`: the accelerometer behind the Sensor Core, in m/s².
///
/// **Its frame is Android's**, which the Sensor Core serves: x to the right
/// edge, y to the top, z out of the screen, +9.81 on the axis pointing up
/// (upright reads (0, +g, 0), face up (0, 0, +g)). libssc applies the
/// registry's mount matrix and nothing else (its accelerometer handler is
/// `M · a`, no sign change). orientd's convention, the one systemd's hwdb
/// matrices are written for, reads upright as (0, −g, 0) and left edge up as
/// (+g, 0, 0): so x and y are negated here, a half turn about z, and z is
/// kept (face up reads +z: `ZSign`'s `ssc-accel` family). This is what hwdb
/// does for ChromeOS's EC sensors, which also report Android's direction.
/// iio-sensor-proxy 3.9 passes libssc's values through unturned, so on the
/// same readings it reports the opposite orientation (docs/behaviour.md, "A
/// Qualcomm phone"). udev's `ACCEL_MOUNT_MATRIX` on the DSP's device
/// applies on top, as for any accelerometer. The firmware sends at its own
/// rate (10 Hz from libssc's mock, 12.5 Hz on some phones).
final class SensorCoreAccelDriver: AccelerometerDriver {
    static let name = "ssc-accel"

    /// Whether udev tagged `device` for it.
    static func discover(_ device: SensorDevice) -> Bool {
        device.subsystem == "misc" && device.proxyTypes?.contains(name) == true
    }

    private(set) var capture: HardwareSensor.Capture = .none
    /// The firmware streams at its rate: silence is a gap.
    var isOnChange: Bool { false }
    private let device: UdevIIODevice
    private unowned let sensor: HardwareSensor
    private let core: SensorCore
    private let log: Log
    private var token: Int?

    init(device: UdevIIODevice, sensor: HardwareSensor, core: SensorCore, log: Log) {
        self.device = device
        self.sensor = sensor
        self.core = core
        self.log = log
    }

    func start() -> (started: Bool, problem: String?) {
        do {
            token = try core.open(.accelerometer) { [unowned self] output in self.received(output) }
        } catch {
            return (false, "\(error)")
        }
        capture = .events
        sensor.captureChanged()
        return (true, nil)
    }

    private func received(_ output: SensorCoreMessage) {
        switch output {
        case .opened:
            log.info("\(device.info.sysname): the Sensor Core's accelerometer through libssc")
        case .failed(_, let why, let message):
            close()
            if why == .lost {
                // A loss: what was read says nothing of the phone now.
                log.warning("\(device.info.sysname): \(message)")
                sensor.driverFailed(unreadable: nil)
            } else {
                sensor.openFailed(message)
            }
        case .accelerometer(_, let x, let y, let z):
            // Android's frame to orientd's: a half turn about z.
            let vector = Vector3(-x, -y, z)
            // A reading that is not a number says nothing of the orientation.
            guard vector.x.isFinite, vector.y.isFinite, vector.z.isFinite else { return }
            _ = sensor.deliver(Sample(tMs: MonotonicClock.nowMs(), vector: vector))
        default: break
        }
    }

    /// Every reading is delivered as it comes: nothing to hurry.
    func takeReadingNow() {}

    func close() {
        if let token { core.close(token) }
        token = nil
        capture = .none
    }
}
