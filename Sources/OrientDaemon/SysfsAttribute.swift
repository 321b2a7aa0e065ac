#if canImport(Glibc)
import Glibc
#endif

/// One sysfs attribute read again and again: opened once, read with pread(2)
/// at offset 0 (sysfs shows the attribute afresh), reopened after a failed
/// read. Owned by the event loop's thread.
final class SysfsAttribute {
    /// The file name, for messages (`in_illuminance_raw`).
    let name: String
    private let path: String
    private let sysname: String
    private var fd: Int32 = -1

    init(sysname: String, directory: String, name: String) {
        self.sysname = sysname
        self.name = name
        path = "\(directory)/\(name)"
    }

    deinit { close() }

    /// The attribute's text (at most 256 bytes).
    func read() throws(SensorError) -> String {
        String(decoding: try readBytes(), as: UTF8.self)
    }

    /// The attribute's bytes (at most 256), as a poll parses them: no String
    /// on the way (`attributeNumber(_:attribute:)` takes them as they are).
    func readBytes() throws(SensorError) -> [UInt8] {
        // A file replaced under its descriptor (a testbed renaming a new one
        // over it; never real sysfs) shows no links left: open the new one.
        var info = stat()
        if fd >= 0, fstat(fd, &info) == 0, info.st_nlink == 0 { close() }
        if fd < 0 {
            fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else {
                let code = errno
                throw SensorError(message: "\(sysname): cannot open \(name): \(String(cString: strerror(code)))", code: code)
            }
        }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n >= 0 else {
            let code = errno
            close()
            throw SensorError(message: "\(sysname): cannot read \(name): \(String(cString: strerror(code)))", code: code)
        }
        buffer.removeLast(buffer.count - n)
        return buffer
    }

    /// Closes the file; the next read opens it again.
    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}

/// The sysfs directory of a device.
func sysfsDirectory(_ device: SensorDevice) -> String {
    device.syspath.isEmpty ? "/sys/bus/iio/devices/\(device.sysname)" : device.syspath
}
