/// One value for each ``SensorKind``: the interface's claims, held replies and
/// the like, without a dictionary's optional lookups.
struct PerKind<Value: Sendable>: Sendable {
    private var accelerometer, light, proximity, compass: Value

    /// `value` for every kind.
    init(_ value: Value) {
        accelerometer = value
        light = value
        proximity = value
        compass = value
    }

    subscript(kind: SensorKind) -> Value {
        get {
            switch kind {
            case .accelerometer: accelerometer
            case .light: light
            case .proximity: proximity
            case .compass: compass
            }
        }
        set {
            switch kind {
            case .accelerometer: accelerometer = newValue
            case .light: light = newValue
            case .proximity: proximity = newValue
            case .compass: compass = newValue
            }
        }
    }
}
