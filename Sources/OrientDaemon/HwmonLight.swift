#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol
package import OrientSensors

/// `hwmon-als`: Apple's SMC light sensor, the `light` attribute that
/// `applesmc` creates on its platform device (`/sys/devices/platform/applesmc.768/light`,
/// not on the hwmon class device below it), read every 2 s as `(a,b)`; the
/// level is in the vendor's unit (`HwmonLight`).
package final class HwmonLightDriver: SensorDriver {
    package static let name = "hwmon-als"
    package static let kind = SensorKind.light

    package static func discover(_ device: SensorDevice) -> SensorDiscovery {
        guard device.subsystem == "platform", udevAllows(device), device.has("light") else { return .no }
        return .yes
    }

    package static func sources(for device: SensorDevice) -> [String] { ["light"] }
    private let poller: Poller<Result<[UInt8], SensorError>>

    package init(device: SensorDevice, context: SensorContext, deliver: @escaping (SensorEvent) -> Void) throws(SensorError) {
        let loop = context.loop, log = context.log
        poller = Poller(loop: loop, log: log)
        log.info("\(device.sysname): light from 'light' every 2000 ms")
        poller.start(
            reading: SysfsAttribute(sysname: device.sysname, directory: sysfsDirectory(device), name: "light"), intervalMs: 2000,
            sysname: device.sysname, parse: { bytes throws(AttributeError) in
                .light(try OrientSensors.HwmonLight.level(String(decoding: bytes, as: UTF8.self)))
            },
            deliver: deliver)
    }

    package func close() { poller.stop() }
}
