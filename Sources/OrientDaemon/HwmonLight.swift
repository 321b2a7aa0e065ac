#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol
package import OrientSensors

/// `hwmon-als`: a hwmon device with a `light` attribute (Apple's SMC), read
/// every 2 s as `(a,b)`; the level is in the vendor's unit (`HwmonLight`).
package final class HwmonLightDriver: SensorDriver {
    package static let name = "hwmon-als"
    package static let kind = SensorKind.light

    package static func discover(_ device: SensorDevice) -> SensorDiscovery {
        guard device.subsystem == "hwmon", udevAllows(device), device.has("light") else { return .no }
        return .yes
    }

    package let sources = ["light"]
    private let value: SysfsAttribute
    private let poller: Poller
    private var loggedGarbage = false

    package init(device: SensorDevice, loop: EventLoop, log: Log, deliver: @escaping (SensorEvent) -> Void) throws(SensorError) {
        value = SysfsAttribute(sysname: device.sysname, directory: sysfsDirectory(device), name: "light")
        poller = Poller(loop: loop, intervalMs: 2000)
        log.info("\(device.sysname): light from hwmon 'light' every 2000 ms")
        poller.start { [unowned self, log] in
            do {
                let level = try OrientSensors.HwmonLight.level(try self.value.read())
                self.loggedGarbage = false
                deliver(.light(level))
            } catch let error as SensorError {
                deliver(.failed(error))
            } catch {
                if !self.loggedGarbage { log.warning("\(device.sysname): \(error) (dropping such readings)") }
                self.loggedGarbage = true
            }
        }
    }

    package func close() {
        poller.stop()
        value.close()
    }
}
