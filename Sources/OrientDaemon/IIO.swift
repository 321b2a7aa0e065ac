#if canImport(Glibc)
import Glibc
#endif
import CIIO
import OrientSense
package import OrientProtocol

/// A failure talking to the sensor, with errno to tell a vanished device
/// (ENODEV, ENOENT) from a transient error.
package struct SensorError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var code: Int32
    /// The device is gone (removed mid-read): wait for udev to bring it back.
    package var vanished: Bool { code == ENODEV || code == ENOENT || code == ENXIO }
    package var description: String { message }
}

/// One accelerometer: its raw attributes read on demand (the polled path), its
/// `sampling_frequency` set, and (when asked) a buffer of scans through libiio.
///
/// The polled path reads and writes sysfs attributes itself: the three
/// `in_accel_*_raw` files stay open while sampling and are read with pread(2),
/// the attribute read libiio's local backend does, without an open and close
/// per reading (issue 7). libiio is loaded with dlopen(3) the
/// first time buffered capture starts: it brings libxml2, ICU, avahi, D-Bus,
/// libsystemd and libusb with it, memory a polled sensor never needs
/// (docs/architecture.md, Memory, has the figure). This is the only file that
/// calls libiio.
///
/// Owned by the event loop's thread. Stopping sampling closes the raw files and
/// dropping it releases the libiio context, so an idle daemon holds nothing open.
package final class IIOAccelerometer {
    /// The device id (`iio:device0`).
    package let sysname: String
    /// The device's sysfs directory, as libiio's local backend finds it.
    private let directory: String
    private var capture: BufferedCapture?
    /// `in_accel_{x,y,z}_raw`, for the polled path.
    private let raw: RawAttributes

    /// Opens the accelerometer `sysname` (`iio:deviceN`): checks that its x, y
    /// and z channels exist (as raw attributes or scan elements).
    package init(sysname: String) throws(SensorError) {
        self.sysname = sysname
        directory = "/sys/bus/iio/devices/\(sysname)"
        guard access(directory, F_OK) == 0 else {
            throw SensorError(message: "\(sysname): no such IIO device (\(String(cString: strerror(errno))))", code: ENODEV)
        }
        for axis in IIOAccelerometer.axisNames {
            guard access("\(directory)/in_accel_\(axis)_raw", F_OK) == 0
                || access("\(directory)/scan_elements/in_accel_\(axis)_en", F_OK) == 0
            else {
                throw SensorError(message: "\(sysname) has no accel_\(axis) channel", code: ENODEV)
            }
        }
        raw = RawAttributes(sysname: sysname, directory: directory)
    }

    deinit {
        stopBuffer()
    }

    private static let axisNames = ["x", "y", "z"]

    /// Reads `in_accel_{x,y,z}_raw` (the polled path): `RawAttributes.read()`.
    package func readRaw() throws(SensorError) -> Vector3 { try raw.read() }

    /// Closes the raw attribute files and the replacement watch (sampling stopped).
    package func closeRawAttributes() { raw.close() }

    /// Watches the device directory for replaced raw files: `RawAttributes.watchReplacements()`.
    package func watchReplacements() -> Int32? { raw.watchReplacements() }

    /// The device directory changed: `RawAttributes.replacementsNoted()`.
    package func replacementsNoted() { raw.replacementsNoted() }

    /// Writes `text` to a sysfs attribute of the device in one write(2); false
    /// when it does not exist or refuses the value. (O_TRUNC, as libiio's
    /// fopen "w": sysfs ignores it, but a plain file standing in for the
    /// attribute, as under umockdev, would otherwise keep its old tail.)
    private func writeAttribute(_ name: String, _ text: String) -> Bool {
        let fd = open("\(directory)/\(name)", O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return writeAll(fd: fd, Array(text.utf8))
    }

    private func hasAttribute(_ name: String) -> Bool {
        access("\(directory)/\(name)", F_OK) == 0
    }

    /// Writes the sampling frequency (`sampling_frequency`, else
    /// `in_accel_sampling_frequency`, else `in_accel_x_sampling_frequency`);
    /// returns false when none exists or takes it.
    @discardableResult
    package func setSamplingFrequency(_ hz: Double) -> Bool {
        let text = formatFrequency(hz)
        for name in ["sampling_frequency", "in_accel_sampling_frequency", "in_accel_x_sampling_frequency"]
        where hasAttribute(name) {
            return writeAttribute(name, text)
        }
        return false
    }

    /// Writes 0 to `in_accel_hysteresis` (or `in_accel_x_hysteresis`) so an
    /// on-change sensor reports every change; returns false when it has none or refuses.
    @discardableResult
    package func clearHysteresis() -> Bool {
        for name in ["in_accel_hysteresis", "in_accel_x_hysteresis"] where hasAttribute(name) {
            return writeAttribute(name, "0")
        }
        return false
    }

    // MARK: Buffered capture

    /// Loads libiio (dlopen; the library stays loaded, a later call only looks up
    /// its functions again), enables the x, y, z scan elements (and the
    /// timestamp when there is one), creates a non-blocking buffer of `samples`
    /// scans and returns its poll fd.
    package func startBuffer(samples: Int) throws(SensorError) -> Int32 {
        stopBuffer()
        let capture = try BufferedCapture(sysname: sysname, samples: samples)
        self.capture = capture
        return capture.pollFD
    }

    /// Reads what the buffer holds: one (timestamp ns or nil, raw x/y/z) per scan.
    /// Returns an empty array when nothing is ready (EAGAIN).
    package func readBuffer() throws(SensorError) -> [(timestampNs: Int64?, raw: Vector3)] {
        try capture?.read() ?? []
    }

    /// Destroys the buffer (disables capture) and its libiio context if there is one.
    package func stopBuffer() {
        capture = nil
    }
}

/// libiio's functions, looked up with dlsym(3) in the library dlopen(3) loads
/// (`libiio.so.0`, never unloaded). Each field has the type iio.h declares.
struct LibIIO {
    let getVersion: orientd_iio_library_get_version_fn
    let createLocalContext: orientd_iio_create_local_context_fn
    let destroyContext: orientd_iio_context_destroy_fn
    let findDevice: orientd_iio_context_find_device_fn
    let findChannel: orientd_iio_device_find_channel_fn
    let channelsCount: orientd_iio_device_get_channels_count_fn
    let channelAt: orientd_iio_device_get_channel_fn
    let channelID: orientd_iio_channel_get_id_fn
    let channelName: orientd_iio_channel_get_name_fn
    let isOutput: orientd_iio_channel_is_output_fn
    let deviceName: orientd_iio_device_get_name_fn
    let getTrigger: orientd_iio_device_get_trigger_fn
    let setTrigger: orientd_iio_device_set_trigger_fn
    let isTrigger: orientd_iio_device_is_trigger_fn
    let createBuffer: orientd_iio_device_create_buffer_fn
    let isScanElement: orientd_iio_channel_is_scan_element_fn
    let dataFormat: orientd_iio_channel_get_data_format_fn
    let enable: orientd_iio_channel_enable_fn
    let disable: orientd_iio_channel_disable_fn
    let setBlocking: orientd_iio_buffer_set_blocking_mode_fn
    let pollFD: orientd_iio_buffer_get_poll_fd_fn
    let refill: orientd_iio_buffer_refill_fn
    let step: orientd_iio_buffer_step_fn
    let first: orientd_iio_buffer_first_fn
    let end: orientd_iio_buffer_end_fn
    let destroyBuffer: orientd_iio_buffer_destroy_fn

    /// Loads libiio, or says why it cannot.
    init() throws(SensorError) {
        guard let handle = dlopen(ORIENTD_LIBIIO_SONAME, RTLD_NOW | RTLD_LOCAL) else {
            throw SensorError(message: "cannot load libiio: \(LibIIO.dlerrorText())", code: ENOTSUP)
        }
        func load<Function>(_ name: String) throws(SensorError) -> Function {
            guard let address = dlsym(handle, name) else {
                throw SensorError(message: "libiio has no \(name): \(LibIIO.dlerrorText())", code: ENOTSUP)
            }
            return unsafeBitCast(address, to: Function.self)
        }
        getVersion = try load("iio_library_get_version")
        createLocalContext = try load("iio_create_local_context")
        destroyContext = try load("iio_context_destroy")
        findDevice = try load("iio_context_find_device")
        findChannel = try load("iio_device_find_channel")
        channelsCount = try load("iio_device_get_channels_count")
        channelAt = try load("iio_device_get_channel")
        channelID = try load("iio_channel_get_id")
        channelName = try load("iio_channel_get_name")
        isOutput = try load("iio_channel_is_output")
        deviceName = try load("iio_device_get_name")
        getTrigger = try load("iio_device_get_trigger")
        setTrigger = try load("iio_device_set_trigger")
        isTrigger = try load("iio_device_is_trigger")
        createBuffer = try load("iio_device_create_buffer")
        isScanElement = try load("iio_channel_is_scan_element")
        dataFormat = try load("iio_channel_get_data_format")
        enable = try load("iio_channel_enable")
        disable = try load("iio_channel_disable")
        setBlocking = try load("iio_buffer_set_blocking_mode")
        pollFD = try load("iio_buffer_get_poll_fd")
        refill = try load("iio_buffer_refill")
        step = try load("iio_buffer_step")
        first = try load("iio_buffer_first")
        end = try load("iio_buffer_end")
        destroyBuffer = try load("iio_buffer_destroy")
    }

    private static func dlerrorText() -> String {
        dlerror().map { String(cString: $0) } ?? "unknown error"
    }
}

/// A running buffered capture: a libiio local context, the device's enabled
/// scan elements and a non-blocking buffer. Deinitialising it stops capture.
final class BufferedCapture {
    private let iio: LibIIO
    private let sysname: String
    private let context: OpaquePointer
    private let buffer: OpaquePointer
    private let channels: [(channel: OpaquePointer, type: ScanType)]
    private let timestamp: (channel: OpaquePointer, type: ScanType)?
    /// The fd that polls readable when scans are ready.
    let pollFD: Int32

    /// Captures `channelNames` (libiio's ids: `accel_x`, `intensity_both`,
    /// `rot_from_north_magnetic_tilt_comp`), and the timestamp when the device has one.
    init(sysname: String, channelNames: [String] = ["accel_x", "accel_y", "accel_z"], samples: Int) throws(SensorError) {
        let iio = try LibIIO()
        guard let context = iio.createLocalContext() else {
            throw SensorError(message: "libiio: cannot create a local context: \(String(cString: strerror(errno)))", code: errno)
        }
        var enabled: [OpaquePointer] = []
        func fail(_ message: String, _ code: Int32) -> SensorError {
            for channel in enabled { iio.disable(channel) }
            iio.destroyContext(context)
            return SensorError(message: "\(sysname): \(message)", code: code)
        }
        guard let device = iio.findDevice(context, sysname) else { throw fail("libiio finds no such device", ENODEV) }
        var channels: [(channel: OpaquePointer, type: ScanType)] = []
        for name in channelNames {
            guard let channel = BufferedCapture.inputChannel(iio, device, name), iio.isScanElement(channel),
                let format = iio.dataFormat(channel)
            else { throw fail("no scan element \(name)", ENOTSUP) }
            let type: ScanType
            do { type = try ScanType.from(format: format.pointee) } catch { throw fail(error.message, error.code) }
            channels.append((channel, type))
            iio.enable(channel)
            enabled.append(channel)
        }
        var timestamp: (channel: OpaquePointer, type: ScanType)?
        if let channel = iio.findChannel(device, "timestamp", false), iio.isScanElement(channel),
            let format = iio.dataFormat(channel)
        {
            let type: ScanType
            do { type = try ScanType.from(format: format.pointee) } catch { throw fail(error.message, error.code) }
            iio.enable(channel)
            enabled.append(channel)
            timestamp = (channel, type)
        }
        BufferedCapture.attachDefaultTrigger(iio, context, device, sysname: sysname)
        guard let buffer = iio.createBuffer(device, max(1, samples), false) else {
            let code = errno
            throw fail("cannot create a buffer: \(String(cString: strerror(code)))", code)
        }
        _ = iio.setBlocking(buffer, false)
        let fd = iio.pollFD(buffer)
        guard fd >= 0 else {
            iio.destroyBuffer(buffer)
            throw fail("buffer has no poll fd", -fd)
        }
        self.iio = iio
        self.sysname = sysname
        self.context = context
        self.buffer = buffer
        self.channels = channels
        self.timestamp = timestamp
        pollFD = fd
    }

    deinit {
        iio.destroyBuffer(buffer)
        for (channel, _) in channels { iio.disable(channel) }
        if let channel = timestamp?.channel { iio.disable(channel) }
        iio.destroyContext(context)
    }

    /// Reads what the buffer holds: one (timestamp ns or nil, raw x/y/z) per scan
    /// of a three-channel capture.
    func read() throws(SensorError) -> [(timestampNs: Int64?, raw: Vector3)] {
        try readScans().compactMap { scan in
            scan.values.count == 3 ? (scan.timestampNs, Vector3(scan.values[0], scan.values[1], scan.values[2])) : nil
        }
    }

    /// Reads what the buffer holds: one (timestamp ns or nil, raw values in
    /// channel order) per scan; empty when nothing is ready (EAGAIN).
    func readScans() throws(SensorError) -> [(timestampNs: Int64?, values: [Double])] {
        let n = iio.refill(buffer)
        if n == -Int(EAGAIN) || n == 0 { return [] }
        guard n > 0 else {
            let code = Int32(-n)
            throw SensorError(message: "\(sysname): buffer read failed: \(String(cString: strerror(code)))", code: code)
        }
        let step = iio.step(buffer)
        guard step > 0, let end = iio.end(buffer) else { return [] }
        var starts: [UnsafeMutableRawPointer] = []
        for (channel, _) in channels {
            guard let first = iio.first(buffer, channel) else { return [] }
            starts.append(first)
        }
        let stampStart = timestamp.flatMap { iio.first(buffer, $0.channel) }
        var out: [(timestampNs: Int64?, values: [Double])] = []
        var offset = 0
        while starts[0] + offset < end {
            var values: [Double] = []
            for (i, start) in starts.enumerated() {
                let type = channels[i].type
                values.append(Double(type.decode(UnsafeRawBufferPointer(start: start + offset, count: type.storageBits / 8), at: 0)))
            }
            var stamp: Int64?
            if let stampStart, let type = timestamp?.type {
                stamp = type.decode(UnsafeRawBufferPointer(start: stampStart + offset, count: type.storageBits / 8), at: 0)
            }
            out.append((stamp, values))
            offset += step
        }
        return out
    }

    /// The input channel the sysfs files `in_<name>_*` belong to. libiio
    /// splits a channel's sysfs name into its id and an extended name
    /// (`in_rot_from_north_magnetic_tilt_comp_raw`: id
    /// `rot_from_north_magnetic`, name `tilt_comp`), and finds channels by
    /// either alone, which would take the compass's uncompensated channel for
    /// the tilt-compensated one: an id and name that make up `name` come
    /// first, then libiio's own lookup.
    private static func inputChannel(_ iio: LibIIO, _ device: OpaquePointer, _ name: String) -> OpaquePointer? {
        for index in 0..<iio.channelsCount(device) {
            guard let channel = iio.channelAt(device, index), !iio.isOutput(channel),
                let id = iio.channelID(channel).map({ String(cString: $0) })
            else { continue }
            let extended = iio.channelName(channel).map { String(cString: $0) }
            if let extended, "\(id)_\(extended)" == name { return channel }
        }
        return iio.findChannel(device, name, false)
    }

    /// Triggered capture needs a trigger: when none is set, use the device's own
    /// data-ready trigger, named `<name>-dev<N>` by the kernel (as iio-sensor-proxy
    /// does). Drivers that need none simply have no such trigger.
    private static func attachDefaultTrigger(_ iio: LibIIO, _ context: OpaquePointer, _ device: OpaquePointer, sysname: String) {
        var current: OpaquePointer?
        if iio.getTrigger(device, &current) == 0, current != nil { return }
        guard let name = iio.deviceName(device).map({ String(cString: $0) }),
            let number = Int(String(sysname.reversed().prefix(while: \.isNumber).reversed())),
            let trigger = iio.findDevice(context, "\(name)-dev\(number)"),
            iio.isTrigger(trigger)
        else { return }
        _ = iio.setTrigger(device, trigger)
    }
}

extension ScanType {
    /// The scan type libiio parsed from `scan_elements/*_type`, in the kernel's
    /// text form and back through the one parser (so both paths agree).
    static func from(format: iio_data_format) throws(SensorError) -> ScanType {
        let repeatSuffix = format.repeat > 1 ? "X\(format.repeat)" : ""
        let text = "\(format.is_be ? "be" : "le"):\(format.is_signed ? "s" : "u")\(format.bits)/\(format.length)\(repeatSuffix)>>\(format.shift)"
        do {
            return try ScanType(parsing: text)
        } catch {
            throw SensorError(message: "unsupported scan type \(text): \(error)", code: ENOTSUP)
        }
    }
}

/// A frequency for sysfs: integers bare, otherwise up to six decimals.
func formatFrequency(_ hz: Double) -> String {
    if hz.rounded() == hz, abs(hz) < 1e9 { return String(Int(hz)) }
    var text = String(Int((hz * 1_000_000).rounded()))
    while text.count < 7 { text = "0" + text }
    let cut = text.index(text.endIndex, offsetBy: -6)
    var result = text[..<cut] + "." + text[cut...]
    while result.hasSuffix("0") { result.removeLast() }
    return String(result)
}
