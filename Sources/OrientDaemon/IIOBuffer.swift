#if canImport(Glibc)
import Glibc
#endif
import OrientDevices
import OrientProtocol

/// A running buffered capture of an IIO device, set up through sysfs and read
/// from `/dev/iio:deviceN` as the kernel's IIO ABI describes
/// (`Documentation/ABI/testing/sysfs-bus-iio`), without libiio.
/// Deinitialising it stops capture.
///
/// Starting: the node is opened first (O_RDONLY, O_NONBLOCK): the kernel lets
/// one process open it, so a device someone else captures from fails with
/// EBUSY before anything of theirs is touched. Then the buffer is switched
/// off (a buffer left on by a process that died refuses `_en` writes), the
/// wanted elements and `in_timestamp` are enabled (`ScanSelection`; the
/// others stay as found), every `scan_elements/*_en` is read back and the
/// enabled elements' `_index` and `_type` give the layout (`ScanLayout`, as
/// the kernel computes it), an empty `trigger/current_trigger` gets the
/// device's own trigger `<name>-dev<N>` when there is one, `buffer/length` is
/// set and `buffer/enable` written 1. Stopping writes `buffer/enable` 0 and
/// `_en` 0 for the elements it enabled, and closes the node.
///
/// Owned by the event loop's thread.
final class BufferedCapture {
    /// How many scans the kernel's buffer holds per scan read at a time: room
    /// for a wakeup that comes late.
    static let lengthPerSample = 4

    private let sysname: String
    private let selection: ScanSelection
    private var reader: ScanReader
    private var chunk: [UInt8]
    private let sysfs: SysfsWriter
    /// The fd of `/dev/iio:deviceN`, readable when scans are ready.
    let pollFD: Int32

    /// Captures `channelNames` (sysfs names without `in_`: `accel_x`,
    /// `intensity_both`, `rot_from_north_magnetic_tilt_comp`), and the
    /// timestamp when the device has one, reading up to `samples` scans at a time.
    init(sysname: String, channelNames: [String] = ["accel_x", "accel_y", "accel_z"], samples: Int) throws(SensorError) {
        let directory = "/sys/bus/iio/devices/\(sysname)"
        let scanElements = "\(directory)/scan_elements"
        func failure(_ message: String, _ code: Int32) -> SensorError {
            SensorError(message: "\(sysname): \(message)", code: code)
        }
        guard let files = directoryEntries(scanElements) else {
            let code = errno
            throw failure("no scan elements (\(String(cString: strerror(code))))", code == ENOENT ? ENOTSUP : code)
        }
        let selection: ScanSelection
        do {
            selection = try ScanSelection(channels: channelNames, available: ScanSelection.elementNames(files: files))
        } catch {
            throw failure(error.message, ENOTSUP)
        }
        let node = "/dev/\(sysname)"
        let fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw failure("cannot open \(node): \(String(cString: strerror(code)))", code)
        }
        let sysfs = SysfsWriter(sysname: sysname, directory: directory)
        func fail(_ error: SensorError) -> SensorError {
            sysfs.undo(disabling: selection.enabling)
            close(fd)
            return error
        }
        let layout: ScanLayout
        do throws(SensorError) {
            if ScanSelection.parseEnabled(sysfs.read("buffer/enable") ?? "") == true {
                try sysfs.write("buffer/enable", "0")
            }
            for element in selection.enabling { try sysfs.write("scan_elements/\(element)_en", "1", undo: true) }
            layout = try BufferedCapture.enabledLayout(sysfs, files: files)
            BufferedCapture.attachDefaultTrigger(sysfs, sysname: sysname)
            try sysfs.write("buffer/length", String(max(1, samples) * BufferedCapture.lengthPerSample))
            try sysfs.write("buffer/enable", "1", undo: true)
        } catch {
            throw fail(error)
        }
        let reader: ScanReader
        do {
            reader = try ScanReader(layout: layout, channels: selection.channels, timestamp: selection.timestamp)
        } catch {
            throw fail(failure(error.message, EIO))
        }
        self.sysname = sysname
        self.selection = selection
        self.reader = reader
        self.sysfs = sysfs
        chunk = [UInt8](repeating: 0, count: max(1, samples) * BufferedCapture.lengthPerSample * layout.scanSize)
        pollFD = fd
    }

    deinit {
        sysfs.undo(disabling: selection.enabling)
        close(pollFD)
    }

    /// The layout of every element that reads back enabled (`files` is the
    /// `scan_elements` listing).
    private static func enabledLayout(_ sysfs: SysfsWriter, files: [String]) throws(SensorError) -> ScanLayout {
        var elements: [ScanElement] = []
        for name in ScanSelection.elementNames(files: files) {
            guard let text = sysfs.read("scan_elements/\(name)_en"), ScanSelection.parseEnabled(text) == true else {
                continue
            }
            guard let indexText = sysfs.read("scan_elements/\(name)_index"), let index = ScanSelection.parseIndex(indexText)
            else { throw sysfs.error("scan element \(name) has no readable index", EIO) }
            guard let typeText = sysfs.read("scan_elements/\(name)_type") else {
                throw sysfs.error("scan element \(name) has no readable type", EIO)
            }
            do {
                elements.append(ScanElement(name: name, index: index, type: try ScanType(parsing: ScanSelection.trimmed(typeText))))
            } catch {
                throw sysfs.error("unsupported scan type \(ScanSelection.trimmed(typeText)) of \(name): \(error)", ENOTSUP)
            }
        }
        do {
            return try ScanLayout(elements: elements)
        } catch {
            throw sysfs.error(error.message, EIO)
        }
    }

    /// Triggered capture needs a trigger: when none is set, use the device's
    /// own data-ready trigger, which the kernel names `<name>-dev<N>` (as
    /// iio-sensor-proxy does). Devices that need none have no such trigger;
    /// a trigger that refuses is left for `buffer/enable` to report.
    private static func attachDefaultTrigger(_ sysfs: SysfsWriter, sysname: String) {
        guard let current = sysfs.read("trigger/current_trigger"), ScanSelection.isUnset(trigger: current),
            let deviceName = sysfs.read("name"),
            let wanted = ScanSelection.defaultTrigger(deviceName: deviceName, sysname: sysname)
        else { return }
        let devices = "/sys/bus/iio/devices"
        let exists = (directoryEntries(devices) ?? []).contains { entry in
            entry.hasPrefix("trigger")
                && readAttribute("\(devices)/\(entry)/name").map(ScanSelection.trimmed) == wanted
        }
        guard exists else { return }
        try? sysfs.write("trigger/current_trigger", wanted)
    }

    /// Reads what the buffer holds: one (timestamp ns or nil, raw x/y/z) per scan
    /// of a three-channel capture.
    func read() throws(SensorError) -> [(timestampNs: Int64?, raw: Vector3)] {
        try readScans().compactMap { scan in
            scan.values.count == 3 ? (scan.timestampNs, Vector3(scan.values[0], scan.values[1], scan.values[2])) : nil
        }
    }

    /// Reads what the buffer holds: one (timestamp ns or nil, raw values in
    /// channel order) per scan; empty when nothing is ready (EAGAIN) or only
    /// part of a scan arrived. ENODEV, ENOENT and ENXIO mean the device is gone
    /// (`SensorError.vanished`).
    func readScans() throws(SensorError) -> [(timestampNs: Int64?, values: [Double])] {
        var n: Int
        repeat {
            n = chunk.withUnsafeMutableBytes { Glibc.read(pollFD, $0.baseAddress, $0.count) }
        } while n < 0 && errno == EINTR
        if n < 0 {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK { return [] }
            throw SensorError(message: "\(sysname): buffer read failed: \(String(cString: strerror(code)))", code: code)
        }
        guard n > 0 else {
            throw SensorError(message: "\(sysname): buffer read failed: end of file", code: EIO)
        }
        let scans = chunk.withUnsafeBytes { reader.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        return scans.map { ($0.timestampNs, $0.values.map { Double($0) }) }
    }
}

/// The attribute writes of one capture, remembering what to undo: the
/// elements and the buffer it switched on.
private final class SysfsWriter {
    let sysname: String
    let directory: String
    private var undoing: Set<String> = []

    init(sysname: String, directory: String) {
        self.sysname = sysname
        self.directory = directory
    }

    /// The attribute's text, or nil when it cannot be read.
    func read(_ name: String) -> String? {
        readAttribute("\(directory)/\(name)")
    }

    /// Writes `text` in one write(2) (O_TRUNC: sysfs ignores it, but a plain
    /// file standing in for the attribute, as under umockdev, would otherwise
    /// keep its old tail). `undo`: written `0` again by `undo(disabling:)`.
    func write(_ name: String, _ text: String, undo: Bool = false) throws(SensorError) {
        let fd = open("\(directory)/\(name)", O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw error("cannot open \(name): \(String(cString: strerror(code)))", code)
        }
        defer { close(fd) }
        if undo { undoing.insert(name) }
        guard writeAll(fd: fd, Array(text.utf8)) else {
            let code = errno
            throw error("cannot write \(text) to \(name): \(String(cString: strerror(code)))", code)
        }
    }

    /// Switches the buffer off, then `elements` (those of them it enabled).
    func undo(disabling elements: [String]) {
        if undoing.contains("buffer/enable") { try? write("buffer/enable", "0") }
        for element in elements where undoing.contains("scan_elements/\(element)_en") {
            try? write("scan_elements/\(element)_en", "0")
        }
        undoing.removeAll()
    }

    func error(_ message: String, _ code: Int32) -> SensorError {
        SensorError(message: "\(sysname): \(message)", code: code)
    }
}

/// A small sysfs attribute's text (at most 256 bytes), or nil when it cannot be read.
private func readAttribute(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 256)
    var n: Int
    repeat {
        n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
    } while n < 0 && errno == EINTR
    guard n >= 0 else { return nil }
    return String(decoding: buffer[0..<n], as: UTF8.self)
}
