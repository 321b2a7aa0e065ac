/// The unit of `LightLevel` on iio-sensor-proxy's interface.
public enum LightUnit: String, Sendable, Equatable {
    /// Lux: what IIO light sensors give (after scale and offset).
    case lux
    /// A vendor's own relative scale (hwmon's `light`, 0–100).
    case vendor
}

/// A light reading: a level and its unit.
public struct LightLevel: Sendable, Equatable {
    /// The level, in `unit`.
    public var value: Double
    /// Lux or the vendor's scale.
    public var unit: LightUnit

    /// A level in `unit`.
    public init(_ value: Double, unit: LightUnit) {
        self.value = value
        self.unit = unit
    }
}

/// The polled IIO light channel of a device: which attribute holds the level,
/// and which scale, offset and integration time apply to it.
///
/// Channels are tried in iio-sensor-proxy's order of prefixes
/// (`in_illuminance`, `in_illuminance0`, `in_illuminance_clear`,
/// `in_intensity_clear`), `_input` before `_raw`. Unlike iio-sensor-proxy:
/// an `_input` value is already in lux (the kernel's processed value), so no
/// scale or offset applies to it; a `_raw` value is `(raw + offset) × scale`
/// (the IIO ABI), with the channel's own `_scale` and `_offset`, else the ones
/// its type shares (`in_illuminance_scale` for `in_illuminance0_raw`).
///
/// ```swift
/// let channel = LightChannel.find(in: ["in_illuminance0_raw", "in_illuminance0_scale"])
/// // channel?.value == "in_illuminance0_raw", channel?.scale == "in_illuminance0_scale"
/// ```
public struct LightChannel: Sendable, Equatable {
    /// The attribute holding the level (`in_illuminance_input`, `in_intensity_clear_raw`, …).
    public var value: String
    /// The scale attribute for a raw value, if the device has one.
    public var scale: String?
    /// The offset attribute for a raw value, if the device has one.
    public var offset: String?
    /// The integration time attribute (seconds), if the device has one: the poll interval.
    public var integrationTime: String?

    /// The value is the kernel's processed value (`_input`), in lux.
    public var isProcessed: Bool { value.hasSuffix("_input") }

    /// The prefixes tried, in order, and the type each shares attributes with.
    static let prefixes: [(channel: String, type: String)] = [
        ("in_illuminance", "in_illuminance"), ("in_illuminance0", "in_illuminance"),
        ("in_illuminance_clear", "in_illuminance"), ("in_intensity_clear", "in_intensity"),
    ]

    /// Every attribute `find` may look at, for a device description to read.
    public static let attributeNames: [String] = {
        var names: [String] = []
        for (channel, type) in prefixes {
            names += ["\(channel)_input", "\(channel)_raw", "\(channel)_scale", "\(channel)_offset", "\(channel)_integration_time"]
            names += ["\(type)_scale", "\(type)_offset", "\(type)_integration_time"]
        }
        names += ["integration_time"]
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }()

    /// The first channel whose value attribute exists among `attributes`; nil
    /// when the device has no light channel.
    public static func find(in attributes: Set<String>) -> LightChannel? {
        for (channel, type) in prefixes {
            for suffix in ["_input", "_raw"] where attributes.contains(channel + suffix) {
                func first(_ names: String...) -> String? { names.first { attributes.contains($0) } }
                let processed = suffix == "_input"
                return LightChannel(
                    value: channel + suffix,
                    scale: processed ? nil : first("\(channel)_scale", "\(type)_scale"),
                    offset: processed ? nil : first("\(channel)_offset", "\(type)_offset"),
                    integrationTime: first("\(channel)_integration_time", "\(type)_integration_time", "integration_time"))
            }
        }
        return nil
    }

    /// The level in lux from the attributes' texts (`scale` and `offset` nil
    /// when absent). A missing scale counts as 1 and a missing offset as 0.
    ///
    /// - Throws: when a text is not a finite decimal number, a scale is 0 or
    ///   negative, or the level comes out negative or too large; the error
    ///   names the attribute.
    public func level(value valueText: String, scale scaleText: String?, offset offsetText: String?) throws(AttributeError) -> Double {
        try level(value: Array(valueText.utf8), scale: scaleText.map { Array($0.utf8) }, offset: offsetText.map { Array($0.utf8) })
    }

    /// `level(value:scale:offset:)` from the bytes read, as a poll has them:
    /// no String is made unless one is wrong.
    package func level(value valueBytes: [UInt8], scale scaleBytes: [UInt8]?, offset offsetBytes: [UInt8]?) throws(AttributeError) -> Double {
        func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
        let raw = try attributeNumber(valueBytes, attribute: value)
        var level = raw
        if !isProcessed {
            // A text given for an attribute the channel did not name is still
            // applied, under the name the channel's own would have.
            var scaleValue = 1.0
            if let scaleBytes {
                scaleValue = try attributeNumber(scaleBytes, attribute: scaleName)
                guard scaleValue > 0 else {
                    throw AttributeError(attribute: scaleName, value: text(scaleBytes), message: "a light scale must be above 0")
                }
            }
            var offsetValue = 0.0
            if let offsetBytes { offsetValue = try attributeNumber(offsetBytes, attribute: offsetName) }
            level = (raw + offsetValue) * scaleValue
        }
        guard level.isFinite else {
            throw AttributeError(attribute: value, value: text(valueBytes), message: "gives a level too large to represent")
        }
        guard level >= 0 else {
            throw AttributeError(attribute: value, value: text(valueBytes), message: "gives \(level) lux, below 0")
        }
        // -0 (a raw "-0") is published as 0.
        return level + 0
    }

    /// The names a scale or offset text is told by: the channel's own, else
    /// the value's prefix (`in_illuminance`) with the suffix.
    private var scaleName: String { scale ?? valuePrefix + "_scale" }
    private var offsetName: String { offset ?? valuePrefix + "_offset" }
    private var valuePrefix: String { value.hasSuffix("_raw") ? String(value.dropLast(4)) : value }

    /// The poll interval in ms: the integration time when the device gives a
    /// usable one (between 10 ms and 10 s), else `defaultMs`.
    public static func pollIntervalMs(integrationTime text: String?, defaultMs: Double = 800) -> Double {
        guard let text, let seconds = try? attributeNumber(text, attribute: "integration_time"),
            seconds >= 0.01, seconds <= 10
        else { return defaultMs }
        return seconds * 1000
    }
}

/// The light level of an Apple SMC-style hwmon sensor: its `light` attribute
/// reads `(a,b)`, two 8-bit sensor values; the level is max(a, b) / 255 × 100
/// in the vendor's unit, as iio-sensor-proxy's hwmon driver gives it.
public enum HwmonLight {
    /// Parses `(a,b)` (spaces allowed around the numbers; a trailing newline).
    ///
    /// - Throws: when the text is not two integers in parentheses separated by
    ///   a comma, or either is outside 0…255.
    public static func level(_ text: String) throws(AttributeError) -> LightLevel {
        let trimmed = trimmedAttribute(text)
        func bad(_ message: String) -> AttributeError { AttributeError(attribute: "light", value: text, message: message) }
        guard trimmed.utf8.count <= 32 else { throw bad("too long for '(a,b)'") }
        guard trimmed.first == "(", trimmed.last == ")" else { throw bad("expected '(a,b)'") }
        let inner = trimmed.dropFirst().dropLast()
        let parts = inner.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw bad("expected two values, '(a,b)'") }
        var values: [Int] = []
        for part in parts {
            guard let value = Int(trimmedAttribute(part)), (0...255).contains(value) else {
                throw bad("'\(trimmedAttribute(part).prefix(8))' is not an integer from 0 to 255")
            }
            values.append(value)
        }
        return LightLevel(Double(max(values[0], values[1])) / 255 * 100, unit: .vendor)
    }
}
