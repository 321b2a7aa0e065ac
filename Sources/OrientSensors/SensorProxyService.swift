public import OrientProtocol

/// iio-sensor-proxy's D-Bus interface (`net.hadess.SensorProxy`) as a pure state
/// machine: calls, authorisation results, departures from the bus and published
/// states go in; replies, unicast PropertiesChanged signals and authorisation
/// requests come out. The daemon's sd-bus glue moves the messages; everything
/// the interface decides is here, where tests and the fuzzer reach it without a
/// bus (docs/dbus.md).
///
/// Semantics, as iio-sensor-proxy 3.x has them:
/// - claims are per sender; a second claim is a no-op; a sender that leaves
///   the bus is released; the sensor runs while anyone claims;
/// - `AccelerometerOrientation`/`AccelerometerTilt` stay `undefined` until a
///   claim has a reading; the first claim's reply waits for that reading (the
///   daemon bounds the wait with ``claimTimedOut()``);
/// - PropertiesChanged goes to each claimer, never broadcast: orientation and
///   tilt in separate signals, one per change;
/// - the light, proximity and compass methods answer as iio-sensor-proxy does
///   on a machine without those sensors, and their properties keep their defaults.
public struct SensorProxyService: Sendable {
    /// The well-known bus name.
    public static let busName = "net.hadess.SensorProxy"
    /// The object path of the accelerometer, light and proximity interface.
    public static let path = "/net/hadess/SensorProxy"
    /// The object path of the compass interface.
    public static let compassPath = "/net/hadess/SensorProxy/Compass"
    /// The interface GNOME, KDE and Phosh call.
    public static let interface = "net.hadess.SensorProxy"
    /// The compass interface (answered: no compass).
    public static let compassInterface = "net.hadess.SensorProxy.Compass"
    /// The standard properties interface.
    public static let propertiesInterface = "org.freedesktop.DBus.Properties"
    /// The standard introspection interface.
    public static let introspectableInterface = "org.freedesktop.DBus.Introspectable"
    /// The polkit action iio-sensor-proxy checks claims against.
    public static let claimAction = "net.hadess.SensorProxy.claim-sensor"

    /// Bounds that keep a flood of callers from costing the daemon memory.
    public struct Limits: Sendable, Equatable {
        /// Most senders holding an accelerometer claim at once.
        public var claimers = 256
        /// Most claims waiting for polkit at once.
        public var pendingAuthorisations = 64
        /// The defaults.
        public init() {}
    }

    /// Whether claims ask polkit first.
    public var authorise: Bool
    /// Bounds on claimers and pending authorisations.
    public var limits: Limits

    /// Senders holding an accelerometer claim.
    public private(set) var claimers: Set<String> = []
    /// Claim replies held until the first reading (first claim) or until polkit answers.
    public private(set) var waitingForReading: [UInt64] = []
    /// Claims waiting for polkit: token → (sender, what is claimed).
    private var authorising: [UInt64: (sender: String, kind: ClaimKind)] = [:]
    /// The last reading the daemon published.
    public private(set) var reading: Reading
    /// The values published on the bus (frozen while nothing claims).
    public private(set) var orientation: Orientation = .undefined
    /// The tilt published on the bus (frozen while nothing claims).
    public private(set) var tilt: Tilt = .undefined
    /// The `HasAccelerometer` published on the bus.
    public private(set) var hasAccelerometer: Bool

    private enum ClaimKind: Sendable {
        case accelerometer
        /// Light and proximity: answered after polkit, nothing to sample.
        case other
    }

    /// A service that asks polkit first when `authorise`, starting from `reading`.
    public init(authorise: Bool, reading: Reading, limits: Limits = Limits()) {
        self.authorise = authorise
        self.reading = reading
        self.limits = limits
        hasAccelerometer = reading.hasAccelerometer
    }

    /// A reading counts only from a sensor that is there.
    private var readingIsFresh: Bool { reading.fresh && reading.hasAccelerometer }

    /// The sensor is needed: someone claims, or a claim waits for polkit or a reading.
    public var wantsSensor: Bool { !claimers.isEmpty }

    /// A claim reply waits for the first reading: the daemon bounds the wait.
    public var awaitingReading: Bool { !waitingForReading.isEmpty }

    /// Claims waiting for polkit.
    public var pendingAuthorisations: Int { authorising.count }

    // MARK: Calls

    /// Handles one method call; `token` names it in the `.reply` that answers it
    /// (now, or later for a held claim).
    public mutating func receive(_ call: Call, token: UInt64) -> [Action] {
        let onMain = call.path == Self.path
        guard onMain || call.path == Self.compassPath else {
            return [.reply(token: token, .error(name: DBusError.unknownObject, message: "No such object path '\(call.path)'"))]
        }
        let own = onMain ? Self.interface : Self.compassInterface
        switch call.interface {
        case Self.propertiesInterface?:
            return [.reply(token: token, properties(call, own: own))]
        case Self.introspectableInterface?:
            guard call.member == "Introspect" else { return [unknownMethod(call, token)] }
            guard call.signature.isEmpty else { return [badSignature(call, token, expected: "")] }
            return [.reply(token: token, .xml(onMain ? SensorProxyIntrospection.main : SensorProxyIntrospection.compass))]
        case own?, nil:
            guard call.signature.isEmpty || !methodNames(own).contains(call.member) else {
                return [badSignature(call, token, expected: "")]
            }
            return method(call, token: token, onMain: onMain)
        default:
            return [.reply(token: token, .error(name: DBusError.unknownInterface, message: "No such interface '\(call.interface ?? "")' on object at path \(call.path)"))]
        }
    }

    private func methodNames(_ interface: String) -> [String] {
        interface == Self.interface
            ? ["ClaimAccelerometer", "ReleaseAccelerometer", "ClaimLight", "ReleaseLight", "ClaimProximity", "ReleaseProximity"]
            : ["ClaimCompass", "ReleaseCompass"]
    }

    private mutating func method(_ call: Call, token: UInt64, onMain: Bool) -> [Action] {
        switch (onMain, call.member) {
        case (true, "ClaimAccelerometer"): return claim(call.sender, .accelerometer, token: token)
        case (true, "ReleaseAccelerometer"): return release(call.sender) + [.reply(token: token, .empty)]
        case (true, "ClaimLight"), (true, "ClaimProximity"): return claim(call.sender, .other, token: token)
        // Without such sensors a release has nothing to stop, and iio-sensor-proxy
        // checks polkit for it as for a claim: answered the same way.
        case (true, "ReleaseLight"), (true, "ReleaseProximity"): return claim(call.sender, .other, token: token)
        // iio-sensor-proxy asks polkit for none of the compass methods.
        case (false, "ClaimCompass"), (false, "ReleaseCompass"): return [.reply(token: token, .empty)]
        default: return [unknownMethod(call, token)]
        }
    }

    private mutating func claim(_ sender: String, _ kind: ClaimKind, token: UInt64) -> [Action] {
        guard authorise else { return granted(sender, kind, token: token) }
        guard authorising.count < limits.pendingAuthorisations else {
            return [.reply(token: token, .error(name: DBusError.limitsExceeded, message: "Too many claims waiting for authorisation; try again"))]
        }
        authorising[token] = (sender, kind)
        return [.authorise(token: token, sender: sender)]
    }

    /// Polkit's answer to an `.authorise` action (`allowed` false also when polkit
    /// failed; `detail` then says why).
    public mutating func authorised(token: UInt64, allowed: Bool, detail: String? = nil) -> [Action] {
        guard let (sender, kind) = authorising.removeValue(forKey: token) else { return [] }
        guard allowed else {
            return [.reply(token: token, .error(name: DBusError.accessDenied, message: "Not Authorized: \(detail ?? "Sensor claim not allowed")"))]
        }
        return granted(sender, kind, token: token)
    }

    private mutating func granted(_ sender: String, _ kind: ClaimKind, token: UInt64) -> [Action] {
        guard kind == .accelerometer else { return [.reply(token: token, .empty)] }
        if claimers.contains(sender) {
            // A repeated claim while the first waits for its reading waits with it.
            if awaitingReading {
                waitingForReading.append(token)
                return []
            }
            return [.reply(token: token, .empty)]
        }
        guard claimers.count < limits.claimers else {
            return [.reply(token: token, .error(name: DBusError.limitsExceeded, message: "Too many claimers (limit \(limits.claimers))"))]
        }
        claimers.insert(sender)
        var actions: [Action] = [.watch(sender: sender)]
        if hasAccelerometer, !readingIsFresh || awaitingReading {
            waitingForReading.append(token)
        } else {
            actions += [.reply(token: token, .empty)]
            actions += publish(to: claimers)
        }
        return actions
    }

    private mutating func release(_ sender: String) -> [Action] {
        guard claimers.remove(sender) != nil else { return [] }
        return [.unwatch(sender: sender)]
    }

    /// `sender` left the bus: its claims end, and its claims waiting for polkit
    /// are answered now (the bus drops the replies; every call gets exactly one).
    public mutating func left(_ sender: String) -> [Action] {
        var actions: [Action] = []
        for (token, entry) in authorising.sorted(by: { $0.key < $1.key }) where entry.sender == sender {
            authorising[token] = nil
            actions.append(.reply(token: token, .error(name: DBusError.accessDenied, message: "Not Authorized: the caller left the bus")))
        }
        return actions + release(sender)
    }

    // MARK: Readings

    /// The daemon published a state: update the properties and tell the claimers.
    public mutating func update(_ new: Reading) -> [Action] {
        reading = new
        var actions: [Action] = []
        if new.hasAccelerometer != hasAccelerometer {
            hasAccelerometer = new.hasAccelerometer
            if !hasAccelerometer {
                orientation = .undefined
                tilt = .undefined
                // Held claims were waiting for a sensor that is gone: answered now.
                actions += answerWaiting()
            }
            var changes = [Change("HasAccelerometer", .bool(hasAccelerometer))]
            if readingIsFresh, !claimers.isEmpty {
                orientation = new.orientation
                tilt = new.tilt
            }
            changes += [Change("AccelerometerOrientation", .string(orientation.rawValue)), Change("AccelerometerTilt", .string(tilt.rawValue))]
            for claimer in claimers.sorted() { actions.append(.signal(destination: claimer, changes: changes)) }
        }
        guard readingIsFresh, !claimers.isEmpty else { return actions }
        // The held replies go before the signals: the properties already hold the
        // reading, and a client that takes its first values from the properties
        // after the reply and then follows the signals (Debian's monitor-sensor)
        // misses nothing.
        let replies = answerWaiting()
        return actions + replies + publish(to: claimers)
    }

    /// The bound on the first reading passed: the held replies go out with what there is.
    public mutating func claimTimedOut() -> [Action] { answerWaiting() }

    private mutating func answerWaiting() -> [Action] {
        let tokens = waitingForReading
        waitingForReading = []
        return tokens.map { .reply(token: $0, .empty) }
    }

    /// Takes the reading's values when they differ from the published ones; one
    /// signal per changed property per claimer.
    private mutating func publish(to destinations: Set<String>) -> [Action] {
        guard readingIsFresh else { return [] }
        var changes: [Change] = []
        if reading.orientation != orientation {
            orientation = reading.orientation
            changes.append(Change("AccelerometerOrientation", .string(orientation.rawValue)))
        }
        if reading.tilt != tilt {
            tilt = reading.tilt
            changes.append(Change("AccelerometerTilt", .string(tilt.rawValue)))
        }
        var actions: [Action] = []
        for change in changes {
            for destination in destinations.sorted() { actions.append(.signal(destination: destination, changes: [change])) }
        }
        return actions
    }

    // MARK: Properties

    /// Every property of `interface`, in iio-sensor-proxy's order.
    public func properties(of interface: String) -> [Change]? {
        switch interface {
        case Self.interface:
            return [
                Change("HasAccelerometer", .bool(hasAccelerometer)),
                Change("AccelerometerOrientation", .string(orientation.rawValue)),
                Change("AccelerometerTilt", .string(tilt.rawValue)),
                Change("HasAmbientLight", .bool(false)),
                Change("LightLevelUnit", .string("vendor")),
                Change("LightLevel", .double(0)),
                Change("HasProximity", .bool(false)),
                Change("ProximityNear", .bool(false)),
            ]
        case Self.compassInterface:
            return [Change("HasCompass", .bool(false)), Change("CompassHeading", .double(0))]
        default:
            return nil
        }
    }

    private func properties(_ call: Call, own: String) -> Reply {
        func noInterface(_ name: String) -> Reply {
            .error(name: DBusError.invalidArgs, message: "No such interface '\(name)' on object at path \(call.path)")
        }
        switch call.member {
        case "Get":
            guard call.signature == "ss", call.strings.count == 2 else { return badArguments(call, expected: "ss") }
            guard call.strings[0] == own, let all = properties(of: own) else { return noInterface(call.strings[0]) }
            guard let value = all.first(where: { $0.name == call.strings[1] })?.value else {
                return .error(name: DBusError.invalidArgs, message: "No such property '\(call.strings[1])'")
            }
            return .value(value)
        case "GetAll":
            guard call.signature == "s", call.strings.count == 1 else { return badArguments(call, expected: "s") }
            guard call.strings[0] == own, let all = properties(of: own) else { return noInterface(call.strings[0]) }
            return .all(all)
        case "Set":
            guard call.signature == "ssv" else { return badArguments(call, expected: "ssv") }
            return .error(name: DBusError.propertyReadOnly, message: "Every property of \(own) is read-only")
        default:
            return .error(name: DBusError.unknownMethod, message: "No such method '\(call.member)' in \(Self.propertiesInterface)")
        }
    }

    private func badArguments(_ call: Call, expected: String) -> Reply {
        .error(name: DBusError.invalidArgs, message: "Type of message, '(\(call.signature))', does not match expected type '(\(expected))'")
    }

    private func badSignature(_ call: Call, _ token: UInt64, expected: String) -> Action {
        .reply(token: token, badArguments(call, expected: expected))
    }

    private func unknownMethod(_ call: Call, _ token: UInt64) -> Action {
        .reply(token: token, .error(name: DBusError.unknownMethod, message: "Method '\(call.member)' does not exist on object \(call.path)"))
    }
}
