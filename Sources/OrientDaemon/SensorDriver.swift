package import OrientSensors

/// One way of reading one kind of sensor, as iio-sensor-proxy's `drv-*.c`
/// files each are: it says which devices it can read (`discover`), starts
/// reading one when created (`init`: a poll timer on the loop, or an fd the
/// loop watches), hands each reading to `deliver`, and stops at `close`.
///
/// Drivers run on the event loop's thread. A driver never calls back into
/// the code that opened it from inside `init` or `close`, and a failure is
/// delivered as `.failed` from the loop, so fault handling never recurses.
package protocol SensorDriver: AnyObject {
    /// iio-sensor-proxy's name for the driver (`iio-poll-als`), also a token of
    /// udev's `IIO_SENSOR_PROXY_TYPE`.
    static var name: String { get }
    /// What it reads.
    static var kind: SensorKind { get }
    /// Whether this driver can read `device`.
    static func discover(_ device: SensorDevice) -> SensorDiscovery
    /// Opens `device` and starts reading it.
    init(device: SensorDevice, context: SensorContext, deliver: @escaping (SensorEvent) -> Void) throws(SensorError)
    /// The attributes or files it reads of `device`, for `status` (also
    /// while it is not open).
    static func sources(for device: SensorDevice) -> [String]
    /// Stops reading and closes everything it opened.
    func close()
}

/// What a driver opens with: the loop it runs on, the log, and the Sensor
/// Core (whose drivers read through it).
package struct SensorContext {
    let loop: EventLoop
    let log: Log
    let core: SensorCore
}

/// A driver's answer about one device.
package enum SensorDiscovery: Sendable, Equatable {
    /// Not a device of this kind.
    case no
    /// Readable by this driver.
    case yes
    /// Of this kind, but not usable as it is: why, and how to fix it (`status` shows both).
    case unusable(reason: String, fix: String)
}

/// What a driver delivers.
package enum SensorEvent: Sendable {
    /// A light level.
    case light(LightLevel)
    /// Near (true) or far.
    case proximity(near: Bool)
    /// Degrees from magnetic north.
    case compass(Double)
    /// The sensor could not be read: `vanished` errors mean it is gone.
    case failed(SensorError)
}

extension SensorDriver {
    /// Whether udev's rules allow this driver for `device`: where the device
    /// carries `IIO_SENSOR_PROXY_TYPE`, only the drivers it names; else the
    /// driver's own checks decide.
    package static func udevAllows(_ device: SensorDevice) -> Bool {
        device.proxyTypes.map { $0.contains(name) } ?? true
    }
}
