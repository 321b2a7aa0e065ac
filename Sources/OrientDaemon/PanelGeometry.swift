#if canImport(Glibc)
import Glibc
#endif
public import OrientSense

/// Finds the natural geometry of the internal panel from DRM sysfs: the first
/// mode of a connected eDP, DSI or LVDS connector, landscape when wider than tall.
public enum PanelGeometry {
    /// The geometry from `sysfsRoot`/class/drm, or nil if no internal panel is found.
    public static func probe(sysfsRoot: String = "/sys") -> NaturalGeometry? {
        let base = sysfsRoot + "/class/drm"
        guard let dir = opendir(base) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.contains("-eDP-") || name.contains("-DSI-") || name.contains("-LVDS-") { names.append(name) }
        }
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
