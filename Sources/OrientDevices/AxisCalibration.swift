package import OrientProtocol

/// The conversion from raw accelerometer counts to m/s²: per axis,
/// a = (raw + offset) × scale (the IIO ABI).
///
/// ```swift
/// let (calibration, warnings) = try AxisCalibration.resolve(
///     perAxisScale: [nil, nil, nil], sharedScale: "0.019163\n",
///     perAxisOffset: [nil, nil, nil], sharedOffset: nil)
/// calibration.apply(raw: Vector3(523, 13, 5))  // ≈ (10.02, 0.25, 0.10) m/s²
/// ```
package struct AxisCalibration: Sendable, Equatable {
    /// Per-axis scale in m/s² per count.
    package var scale: Vector3
    /// Per-axis offset in counts, added before scaling.
    package var offset: Vector3

    /// A calibration from explicit scales and offsets.
    package init(scale: Vector3, offset: Vector3 = .zero) {
        self.scale = scale
        self.offset = offset
    }

    /// Scale 1, offset 0: raw values taken as m/s².
    package static let identity = AxisCalibration(scale: Vector3(1, 1, 1))

    /// Converts raw counts (x, y, z) to m/s².
    @inlinable
    package func apply(raw: Vector3) -> Vector3 {
        (raw + offset) * scale
    }

    /// Builds the calibration from the sysfs attribute texts, nil where an
    /// attribute does not exist.
    ///
    /// - Parameters:
    ///   - perAxisScale: `in_accel_x_scale`, `in_accel_y_scale`, `in_accel_z_scale`
    ///     (missing entries count as absent).
    ///   - sharedScale: `in_accel_scale`, used for an axis without its own scale.
    ///   - perAxisOffset: `in_accel_{x,y,z}_offset`, likewise.
    ///   - sharedOffset: `in_accel_offset`.
    ///   - scaleOverride: the config's `[sensor] scale`: the scale of every axis,
    ///     whatever the scale attributes say (they are not read); an offset
    ///     that cannot be read is then 0, with a warning.
    /// - Returns: the calibration, and warnings for a log: a scale of 1 used
    ///   because no scale attribute exists, or a zero per-axis scale passed over
    ///   for the shared one.
    /// - Throws: when a value is not a decimal number in the C locale (surrounding
    ///   whitespace and the newline are allowed; `0,019163` is an error), or an
    ///   axis's scale is 0; the error names the attribute.
    package static func resolve(
        perAxisScale: [String?], sharedScale: String?, perAxisOffset: [String?], sharedOffset: String?,
        scaleOverride: Double? = nil
    ) throws(CalibrationError) -> (AxisCalibration, warnings: [String]) {
        if let scaleOverride {
            // The config's scale holds even when an offset cannot be read.
            let scale = Vector3(repeating: scaleOverride)
            do {
                let sharedOff = try sharedOffset.map { text throws(CalibrationError) in try parse(text, attribute: "in_accel_offset") }
                return (AxisCalibration(scale: scale, offset: try offsets(perAxisOffset, shared: sharedOff)), [])
            } catch {
                return (AxisCalibration(scale: scale), ["\(error); using offset 0"])
            }
        }
        let sharedOff = try sharedOffset.map { text throws(CalibrationError) in
            try parse(text, attribute: "in_accel_offset")
        }
        let offset = try offsets(perAxisOffset, shared: sharedOff)
        let axes = ["x", "y", "z"]
        var warnings: [String] = []
        let shared = try sharedScale.map { text throws(CalibrationError) in
            try parse(text, attribute: "in_accel_scale")
        }
        var scale = Vector3(1, 1, 1)
        var unscaled: [String] = []
        for (i, axis) in axes.enumerated() {
            var axisScale: Double?
            if i < perAxisScale.count, let text = perAxisScale[i] {
                let attribute = "in_accel_\(axis)_scale"
                let value = try parse(text, attribute: attribute)
                if value != 0 {
                    axisScale = value
                } else if shared != nil {
                    warnings.append("\(attribute) is 0; using in_accel_scale for \(axis)")
                } else {
                    throw CalibrationError(attribute: attribute, value: text, message: "a scale of 0 would make every reading 0")
                }
            }
            if axisScale == nil, let shared {
                guard shared != 0 else {
                    throw CalibrationError(
                        attribute: "in_accel_scale", value: sharedScale ?? "",
                        message: "a scale of 0 would make every reading 0")
                }
                axisScale = shared
            }
            if let axisScale { scale[i] = axisScale } else { unscaled.append(axis) }
        }
        if unscaled.count == 3 {
            warnings.append("no in_accel_{x,y,z}_scale or in_accel_scale attribute; using scale 1 (raw values taken as m/s²)")
        } else if !unscaled.isEmpty {
            for axis in unscaled {
                warnings.append("no in_accel_\(axis)_scale or in_accel_scale attribute; using scale 1 for \(axis)")
            }
        }
        return (AxisCalibration(scale: scale, offset: offset), warnings)
    }

    /// `in_accel_{x,y,z}_offset`, else the shared offset, else 0, per axis.
    private static func offsets(_ perAxis: [String?], shared: Double?) throws(CalibrationError) -> Vector3 {
        var offset = Vector3.zero
        for (i, axis) in ["x", "y", "z"].enumerated() {
            if i < perAxis.count, let text = perAxis[i] {
                offset[i] = try parse(text, attribute: "in_accel_\(axis)_offset")
            } else if let shared {
                offset[i] = shared
            }
        }
        return offset
    }

    private static func parse(_ text: String, attribute: String) throws(CalibrationError) -> Double {
        let trimmed = sysfsTrimmed(text)
        if let value = DecimalNumber.parse(trimmed) { return value }
        let message: String
        if trimmed.isEmpty {
            message = "the attribute is empty"
        } else if trimmed.contains(",") {
            message = "not a decimal number: sysfs numbers use '.' as the decimal point"
        } else {
            message = "not a decimal number"
        }
        throw CalibrationError(attribute: attribute, value: text, message: message)
    }
}

/// A calibration attribute whose value cannot be used.
package struct CalibrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sysfs attribute, e.g. `in_accel_x_scale`.
    package var attribute: String
    /// Its text as read.
    package var value: String
    /// What is wrong, for a log line.
    package var message: String
    /// `in_accel_scale '0,019163': message`.
    package var description: String {
        let shown = sysfsTrimmed(value).prefix(40)
        return "\(attribute) '\(shown)': \(message)"
    }
}

/// A sysfs attribute's text without the surrounding whitespace and newline.
func sysfsTrimmed(_ text: some StringProtocol) -> Substring {
    let whitespace: Set<Character> = [" ", "\t", "\n", "\r", "\r\n"]
    let string = Substring(text)
    guard let first = string.firstIndex(where: { !whitespace.contains($0) }),
        let last = string.lastIndex(where: { !whitespace.contains($0) })
    else { return string[string.endIndex...] }
    return string[first...last]
}
