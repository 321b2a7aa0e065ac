#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol
package import OrientSensors

/// `iio-poll-als`: an IIO light sensor read by polling one channel
/// (`LightChannel`: `in_illuminance_input`, `in_illuminance0_raw`,
/// `in_intensity_clear_raw`, …) at the channel's integration time, else
/// every 800 ms. Raw values get the channel's own scale and offset; `_input`
/// values are already lux. The scale and offset are read once, at open.
package final class IIOPollLight: SensorDriver {
    package static let name = "iio-poll-als"
    package static let kind = SensorKind.light

    package static func discover(_ device: SensorDevice) -> SensorDiscovery {
        guard device.subsystem == "iio", udevAllows(device), LightChannel.find(in: device.attributeNames) != nil else { return .no }
        return .yes
    }

    package let sources: [String]
    private let channel: LightChannel
    private let value: SysfsAttribute
    private let scale: String?
    private let offset: String?
    private let poller: Poller
    private let deliver: (SensorEvent) -> Void
    private var loggedGarbage = false

    package init(device: SensorDevice, loop: EventLoop, log: Log, deliver: @escaping (SensorEvent) -> Void) throws(SensorError) {
        guard let channel = LightChannel.find(in: device.attributeNames) else {
            throw SensorError(message: "\(device.sysname) has no light channel", code: ENODEV)
        }
        self.channel = channel
        self.deliver = deliver
        let directory = sysfsDirectory(device)
        value = SysfsAttribute(sysname: device.sysname, directory: directory, name: channel.value)
        // Read afresh at open (a driver may change them with the range), not
        // from the enumeration's snapshot.
        func current(_ name: String?) -> String? {
            guard let name else { return nil }
            return (try? SysfsAttribute(sysname: device.sysname, directory: directory, name: name).read()) ?? device.attributes[name]
        }
        scale = current(channel.scale)
        offset = current(channel.offset)
        sources = [channel.value, channel.scale, channel.offset].compactMap { $0 }
        let interval = LightChannel.pollIntervalMs(integrationTime: current(channel.integrationTime))
        poller = Poller(loop: loop, intervalMs: interval)
        // A scale that cannot be used is an error at open, not a stream of bad levels.
        do {
            _ = try channel.level(value: "0", scale: scale, offset: nil)
        } catch {
            throw SensorError(message: "\(device.sysname): \(error)", code: EINVAL)
        }
        log.info("\(device.sysname): light from \(sources.joined(separator: ", ")) every \(formatFrequency(interval)) ms")
        poller.start { [unowned self, log] in
            do {
                let text = try self.value.read()
                let level = try self.channel.level(value: text, scale: self.scale, offset: self.offset)
                self.loggedGarbage = false
                self.deliver(.light(LightLevel(level, unit: .lux)))
            } catch let error as SensorError {
                self.deliver(.failed(error))
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
