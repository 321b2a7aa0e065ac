import CIIO

/// Versions of the C libraries orientd links, for `--version` and bug reports.
public enum LibraryVersions {
    /// libiio's version as `major.minor (git tag)`.
    public static var libiio: String {
        var major: UInt32 = 0, minor: UInt32 = 0
        var tag = [CChar](repeating: 0, count: 8)
        iio_library_get_version(&major, &minor, &tag)
        let git = String(decoding: tag.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(major).\(minor)" + (git.isEmpty ? "" : " (\(git))")
    }
}
