#if canImport(Glibc)
import Glibc
#endif
import CIIO
public import OrientSense

/// A failure talking to the sensor, with errno to tell a vanished device
/// (ENODEV, ENOENT) from a transient error.
public struct SensorError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var code: Int32
    /// The device is gone (removed mid-read): wait for udev to bring it back.
    public var vanished: Bool { code == ENODEV || code == ENOENT || code == ENXIO }
    public var description: String { message }
}

/// Every libiio call of the daemon: one accelerometer opened through a local
/// context, its raw attributes read on demand (the polled path), its
/// `sampling_frequency` set, and (when asked) a buffer of scans.
///
/// Owned by the event loop's thread. Dropping it releases the context, so an
/// idle daemon holds nothing open.
public final class IIOAccelerometer {
    /// The device id (`iio:device0`).
    public let sysname: String
    private let context: OpaquePointer
    private let device: OpaquePointer
    private let axes: [OpaquePointer]
    private var buffer: OpaquePointer?
    private var bufferChannels: [(channel: OpaquePointer, type: ScanType)] = []
    private var timestampChannel: (channel: OpaquePointer, type: ScanType)?
    /// `/sys/bus/iio/devices/<id>/in_accel_{x,y,z}_raw`, where libiio reads them.
    private let rawPaths: [String]
    /// The device's sysfs directory (`/sys/bus/iio/devices/<id>/`).
    private let directory: String
    /// An inotify descriptor on `directory` while `watchReplacements()` is in
    /// force, else -1 (then each read checks its file with fstat instead).
    private var replacementFD: Int32 = -1
    /// Open raw attribute files, -1 when closed (fixed storage: read on every poll).
    private let rawFDs: UnsafeMutablePointer<Int32>
    /// One attribute's text; allocated once.
    private let scratch: UnsafeMutablePointer<UInt8>
    private static let scratchBytes = 64
    private static let rawNames = ["in_accel_x_raw", "in_accel_y_raw", "in_accel_z_raw"]

    /// Opens the accelerometer `sysname` (`iio:deviceN`).
    public init(sysname: String) throws(SensorError) {
        self.sysname = sysname
        guard let context = iio_create_local_context() else {
            throw SensorError(message: "libiio: cannot create a local context: \(String(cString: strerror(errno)))", code: errno)
        }
        guard let device = iio_context_find_device(context, sysname) else {
            iio_context_destroy(context)
            throw SensorError(message: "libiio: no device \(sysname)", code: ENODEV)
        }
        var axes: [OpaquePointer] = []
        for name in ["accel_x", "accel_y", "accel_z"] {
            guard let channel = iio_device_find_channel(device, name, false) else {
                iio_context_destroy(context)
                throw SensorError(message: "libiio: \(sysname) has no \(name) channel", code: ENODEV)
            }
            axes.append(channel)
        }
        let directory = "/sys/bus/iio/devices/\(String(cString: iio_device_get_id(device)))/"
        self.directory = directory
        rawPaths = axes.enumerated().map { index, channel in
            directory + (iio_channel_attr_get_filename(channel, "raw").map { String(cString: $0) } ?? IIOAccelerometer.rawNames[index])
        }
        self.context = context
        self.device = device
        self.axes = axes
        scratch = .allocate(capacity: IIOAccelerometer.scratchBytes)
        rawFDs = .allocate(capacity: 3)
        rawFDs.initialize(repeating: -1, count: 3)
    }

    deinit {
        closeRawAttributes()
        scratch.deallocate()
        rawFDs.deallocate()
        stopBuffer()
        iio_context_destroy(context)
    }

    /// Reads `in_accel_{x,y,z}_raw` (the polled path), parsed in the C locale.
    ///
    /// The three attribute files stay open between calls (until `closeRawAttributes()`
    /// or deinit) and are read with pread(2) at offset 0, which makes sysfs show the
    /// attribute afresh: no open, close or allocation per reading. A file whose
    /// read failed is opened again at the next reading, and so are files replaced
    /// under their descriptors (a testbed renaming new files over them; never
    /// real sysfs): noticed by `watchReplacements()`, or without it by fstat(2)
    /// showing no link left.
    public func readRaw() throws(SensorError) -> Vector3 {
        let x = try readRawAxis(0)
        let y = try readRawAxis(1)
        let z = try readRawAxis(2)
        return Vector3(x, y, z)
    }

    /// Closes the raw attribute files and the replacement watch (sampling
    /// stopped); the next `readRaw` opens the files again.
    public func closeRawAttributes() {
        closeRawFiles()
        if replacementFD >= 0 {
            close(replacementFD)
            replacementFD = -1
        }
    }

    private func closeRawFiles() {
        for axis in 0..<3 where rawFDs[axis] >= 0 {
            close(rawFDs[axis])
            rawFDs[axis] = -1
        }
    }

    /// Watches the device directory for files created, moved or deleted in it,
    /// and returns the descriptor to watch for readability (then call
    /// `replacementsNoted()`); nil when inotify is unavailable, and then every
    /// read checks its file with fstat(2) instead.
    ///
    /// Real sysfs never replaces an attribute, so on hardware this descriptor
    /// stays silent; a testbed replacing the files (renaming new ones over
    /// them) makes it readable. Either way a reading costs no fstat calls.
    public func watchReplacements() -> Int32? {
        if replacementFD >= 0 { return replacementFD }
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            close(fd)
            return nil
        }
        replacementFD = fd
        return fd
    }

    /// The device directory changed: drains the watch and closes the raw files,
    /// so the next reading opens what is there now.
    public func replacementsNoted() {
        guard replacementFD >= 0 else { return }
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
            while read(replacementFD, buffer.baseAddress, buffer.count) > 0 {}
        }
        closeRawFiles()
    }

    private func readRawAxis(_ axis: Int) throws(SensorError) -> Double {
        var fd = rawFDs[axis]
        if fd >= 0, replacementFD < 0 {
            var status = stat()
            if fstat(fd, &status) != 0 || status.st_nlink == 0 {
                close(fd)
                fd = -1
                rawFDs[axis] = -1
            }
        }
        if fd < 0 {
            fd = open(rawPaths[axis], O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw readError(axis, code: errno) }
            rawFDs[axis] = fd
        }
        let n = pread(fd, scratch, IIOAccelerometer.scratchBytes, 0)
        guard n >= 0 else {
            let code = errno
            close(fd)
            rawFDs[axis] = -1
            throw readError(axis, code: code)
        }
        let bytes = UnsafeBufferPointer(start: UnsafePointer(scratch), count: n)
        if let value = IIOAccelerometer.parseInteger(bytes) { return value }
        // Not a plain integer (no driver writes one, but the format allows decimals).
        let text = String(decoding: bytes, as: UTF8.self)
        guard let value = DecimalNumber.parse(text.trimmingWhitespace()) else {
            throw SensorError(
                message: "\(sysname): \(IIOAccelerometer.rawNames[axis]) is not a number: '\(text.trimmingWhitespace().prefix(32))'",
                code: EINVAL)
        }
        return value
    }

    private func readError(_ axis: Int, code: Int32) -> SensorError {
        SensorError(
            message: "\(sysname): cannot read \(IIOAccelerometer.rawNames[axis]): \(String(cString: strerror(code)))", code: code)
    }

    /// `[+-]digits` between optional whitespace, without allocating; nil otherwise.
    static func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let end = bytes.count
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x00 }
        while i < end, isSpace(bytes[i]) { i += 1 }
        var negative = false
        if i < end, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var value: Int64 = 0
        var digits = 0
        while i < end, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            guard digits < 18 else { return nil }
            value = value * 10 + Int64(bytes[i] - 0x30)
            digits += 1
            i += 1
        }
        while i < end, isSpace(bytes[i]) { i += 1 }
        guard digits > 0, i == end else { return nil }
        return Double(negative ? -value : value)
    }

    /// Writes the sampling frequency (`sampling_frequency`, else
    /// `in_accel_sampling_frequency`); returns false when neither exists or takes it.
    @discardableResult
    public func setSamplingFrequency(_ hz: Double) -> Bool {
        let text = formatFrequency(hz)
        if iio_device_find_attr(device, "sampling_frequency") != nil {
            return iio_device_attr_write(device, "sampling_frequency", text) > 0
        }
        if iio_channel_find_attr(axes[0], "sampling_frequency") != nil {
            return iio_channel_attr_write(axes[0], "sampling_frequency", text) > 0
        }
        return false
    }

    /// Writes 0 to `in_accel_hysteresis` so an on-change sensor reports every
    /// change; returns false when it has none or refuses.
    @discardableResult
    public func clearHysteresis() -> Bool {
        guard iio_channel_find_attr(axes[0], "hysteresis") != nil else { return false }
        return iio_channel_attr_write(axes[0], "hysteresis", "0") > 0
    }

    // MARK: Buffered capture

    /// Enables the x, y, z scan elements (and the timestamp when there is one),
    /// creates a non-blocking buffer of `samples` scans and returns its poll fd.
    public func startBuffer(samples: Int) throws(SensorError) -> Int32 {
        stopBuffer()
        var channels: [(channel: OpaquePointer, type: ScanType)] = []
        for channel in axes {
            guard iio_channel_is_scan_element(channel), let format = iio_channel_get_data_format(channel) else {
                throw SensorError(message: "\(sysname): no scan elements for the accel axes", code: ENOTSUP)
            }
            channels.append((channel, try ScanType.from(format: format.pointee)))
            iio_channel_enable(channel)
        }
        if let timestamp = iio_device_find_channel(device, "timestamp", false), iio_channel_is_scan_element(timestamp),
            let format = iio_channel_get_data_format(timestamp)
        {
            iio_channel_enable(timestamp)
            timestampChannel = (timestamp, try ScanType.from(format: format.pointee))
        }
        attachDefaultTrigger()
        guard let buffer = iio_device_create_buffer(device, max(1, samples), false) else {
            let code = errno
            for channel in axes { iio_channel_disable(channel) }
            if let timestamp = timestampChannel?.channel { iio_channel_disable(timestamp) }
            timestampChannel = nil
            throw SensorError(message: "\(sysname): cannot create a buffer: \(String(cString: strerror(code)))", code: code)
        }
        _ = iio_buffer_set_blocking_mode(buffer, false)
        let fd = iio_buffer_get_poll_fd(buffer)
        guard fd >= 0 else {
            iio_buffer_destroy(buffer)
            throw SensorError(message: "\(sysname): buffer has no poll fd", code: -fd)
        }
        self.buffer = buffer
        bufferChannels = channels
        return fd
    }

    /// Reads what the buffer holds: one (timestamp ns or nil, raw x/y/z) per scan.
    /// Returns an empty array when nothing is ready (EAGAIN).
    public func readBuffer() throws(SensorError) -> [(timestampNs: Int64?, raw: Vector3)] {
        guard let buffer else { return [] }
        let n = iio_buffer_refill(buffer)
        if n == -Int(EAGAIN) || n == 0 { return [] }
        guard n > 0 else {
            let code = Int32(-n)
            throw SensorError(message: "\(sysname): buffer read failed: \(String(cString: strerror(code)))", code: code)
        }
        let step = iio_buffer_step(buffer)
        guard step > 0, let end = iio_buffer_end(buffer) else { return [] }
        var starts: [UnsafeMutableRawPointer] = []
        for (channel, _) in bufferChannels {
            guard let first = iio_buffer_first(buffer, channel) else { return [] }
            starts.append(first)
        }
        let stampStart = timestampChannel.flatMap { iio_buffer_first(buffer, $0.channel) }
        var out: [(timestampNs: Int64?, raw: Vector3)] = []
        var offset = 0
        while starts[0] + offset < end {
            var values: [Double] = []
            for (i, start) in starts.enumerated() {
                let type = bufferChannels[i].type
                values.append(Double(type.decode(UnsafeRawBufferPointer(start: start + offset, count: type.storageBits / 8), at: 0)))
            }
            var stamp: Int64?
            if let stampStart, let type = timestampChannel?.type {
                stamp = type.decode(UnsafeRawBufferPointer(start: stampStart + offset, count: type.storageBits / 8), at: 0)
            }
            out.append((stamp, Vector3(values[0], values[1], values[2])))
            offset += step
        }
        return out
    }

    /// Triggered capture needs a trigger: when none is set, use the device's own
    /// data-ready trigger, named `<name>-dev<N>` by the kernel (as iio-sensor-proxy
    /// does). Drivers that need none simply have no such trigger.
    private func attachDefaultTrigger() {
        var current: OpaquePointer?
        if iio_device_get_trigger(device, &current) == 0, current != nil { return }
        guard let name = iio_device_get_name(device).map({ String(cString: $0) }),
            let number = Int(String(sysname.reversed().prefix(while: \.isNumber).reversed())),
            let trigger = iio_context_find_device(context, "\(name)-dev\(number)"),
            iio_device_is_trigger(trigger)
        else { return }
        _ = iio_device_set_trigger(device, trigger)
    }

    /// Destroys the buffer (disables capture) if there is one.
    public func stopBuffer() {
        guard let buffer else { return }
        iio_buffer_destroy(buffer)
        self.buffer = nil
        for channel in axes { iio_channel_disable(channel) }
        if let timestamp = timestampChannel?.channel { iio_channel_disable(timestamp) }
        timestampChannel = nil
        bufferChannels = []
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
