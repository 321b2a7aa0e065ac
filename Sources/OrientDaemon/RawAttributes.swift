#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol

/// The polled path's reads of one IIO device: `in_accel_{x,y,z}_raw`, kept
/// open while sampling and read with pread(2), parsed in the C locale without
/// allocating. libiio's local backend reads these attributes the same way,
/// one read per attribute; no libiio here.
///
/// Read on a `Poller`'s thread, which alone uses it (a HID sensor's reads
/// sleep while it powers up).
final class RawAttributes {
    /// The device id (`iio:device0`), for messages.
    private let sysname: String
    /// The device's sysfs directory, watched for replaced files.
    private let directory: String
    /// An inotify descriptor on `directory` while the files are open, else -1
    /// (then each read checks its file with fstat instead).
    private var replacementFD: Int32 = -1
    /// `<directory>/in_accel_{x,y,z}_raw`.
    private let paths: [String]
    /// Open raw attribute files, -1 when closed (fixed storage: read on every poll).
    private let rawFDs: UnsafeMutablePointer<Int32>
    /// One attribute's text; allocated once.
    private let scratch: UnsafeMutablePointer<UInt8>
    private static let scratchBytes = 64
    private static let names = ["in_accel_x_raw", "in_accel_y_raw", "in_accel_z_raw"]

    init(sysname: String, directory: String) {
        self.sysname = sysname
        self.directory = directory
        paths = RawAttributes.names.map { "\(directory)/\($0)" }
        scratch = .allocate(capacity: RawAttributes.scratchBytes)
        rawFDs = .allocate(capacity: 3)
        rawFDs.initialize(repeating: -1, count: 3)
    }

    deinit {
        close()
        scratch.deallocate()
        rawFDs.deallocate()
    }

    /// Reads `in_accel_{x,y,z}_raw` (the polled path), parsed in the C locale.
    ///
    /// The three attribute files stay open between calls (until `close()`
    /// or deinit) and are read with pread(2) at offset 0, which makes sysfs show the
    /// attribute afresh: no open, close or allocation per reading. A file whose
    /// read failed is opened again at the next reading, and so are files replaced
    /// under their descriptors (a testbed renaming new files over them, or
    /// exchanging them; never real sysfs): an inotify watch on the directory
    /// says so, read without blocking before each reading (real sysfs never
    /// replaces an attribute, so there it stays silent); without inotify,
    /// fstat(2) showing no link left.
    func read() throws(SensorError) -> Vector3 {
        noteReplacements()
        let x = try readRawAxis(0)
        let y = try readRawAxis(1)
        let z = try readRawAxis(2)
        return Vector3(x, y, z)
    }

    /// Closes the raw attribute files and the directory watch (sampling
    /// stopped); the next `read` opens them again.
    func close() {
        closeFiles()
        if replacementFD >= 0 {
            Glibc.close(replacementFD)
            replacementFD = -1
        }
    }

    private func closeFiles() {
        for axis in 0..<3 where rawFDs[axis] >= 0 {
            Glibc.close(rawFDs[axis])
            rawFDs[axis] = -1
        }
    }

    /// Starts the directory watch with the first reading; closes the files
    /// when it reports a change, so this reading opens what is there now.
    private func noteReplacements() {
        if replacementFD < 0 {
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else { return }
            let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
            guard inotify_add_watch(fd, directory, mask) >= 0 else {
                Glibc.close(fd)
                return
            }
            replacementFD = fd
            return
        }
        var changed = false
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
            while Glibc.read(replacementFD, buffer.baseAddress, buffer.count) > 0 { changed = true }
        }
        if changed { closeFiles() }
    }

    private func readRawAxis(_ axis: Int) throws(SensorError) -> Double {
        var fd = rawFDs[axis]
        if fd >= 0, replacementFD < 0 {
            var status = stat()
            if fstat(fd, &status) != 0 || status.st_nlink == 0 {
                Glibc.close(fd)
                fd = -1
                rawFDs[axis] = -1
            }
        }
        if fd < 0 {
            fd = open(paths[axis], O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw readError(axis, code: errno) }
            rawFDs[axis] = fd
        }
        var n: Int
        repeat {
            n = pread(fd, scratch, RawAttributes.scratchBytes, 0)
        } while n < 0 && errno == EINTR
        guard n >= 0 else {
            let code = errno
            Glibc.close(fd)
            rawFDs[axis] = -1
            throw readError(axis, code: code)
        }
        let bytes = UnsafeBufferPointer(start: UnsafePointer(scratch), count: n)
        if let value = RawAttributes.parseInteger(bytes) { return value }
        // Not a plain integer (no driver writes one, but the format allows decimals).
        let text = String(decoding: bytes, as: UTF8.self)
        guard let value = DecimalNumber.parse(text.trimmingWhitespace()) else {
            throw SensorError(
                message: "\(sysname): \(RawAttributes.names[axis]) is not a number: '\(text.trimmingWhitespace().prefix(32))'",
                code: EINVAL)
        }
        return value
    }

    private func readError(_ axis: Int, code: Int32) -> SensorError {
        SensorError(
            message: "\(sysname): cannot read \(RawAttributes.names[axis]): \(String(cString: strerror(code)))", code: code)
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
}
