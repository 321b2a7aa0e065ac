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

    package static func sources(for device: SensorDevice) -> [String] {
        guard let channel = LightChannel.find(in: device.attributeNames) else { return [] }
        return [channel.value, channel.scale, channel.offset].compactMap { $0 }
    }

    private let poller: Poller<Result<[UInt8], SensorError>>

    package init(device: SensorDevice, context: SensorContext, deliver: @escaping (SensorEvent) -> Void) throws(SensorError) {
        let loop = context.loop, log = context.log
        guard let channel = LightChannel.find(in: device.attributeNames) else {
            throw SensorError(message: "\(device.sysname) has no light channel", code: ENODEV)
        }
        let directory = sysfsDirectory(device)
        // Read afresh at open (a driver may change them with the range), not
        // from the enumeration's snapshot.
        func current(_ name: String?) -> String? {
            guard let name else { return nil }
            return (try? SysfsAttribute(sysname: device.sysname, directory: directory, name: name).read()) ?? device.attributes[name]
        }
        let scale = current(channel.scale)
        let offset = current(channel.offset)
        let sources = IIOPollLight.sources(for: device)
        let interval = LightChannel.pollIntervalMs(integrationTime: current(channel.integrationTime))
        poller = Poller(loop: loop, log: log)
        // A scale that cannot be used is an error at open, not a stream of bad levels.
        do {
            _ = try channel.level(value: "0", scale: scale, offset: nil)
        } catch {
            throw SensorError(message: "\(device.sysname): \(error)", code: EINVAL)
        }
        let scaleBytes = scale.map { Array($0.utf8) }, offsetBytes = offset.map { Array($0.utf8) }
        log.info("\(device.sysname): light from \(sources.joined(separator: ", ")) every \(formatFrequency(interval)) ms")
        poller.start(
            reading: SysfsAttribute(sysname: device.sysname, directory: directory, name: channel.value), intervalMs: interval,
            sysname: device.sysname,
            parse: { bytes throws(AttributeError) in
                .light(LightLevel(try channel.level(value: bytes, scale: scaleBytes, offset: offsetBytes), unit: .lux))
            },
            deliver: deliver)
    }

    package func close() { poller.stop() }
}
