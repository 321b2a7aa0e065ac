#if canImport(Glibc)
import Glibc
#endif
import OrientConfig
package import OrientProtocol

/// Finds the natural geometry of the internal panel from DRM sysfs: the first
/// mode of a connected eDP, DSI or LVDS connector, landscape when wider than tall.
package enum PanelGeometry {
    /// The natural geometry `setting` gives on this machine, and why: `config`
    /// when it pins one, else the internal panel's (`drm`), else portrait
    /// (`default`). The panel is probed only when the setting asks for it.
    static func natural(_ setting: NaturalGeometrySetting) -> (NaturalGeometry, reason: String) {
        if case .fixed = setting { return (setting.resolved(detected: nil), "config") }
        let detected = probe()
        return (setting.resolved(detected: detected), detected == nil ? "default" : "drm")
    }

    /// The geometry from `sysfsRoot`/class/drm, or nil if no internal panel is found.
    package static func probe(sysfsRoot: String = "/sys") -> NaturalGeometry? {
        let base = sysfsRoot + "/class/drm"
        guard let entries = directoryEntries(base) else { return nil }
        let names = entries.filter { $0.containsText("-eDP-") || $0.containsText("-DSI-") || $0.containsText("-LVDS-") }
        for name in names.sorted() {
            guard let status = try? readFile("\(base)/\(name)/status", limit: 64),
                String(decoding: status, as: UTF8.self).hasPrefix("connected"),
                let modes = try? readFile("\(base)/\(name)/modes", limit: 1 << 16)
            else { continue }
            let first = String(decoding: modes, as: UTF8.self).split(separator: "\n").first ?? ""
            let parts = first.split(separator: "x")
            guard parts.count >= 2, let w = Int(parts[0]), let h = Int(parts[1].prefix { $0.isNumber }) else { continue }
            return w > h ? .landscape : .portrait
        }
        return nil
    }
}

/// The names in a directory, without `.` and `..`; nil if it cannot be opened.
///
/// `readdir` returns records only `d_reclen` bytes long, so the name is read
/// in place as a C string: copying `entry.pointee` (or its 256-byte `d_name`)
/// would read past the end of a short record, and past the end of glibc's
/// buffer for the last entry in it (found as a crash listing /proc/PID/fd of
/// a process with ~1,400 fds).
package func directoryEntries(_ path: String) -> [String]? {
    guard let dir = opendir(path) else { return nil }
    defer { closedir(dir) }
    guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return nil }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}
