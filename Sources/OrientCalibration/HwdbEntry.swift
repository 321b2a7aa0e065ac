/// One hwdb entry: a comment, a match key and the `ACCEL_MOUNT_MATRIX` line, as
/// `/etc/udev/hwdb.d/61-sensor-local.hwdb` and systemd's `60-sensor.hwdb` hold them.
///
/// ```
/// # Written by orientctl calibrate: TOSHIBA WT10-A, bmc150_accel
/// sensor:modalias:acpi:BOSC0200*:dmi:*svnTOSHIBA:pnWT10-A:*
///  ACCEL_MOUNT_MATRIX=0, -1, 0; -1, 0, 0; 0, 0, 1
/// ```
public struct HwdbEntry: Sendable, Equatable {
    public var comment: String
    public var key: String
    /// The matrix text, `x1, y1, z1; x2, y2, z2; x3, y3, z3`.
    public var matrix: String

    public init(comment: String, key: String, matrix: String) {
        self.comment = comment
        self.key = key
        self.matrix = matrix
    }

    /// The entry's lines, ending in a newline. Property lines start with one space.
    public var text: String {
        "# \(comment)\n\(key)\n ACCEL_MOUNT_MATRIX=\(matrix)\n"
    }

    /// `existing` (a local hwdb file's text, empty when there is none) with this
    /// entry in it: an entry with the same key has its `ACCEL_MOUNT_MATRIX`
    /// replaced (other properties, such as `ACCEL_LOCATION`, stay); otherwise the
    /// entry is appended after a blank line.
    public func merged(into existing: String) -> (text: String, replaced: Bool) {
        var lines = existing.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        if let keyLine = lines.firstIndex(where: { $0.trimmingTrailingSpaces() == key }) {
            // The entry's properties are the indented lines after its key lines.
            var index = keyLine + 1
            while index < lines.count, lines[index].hasPrefix("sensor:") { index += 1 }
            var replaced = false
            var output = Array(lines[..<index])
            while index < lines.count, let first = lines[index].first, first == " " || first == "\t" {
                let property = lines[index].drop { $0 == " " || $0 == "\t" }
                if property.hasPrefix("ACCEL_MOUNT_MATRIX=") {
                    if !replaced { output.append(" ACCEL_MOUNT_MATRIX=\(matrix)") }
                    replaced = true
                } else {
                    output.append(lines[index])
                }
                index += 1
            }
            if !replaced { output.append(" ACCEL_MOUNT_MATRIX=\(matrix)") }
            output += lines[index...]
            return (output.joined(separator: "\n") + "\n", true)
        }
        let body = lines.joined(separator: "\n")
        if body.isEmpty { return (text, false) }
        return (body + "\n\n" + text, false)
    }
}

extension String {
    func trimmingTrailingSpaces() -> Substring {
        var s = Substring(self)
        while let last = s.last, last == " " || last == "\t" || last == "\r" { s.removeLast() }
        return s
    }
}
