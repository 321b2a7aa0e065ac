/// One device a sensor driver may read, as libudev describes it: an IIO
/// device, an evdev node, a platform device (Apple's SMC) or a misc device
/// that stands for a Qualcomm phone's Sensor Core, with the udev properties and
/// sysfs attributes the drivers look at (absent ones are missing).
package struct SensorDevice: Sendable, Equatable {
    /// `iio`, `input`, `platform` or `misc`.
    package var subsystem: String
    /// The kernel name: `iio:device3`, `event5`, `applesmc.768`.
    package var sysname: String
    /// The sysfs path.
    package var syspath: String
    /// The character device (`/dev/iio:device3`, `/dev/input/event5`), if any.
    package var devnode: String?
    /// udev properties (`IIO_SENSOR_PROXY_TYPE`, `PROXIMITY_NEAR_LEVEL`, …).
    package var properties: [String: String]
    /// sysfs attributes by file name relative to the device.
    package var attributes: [String: String]
    /// The driver of the nearest parent that has one (the chip's driver), for `status`.
    package var driver: String? = nil
    /// For a device udev tagged for the Sensor Core (`ssc-*`): whether its
    /// sensors can be read now (`SensorCore.answer`, set by the hub).
    package var sensorCore: SensorDiscovery? = nil

    /// The driver names udev's iio-sensor-proxy rules gave the device
    /// (`IIO_SENSOR_PROXY_TYPE`, space-separated); nil when the property is absent.
    package var proxyTypes: [String]? {
        properties["IIO_SENSOR_PROXY_TYPE"].map { $0.split(separator: " ").map(String.init) }
    }

    /// Whether the device has attribute `name`.
    package func has(_ name: String) -> Bool { attributes[name] != nil }

    /// The set of attribute names present.
    package var attributeNames: Set<String> { Set(attributes.keys) }
}
