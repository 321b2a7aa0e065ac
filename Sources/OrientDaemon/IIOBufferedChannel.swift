#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol
package import OrientSensors

/// One IIO scan element captured through the IIO buffer and watched on the
/// loop, the way HID sensor hubs deliver light (`intensity_both`) and the
/// compass (`rot_from_north_magnetic_tilt_comp`): each batch of scans gives
/// its newest value as `(raw + offset) × scale`, the channel's own
/// `_scale`/`_offset` else its type's.
final class IIOBufferedChannel {
    private let loop: EventLoop
    private var capture: BufferedCapture?
    private var fd: Int32 = -1
    private let scale: Double
    private let offset: Double

    /// Starts capture of `channel` (its sysfs name without `in_`, e.g.
    /// `intensity_both`) whose attributes share `type` (e.g. `in_intensity`);
    /// `deliver` gets the newest value of each batch, or the error that ended
    /// capture.
    init(device: SensorDevice, channel: String, type: String, loop: EventLoop,
         deliver: @escaping (Result<Double, SensorError>) -> Void) throws(SensorError) {
        self.loop = loop
        func number(_ names: [String], default value: Double) throws(SensorError) -> (Double, String?) {
            guard let name = names.first(where: { device.has($0) }), let text = device.attributes[name] else { return (value, nil) }
            do {
                return (try attributeNumber(text, attribute: name), name)
            } catch {
                throw SensorError(message: "\(device.sysname): \(error)", code: EINVAL)
            }
        }
        let (scale, scaleName) = try number(["in_\(channel)_scale", "\(type)_scale"], default: 1)
        let (offset, _) = try number(["in_\(channel)_offset", "\(type)_offset"], default: 0)
        guard scale > 0 else { throw SensorError(message: "\(device.sysname): \(scaleName ?? "scale") must be above 0", code: EINVAL) }
        self.scale = scale
        self.offset = offset
        let capture = try BufferedCapture(sysname: device.sysname, channelNames: [channel], samples: 4)
        self.capture = capture
        fd = capture.pollFD
        loop.watch(fd, for: .readable) { [unowned self] _ in
            guard let capture = self.capture else { return }
            do throws(SensorError) {
                let scans = try capture.readScans()
                guard let newest = scans.last?.values.first else { return }
                deliver(.success((newest + self.offset) * self.scale))
            } catch {
                self.stop()
                deliver(.failure(error))
            }
        }
    }

    deinit { stop() }

    /// The attributes a capture of `channel` reads: its scan element and the
    /// scale and offset that apply to it.
    static func sources(_ device: SensorDevice, channel: String, type: String) -> [String] {
        ["scan_elements/in_\(channel)_en"]
            + [["in_\(channel)_scale", "\(type)_scale"], ["in_\(channel)_offset", "\(type)_offset"]].compactMap { names in
                names.first { device.has($0) }
            }
    }

    /// Ends capture.
    func stop() {
        if fd >= 0 { loop.unwatch(fd) }
        fd = -1
        capture = nil
    }
}

/// `iio-buffer-als`: a HID sensor hub's light sensor, `in_intensity_both`
/// through the buffer, in lux.
package final class IIOBufferLight: SensorDriver {
    package static let name = "iio-buffer-als"
    package static let kind = SensorKind.light

    package static func discover(_ device: SensorDevice) -> SensorDiscovery {
        guard device.subsystem == "iio", udevAllows(device), device.has("scan_elements/in_intensity_both_en"), device.devnode != nil else { return .no }
        return .yes
    }

    package static func sources(for device: SensorDevice) -> [String] {
        IIOBufferedChannel.sources(device, channel: "intensity_both", type: "in_intensity")
    }

    private var channel: IIOBufferedChannel?

    package init(device: SensorDevice, context: SensorContext, deliver: @escaping (SensorEvent) -> Void) throws(SensorError) {
        let loop = context.loop, log = context.log
        channel = try IIOBufferedChannel(device: device, channel: "intensity_both", type: "in_intensity", loop: loop) { result in
            switch result {
            case .success(let lux) where lux.isFinite && lux >= 0: deliver(.light(LightLevel(lux, unit: .lux)))
            case .success: break
            case .failure(let error): deliver(.failed(error))
            }
        }
        log.info("\(device.sysname): light from the buffer (\(IIOBufferLight.sources(for: device).joined(separator: ", ")))")
    }

    package func close() {
        channel?.stop()
        channel = nil
    }
}

/// `iio-buffer-compass`: a HID sensor hub's tilt-compensated compass,
/// `in_rot_from_north_magnetic_tilt_comp` through the buffer, in degrees
/// from magnetic north.
package final class IIOBufferCompass: SensorDriver {
    package static let name = "iio-buffer-compass"
    package static let kind = SensorKind.compass

    package static func discover(_ device: SensorDevice) -> SensorDiscovery {
        guard device.subsystem == "iio", udevAllows(device), device.has("scan_elements/in_rot_from_north_magnetic_tilt_comp_en"),
            device.devnode != nil
        else { return .no }
        return .yes
    }

    package static func sources(for device: SensorDevice) -> [String] {
        IIOBufferedChannel.sources(device, channel: "rot_from_north_magnetic_tilt_comp", type: "in_rot")
    }

    private var channel: IIOBufferedChannel?

    package init(device: SensorDevice, context: SensorContext, deliver: @escaping (SensorEvent) -> Void) throws(SensorError) {
        let loop = context.loop, log = context.log
        channel = try IIOBufferedChannel(
            device: device, channel: "rot_from_north_magnetic_tilt_comp", type: "in_rot", loop: loop
        ) { result in
            switch result {
            case .success(let value):
                if let heading = CompassHeading.degrees(raw: value, scale: 1, offset: 0) { deliver(.compass(heading)) }
            case .failure(let error): deliver(.failed(error))
            }
        }
        log.info("\(device.sysname): compass from the buffer (\(IIOBufferCompass.sources(for: device).joined(separator: ", ")))")
    }

    package func close() {
        channel?.stop()
        channel = nil
    }
}
