#if canImport(Glibc)
import Glibc
#endif

/// iio-sensor-proxy on this machine: a second owner of the same accelerometer,
/// which rotates the screen its own way (GNOME, KDE and most shells follow it).
struct ServiceConflict: Equatable {
    /// Its binary or unit is installed.
    var installed = false
    /// A process of it runs now.
    var running = false
    /// Its unit is masked (a symlink to /dev/null in /etc/systemd/system): it cannot start.
    var masked = false

    /// Looks under `root` (`/`, or `$ORIENTCTL_SYSROOT` in tests) for
    /// iio-sensor-proxy's binary, unit, mask and process.
    static func iioSensorProxy(root: String = "/") -> ServiceConflict {
        let base = root.hasSuffix("/") ? String(root.dropLast()) : root
        var found = ServiceConflict()
        let installedPaths = [
            "/usr/libexec/iio-sensor-proxy", "/usr/sbin/iio-sensor-proxy", "/usr/lib/iio-sensor-proxy/iio-sensor-proxy",
            "/lib/systemd/system/iio-sensor-proxy.service", "/usr/lib/systemd/system/iio-sensor-proxy.service",
        ]
        var info = stat()
        found.installed = installedPaths.contains { stat(base + $0, &info) == 0 }
        var target = [CChar](repeating: 0, count: 256)
        let length = readlink(base + "/etc/systemd/system/iio-sensor-proxy.service", &target, target.count - 1)
        if length > 0 {
            found.masked = String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == "/dev/null"
        }
        found.running = processRunning(comm: "iio-sensor-prox", procRoot: base + "/proc")
        return found
    }

    /// Whether a process whose `comm` (the first 15 bytes of its name) is `comm` runs.
    private static func processRunning(comm: String, procRoot: String) -> Bool {
        guard let directory = opendir(procRoot) else { return false }
        defer { closedir(directory) }
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return false }
        while let entry = readdir(directory) {
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            guard let first = name.utf8.first, first >= 0x30, first <= 0x39 else { continue }
            if readSmallFile("\(procRoot)/\(name)/comm")?.trimmingNewline == comm { return true }
        }
        return false
    }
}

/// The first 4 KiB of a file as text, nil when it cannot be read.
func readSmallFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard n >= 0 else { return nil }
    return String(decoding: buffer[0..<n], as: UTF8.self)
}

extension String {
    /// Without one trailing newline.
    var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}
