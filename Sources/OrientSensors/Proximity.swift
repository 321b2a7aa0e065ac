/// Near or far from a proximity sensor's raw level, with real hysteresis.
///
/// The near level `L` (udev `PROXIMITY_NEAR_LEVEL`, else sysfs
/// `in_proximity_nearlevel`) is the level at or above which an object is near
/// (the hwdb's definition). Once near, the reading stays near until the level
/// falls below `L × (1 − band)`: a level that wanders around `L` does not
/// flap. (iio-sensor-proxy moves its threshold by ±10 % on the previous
/// state, so in steady state the threshold is exactly `L` and a change is
/// only delayed by one poll.)
///
/// ```swift
/// var proximity = ProximityThreshold(nearLevel: 100)
/// proximity.update(raw: 100)  // true: near
/// proximity.update(raw: 95)   // still true: inside the band
/// proximity.update(raw: 89)   // false: far
/// ```
public struct ProximityThreshold: Sendable, Equatable {
    /// The level at or above which an object is near.
    public var nearLevel: Double
    /// The fraction of `nearLevel` the level must fall below it to read far again.
    public var band: Double
    /// The current decision.
    public private(set) var near = false

    /// A threshold at `nearLevel`, far to start with.
    public init(nearLevel: Double, band: Double = 0.1) {
        self.nearLevel = nearLevel
        self.band = Self.clamped(band)
    }

    /// The level below which a near reading turns far.
    public var farBelow: Double { nearLevel * (1 - Self.clamped(band)) }

    /// A band in [0, 0.9] (NaN: the default 0.1), also when `band` was set directly.
    private static func clamped(_ band: Double) -> Double { band.isNaN ? 0.1 : min(max(band, 0), 0.9) }

    /// Takes one raw reading; returns the decision (a non-finite reading keeps it).
    @discardableResult
    public mutating func update(raw: Double) -> Bool {
        guard raw.isFinite else { return near }
        near = near ? raw >= farBelow : raw >= nearLevel
        return near
    }

    /// Parses a near level (udev property or sysfs attribute `what`): a finite number above 0.
    public static func nearLevel(_ text: String, from what: String) throws(AttributeError) -> Double {
        let value = try attributeNumber(text, attribute: what)
        guard value > 0 else { throw AttributeError(attribute: what, value: text, message: "a near level must be above 0") }
        return value
    }
}

/// The compass heading from a HID sensor hub's tilt-compensated rotation from
/// magnetic north: `(raw + offset) × scale` degrees, brought into [0, 360).
public enum CompassHeading {
    /// The heading in degrees, [0, 360); nil for a value that is not finite.
    public static func degrees(raw: Double, scale: Double, offset: Double) -> Double? {
        let value = (raw + offset) * scale
        guard value.isFinite, scale > 0 else { return nil }
        let wrapped = value.truncatingRemainder(dividingBy: 360)
        // A tiny negative remainder plus 360 rounds to 360 itself; -0 is 0.
        let heading = wrapped < 0 ? wrapped + 360 : wrapped + 0
        return heading >= 360 ? 0 : heading
    }

    /// The value `CompassHeading` takes on the bus with no compass (or none
    /// read yet): iio-sensor-proxy's interface documents −1 as unknown.
    public static let unknown = -1.0
}
