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
        case bool(Bool)
        case string(String)
        case double(Double)
    }

    /// The answer to one call.
    public enum Reply: Sendable, Equatable {
        /// A method return with no arguments.
        case empty
        /// `Properties.Get`: one variant.
        case value(Value)
        /// `Properties.GetAll`: a{sv} in interface order.
        case all([(String, Value)])
        /// `Introspectable.Introspect`: the XML.
        case xml(String)
        case error(name: String, message: String)

        /// Equal when the same reply would go out.
        public static func == (a: Reply, b: Reply) -> Bool {
            switch (a, b) {
            case (.empty, .empty): return true
            case (.value(let x), .value(let y)): return x == y
            case (.all(let x), .all(let y)): return x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
            case (.xml(let x), .xml(let y)): return x == y
            case (.error(let n1, let m1), .error(let n2, let m2)): return n1 == n2 && m1 == m2
            default: return false
            }
        }
    }

    /// What the glue must do, in order.
    public enum Action: Sendable, Equatable {
        /// Answer call `token`.
        case reply(token: UInt64, Reply)
        /// Ask polkit whether `sender` may claim; answer with ``authorised(token:allowed:detail:)``.
        case authorise(token: UInt64, sender: String)
        /// Watch `sender` on the bus; call ``left(_:)`` when it is gone (it may be gone already).
        case watch(sender: String)
        /// Stop watching `sender`.
        case unwatch(sender: String)
        /// A PropertiesChanged signal on `path` for `interface`, sent to `destination` only.
        case signal(destination: String, changes: [Change])

        /// Equal when the same action would be taken.
        public static func == (a: Action, b: Action) -> Bool {
            switch (a, b) {
            case (.reply(let t1, let r1), .reply(let t2, let r2)): return t1 == t2 && r1 == r2
            case (.authorise(let t1, let s1), .authorise(let t2, let s2)): return t1 == t2 && s1 == s2
            case (.watch(let x), .watch(let y)), (.unwatch(let x), .unwatch(let y)): return x == y
            case (.signal(let d1, let c1), .signal(let d2, let c2)): return d1 == d2 && c1 == c2
            default: return false
            }
        }
    }

    /// One changed property.
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

    /// What the daemon currently publishes, as the interface needs it.
    public struct Reading: Sendable, Equatable {
        /// An accelerometer is present (or a trace is replayed).
        public var hasAccelerometer: Bool
        /// The sensor is being read and the classifier has a physical orientation.
        public var fresh: Bool
        /// The effective orientation (constraints and the lock applied).
        public var orientation: Orientation
        /// The tilt, published beside the orientation.
        public var tilt: Tilt

        /// A reading with every field given.
        public init(hasAccelerometer: Bool, fresh: Bool, orientation: Orientation, tilt: Tilt) {
            self.hasAccelerometer = hasAccelerometer
            self.fresh = fresh
            self.orientation = orientation
            self.tilt = tilt
        }
    }
}
