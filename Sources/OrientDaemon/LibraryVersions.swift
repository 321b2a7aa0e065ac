import CIIO

/// Versions of the C libraries orientd uses, for `--version` and bug reports.
package enum LibraryVersions {
    /// libiio's version as `major.minor (git tag)`, or why it cannot be loaded
    /// (libiio is loaded on demand: see `IIOAccelerometer`).
    package static var libiio: String {
        let iio: LibIIO
        do { iio = try LibIIO() } catch { return "not available (\(error.message))" }
        var major: UInt32 = 0, minor: UInt32 = 0
        var tag = [CChar](repeating: 0, count: 8)
        iio.getVersion(&major, &minor, &tag)
        let git = String(decoding: tag.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(major).\(minor)" + (git.isEmpty ? "" : " (\(git))")
    }
}
