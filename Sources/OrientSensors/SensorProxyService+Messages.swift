public import OrientProtocol

// What goes in and out of SensorProxyService: the calls sd-bus delivers and the
// readings the daemon publishes; the replies, signals and polkit and bus-watch
// requests the glue carries out.

extension SensorProxyService {
    /// One method call as received: who sent it, where, and its arguments when
    /// they are all strings (the only arguments this interface takes).
    public struct Call: Sendable, Equatable {
        /// The unique bus name of the caller.
        public var sender: String
        /// The object path called.
        public var path: String
        /// The interface named in the call, if any.
        public var interface: String?
        /// The method name.
        public var member: String
        /// The body's D-Bus signature ("" for none).
        public var signature: String
        /// The string arguments, read only when `signature` is all `s`.
        public var strings: [String]

        /// A call as sd-bus delivered it.
        public init(sender: String, path: String, interface: String?, member: String, signature: String, strings: [String] = []) {
            self.sender = sender
            self.path = path
            self.interface = interface
            self.member = member
            self.signature = signature
            self.strings = strings
        }
    }

    /// A property's value, in the D-Bus types the interface uses.
    public enum Value: Sendable, Equatable {
        /// `b`.
        case bool(Bool)
        /// `s`.
        case string(String)
        /// `d`.
        case double(Double)
    }

    /// The answer to one call.
    public enum Reply: Sendable, Equatable {
        /// A method return with no arguments.
        case empty
        /// `Properties.Get`: one variant.
        case value(Value)
        /// `Properties.GetAll`: a{sv} in interface order.
        case all([Change])
        /// `Introspectable.Introspect`: the XML.
        case xml(String)
        /// A D-Bus error (``DBusError``'s names) with a message for a person.
        case error(name: String, message: String)
    }

    /// What the glue must do, in order.
    public enum Action: Sendable, Equatable {
        /// Answer call `token`.
        case reply(token: UInt64, Reply)
        /// Ask polkit whether `sender` may claim (or release) a sensor; answer
        /// with ``SensorProxyService/authorised(token:allowed:detail:)``.
        case authorise(token: UInt64, sender: String)
        /// Watch `sender` on the bus (its first claim of any kind); call
        /// ``SensorProxyService/left(_:)`` when it is gone (it may be gone already).
        case watch(sender: String)
        /// Stop watching `sender` (it released its last claim).
        case unwatch(sender: String)
        /// A PropertiesChanged signal on object `path` for `interface`, sent to
        /// `destination` only (``SensorProxyService/path`` and
        /// ``SensorProxyService/interface``, or the compass's path and interface).
        case signal(destination: String, path: String, interface: String, changes: [Change])
    }

    /// A property and its value: one change in a PropertiesChanged signal, one
    /// entry of a GetAll reply.
    public struct Change: Sendable, Equatable {
        /// The property name.
        public var name: String
        /// Its new value.
        public var value: Value
        /// A change of property `name` to `value`.
        public init(_ name: String, _ value: Value) {
            self.name = name
            self.value = value
        }
    }

    /// What the daemon currently publishes, as the interface needs it. The
    /// daemon passes a new one to ``SensorProxyService/update(_:)`` whenever any
    /// field changes.
    public struct Reading: Sendable, Equatable {
        /// An accelerometer is present (or a trace is replayed).
        public var hasAccelerometer: Bool
        /// The sensor is being read and the classifier has a physical orientation.
        public var fresh: Bool
        /// The effective orientation (constraints and the lock applied).
        public var orientation: Orientation
        /// The tilt, published beside the orientation.
        public var tilt: Tilt
        /// The ambient light sensor: absent, or its latest level and unit (nil
        /// while it has not been read since it opened).
        public var light: SensorValue<LightLevel>
        /// The proximity sensor: absent, or whether an object is near (nil
        /// while it has not been read, or has stopped answering).
        public var proximity: SensorValue<Bool>
        /// The compass: absent, or the heading in degrees from magnetic north,
        /// [0, 360) (nil while it has not been read).
        public var compass: SensorValue<Double>

        /// A reading with the accelerometer's fields given; the other sensors
        /// are absent unless given.
        public init(
            hasAccelerometer: Bool, fresh: Bool, orientation: Orientation, tilt: Tilt,
            light: SensorValue<LightLevel> = .absent, proximity: SensorValue<Bool> = .absent, compass: SensorValue<Double> = .absent
        ) {
            self.hasAccelerometer = hasAccelerometer
            self.fresh = fresh
            self.orientation = orientation
            self.tilt = tilt
            self.light = light
            self.proximity = proximity
            self.compass = compass
        }
    }
}
