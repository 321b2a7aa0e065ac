#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import OrientProtocol
package import OrientSensors

/// `input-proximity`: an evdev switch `SW_FRONT_PROXIMITY` (phones whose
/// proximity sensor is a gpio-keys switch or an input driver), read through
/// libevdev as events: near while the switch is on, its first state the
/// kernel's (EVIOCGSW, read when libevdev opens the device).
package final class InputProximity: SensorDriver {
    package static let name = "input-proximity"
    package static let kind = SensorKind.proximity

    package static func discover(_ device: SensorDevice) -> SensorDiscovery {
        guard device.subsystem == "input", device.devnode != nil, udevAllows(device),
            let switches = device.attributes["capabilities/sw"], InputCapabilities.has(bit: Int(SW_FRONT_PROXIMITY), in: switches)
        else { return .no }
        return .yes
    }

    package static func sources(for device: SensorDevice) -> [String] { [device.devnode ?? device.sysname, "SW_FRONT_PROXIMITY"] }
    private let device: EvdevDevice
    private let loop: EventLoop
    private var watching = false
    private var firstTimer: EventLoop.TimerID?

    package init(device described: SensorDevice, context: SensorContext, deliver: @escaping (SensorEvent) -> Void) throws(SensorError) {
        let loop = context.loop, log = context.log
        guard let node = described.devnode else { throw SensorError(message: "\(described.sysname): no device node", code: ENODEV) }
        device = try EvdevDevice(path: node)
        self.loop = loop
        let code = UInt32(SW_FRONT_PROXIMITY)
        guard device.has(type: UInt32(EV_SW), code: code) else {
            throw SensorError(message: "\(node) (\(device.name)) has no SW_FRONT_PROXIMITY", code: ENOTSUP)
        }
        log.info("\(described.sysname): proximity from \(node) (\(device.name)), SW_FRONT_PROXIMITY")
        // The kernel's state, delivered from the loop (never from inside init).
        let first = (device.switchValue(code) ?? 0) != 0
        firstTimer = loop.schedule(atMs: MonotonicClock.nowMs()) { [unowned self] in
            self.firstTimer = nil
            deliver(.proximity(near: first))
        }
        watching = true
        loop.watch(device.fd, for: .readable) { [unowned self] _ in
            do throws(SensorError) {
                for near in try self.device.drainSwitch(code) { deliver(.proximity(near: near)) }
            } catch {
                self.stopWatching()
                deliver(.failed(error))
            }
        }
    }

    private func stopWatching() {
        if watching { loop.unwatch(device.fd) }
        watching = false
    }

    package func close() {
        loop.cancel(firstTimer)
        firstTimer = nil
        stopWatching()
    }
}
