#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol
package import OrientSensors

/// `iio-poll-proximity`: an IIO proximity sensor (`in_proximity_raw` or
/// `in_proximity0_raw`) polled every 500 ms and turned into near or far by
/// `ProximityThreshold` at the device's near level: udev's
/// `PROXIMITY_NEAR_LEVEL` (the hwdb), else sysfs `in_proximity_nearlevel`
/// (the device tree's `proximity-near-level`). Without a near level the
/// sensor is not offered: near would be a guess.
package final class IIOPollProximity: SensorDriver {
    package static let name = "iio-poll-proximity"
    package static let kind = SensorKind.proximity

    private static func channel(_ device: SensorDevice) -> String? {
        ["in_proximity_raw", "in_proximity0_raw"].first { device.has($0) }
    }

    /// The near level and where it came from, or why there is none usable.
    static func nearLevel(_ device: SensorDevice) -> Result<(level: Double, source: String), AttributeError> {
        let sources = [("udev PROXIMITY_NEAR_LEVEL", device.properties["PROXIMITY_NEAR_LEVEL"]),
            ("in_proximity_nearlevel", device.attributes["in_proximity_nearlevel"]),
            ("in_proximity0_nearlevel", device.attributes["in_proximity0_nearlevel"])]
        for case let (source, text?) in sources {
            do {
                return .success((try ProximityThreshold.nearLevel(text, from: source), source))
            } catch {
                return .failure(error)
            }
        }
        return .failure(AttributeError(attribute: "PROXIMITY_NEAR_LEVEL", value: "", message: "no near level"))
    }

    package static func discover(_ device: SensorDevice) -> SensorDiscovery {
        guard device.subsystem == "iio", udevAllows(device), channel(device) != nil else { return .no }
        switch nearLevel(device) {
        case .success: return .yes
        case .failure(let error):
            let fix = "give it a near level: a hwdb entry setting PROXIMITY_NEAR_LEVEL for the device (see systemd's 60-sensor.hwdb), "
                + "or the device tree's proximity-near-level"
            return .unusable(reason: error.message == "no near level" ? "no near level (udev PROXIMITY_NEAR_LEVEL or sysfs in_proximity_nearlevel)" : error.description, fix: fix)
        }
    }

    package static func sources(for device: SensorDevice) -> [String] {
        guard let channel = channel(device), case .success(let near) = nearLevel(device) else { return [] }
        return [channel, near.source]
    }

    private var threshold: ProximityThreshold
    private let poller: Poller<Result<[UInt8], SensorError>>

    package init(device: SensorDevice, context: SensorContext, deliver: @escaping (SensorEvent) -> Void) throws(SensorError) {
        let loop = context.loop, log = context.log
        guard let channel = IIOPollProximity.channel(device), case .success(let near) = IIOPollProximity.nearLevel(device) else {
            throw SensorError(message: "\(device.sysname): no proximity channel with a near level", code: ENODEV)
        }
        threshold = ProximityThreshold(nearLevel: near.level)
        poller = Poller(loop: loop, log: log)
        log.info("\(device.sysname): proximity from \(channel), near at \(formatFrequency(near.level)) (\(near.source)), far below \(formatFrequency(threshold.farBelow))")
        poller.start(
            reading: SysfsAttribute(sysname: device.sysname, directory: sysfsDirectory(device), name: channel), intervalMs: 500,
            sysname: device.sysname,
            parse: { [unowned self] bytes throws(AttributeError) in
                .proximity(near: self.threshold.update(raw: try attributeNumber(bytes, attribute: channel)))
            },
            deliver: deliver)
    }

    package func close() { poller.stop() }
}
