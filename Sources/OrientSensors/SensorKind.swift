/// The kinds of sensor iio-sensor-proxy's interface serves, one sensor of each
/// in use at a time (docs/behaviour.md, Sensors).
public enum SensorKind: String, Sendable, CaseIterable, Comparable {
    /// The display's accelerometer: the orientation.
    case accelerometer
    /// An ambient light sensor: `LightLevel`.
    case light
    /// A proximity sensor: `ProximityNear`.
    case proximity
    /// A tilt-compensated compass: `CompassHeading`.
    case compass

    /// In declaration order (status lists sensors this way).
    public static func < (a: SensorKind, b: SensorKind) -> Bool {
        allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
    }
}

/// What one sensor gives now: no such sensor, or one that is there, with its
/// latest value (nil until the first reading since it was opened).
public enum SensorValue<Value: Sendable & Equatable>: Sendable, Equatable {
    /// No sensor of this kind.
    case absent
    /// A sensor is there; its latest value, nil while none has been read since it opened.
    case present(Value?)

    /// A sensor of this kind is there.
    public var isPresent: Bool {
        if case .present = self { return true }
        return false
    }

    /// The latest value, if a sensor has given one.
    public var value: Value? {
        if case .present(let value) = self { return value }
        return nil
    }
}
