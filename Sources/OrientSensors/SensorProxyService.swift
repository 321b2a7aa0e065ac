public import OrientProtocol

/// iio-sensor-proxy's D-Bus interface (`net.hadess.SensorProxy`) as a pure state
/// machine: calls, authorisation results, departures from the bus and published
/// readings go in; replies, unicast PropertiesChanged signals and authorisation
/// requests come out. The daemon's sd-bus glue moves the messages; everything
/// the interface decides is here, where tests and the fuzzer reach it without a
/// bus (docs/dbus.md).
///
/// Semantics, as iio-sensor-proxy 3.x has them, for each ``SensorKind``
/// (accelerometer, light, proximity, compass):
/// - claims are per sender and per kind; a second claim is a no-op; a sender
///   that leaves the bus is released from every kind; a sensor runs while
///   anyone claims it (``wants(_:)``);
/// - every claim and release is checked with polkit (the `.authorise` action)
///   when ``authorise`` is set, except `ReleaseAccelerometer`, which only ends
///   the caller's own claim;
/// - the first claim's reply waits for that sensor's first reading (the daemon
///   bounds the wait with ``claimTimedOut(_:)``);
/// - a kind's values are frozen while nothing claims it; the orientation and
///   tilt stay `undefined` until a claim has a reading;
/// - PropertiesChanged goes to that kind's claimers only, never broadcast:
///   orientation and tilt in separate signals, `LightLevelUnit` and
///   `LightLevel` together, the compass on its own object;
/// - without a sensor: `LightLevelUnit` reads `lux` and `LightLevel` 0,
///   `ProximityNear` false, `CompassHeading` −1 (unknown, so that GeoClue does
///   not take it for north); a proximity sensor that is gone or not answering
///   reads far, so that a phone's screen is never left blanked.
public struct SensorProxyService: Sendable {
    /// The well-known bus name.
    public static let busName = "net.hadess.SensorProxy"
    /// The object path of the accelerometer, light and proximity interface.
    public static let path = "/net/hadess/SensorProxy"
    /// The object path of the compass interface.
    public static let compassPath = "/net/hadess/SensorProxy/Compass"
    /// The interface GNOME, KDE and Phosh call.
    public static let interface = "net.hadess.SensorProxy"
    /// The compass interface (GeoClue calls it).
    public static let compassInterface = "net.hadess.SensorProxy.Compass"
    /// The standard properties interface.
    public static let propertiesInterface = "org.freedesktop.DBus.Properties"
    /// The standard introspection interface.
    public static let introspectableInterface = "org.freedesktop.DBus.Introspectable"
    /// The polkit action iio-sensor-proxy checks claims against.
    public static let claimAction = "net.hadess.SensorProxy.claim-sensor"

    /// Bounds that keep a flood of callers from costing the daemon memory.
    public struct Limits: Sendable, Equatable {
        /// Most senders holding a claim of one kind at once (each kind has its own count).
        public var claimers = 256
        /// Most claims and releases waiting for polkit at once.
        public var pendingAuthorisations = 64
        /// The defaults.
        public init() {}
    }

    /// Whether claims ask polkit first.
    public var authorise: Bool
    /// Bounds on claimers and pending authorisations.
    public var limits: Limits

    /// The senders claiming each kind.
    var claims = PerKind<Set<String>>([])
    /// Claim replies held until that kind's first reading (first claim, and the
    /// claims made while it waits).
    var waiting = PerKind<[UInt64]>([])
    /// Calls waiting for polkit: token → (sender, what it asked).
    private var authorising: [UInt64: (sender: String, request: Request)] = [:]
    /// The last reading the daemon published.
    public internal(set) var reading: Reading
    /// The `HasAccelerometer` published on the bus.
    public internal(set) var hasAccelerometer: Bool
    /// The orientation published on the bus (frozen while nothing claims).
    public internal(set) var orientation: Orientation = .undefined
    /// The tilt published on the bus (frozen while nothing claims).
    public internal(set) var tilt: Tilt = .undefined
    /// The `HasAmbientLight` published on the bus.
    public internal(set) var hasAmbientLight: Bool
    /// The `LightLevel` and `LightLevelUnit` published on the bus: the level is
    /// frozen while nothing claims the light sensor; the unit is the sensor's
    /// (`lux` without one, or before its first reading).
    public internal(set) var lightLevel: LightLevel
    /// The `HasProximity` published on the bus.
    public internal(set) var hasProximity: Bool
    /// The `ProximityNear` published on the bus (false without a reading).
    public internal(set) var proximityNear = false
    /// The `HasCompass` published on the bus.
    public internal(set) var hasCompass: Bool
    /// The `CompassHeading` published on the bus: degrees in [0, 360), or
    /// ``CompassHeading/unknown`` (−1).
    public internal(set) var compassHeading = CompassHeading.unknown

    /// What a call asks of a sensor kind.
    enum Request: Sendable, Equatable {
        case claim(SensorKind)
        case release(SensorKind)
    }

    /// A service that asks polkit first when `authorise`, starting from `reading`.
    public init(authorise: Bool, reading: Reading, limits: Limits = Limits()) {
        self.authorise = authorise
        self.reading = reading
        self.limits = limits
        hasAccelerometer = reading.hasAccelerometer
        hasAmbientLight = reading.light.isPresent
        lightLevel = LightLevel(0, unit: reading.light.value?.unit ?? .lux)
        hasProximity = reading.proximity.isPresent
        hasCompass = reading.compass.isPresent
    }

    /// The senders holding an accelerometer claim (the orientation's claimers,
    /// which status counts).
    public var claimers: Set<String> { claims[.accelerometer] }

    /// The senders claiming `kind`.
    public func claimers(of kind: SensorKind) -> Set<String> { claims[kind] }

    /// Every sender holding a claim of any kind: the senders watched on the bus.
    public var claimingSenders: Set<String> {
        SensorKind.allCases.reduce(into: Set<String>()) { $0.formUnion(claims[$1]) }
    }

    /// Someone claims `kind`: the daemon reads that sensor.
    public func wants(_ kind: SensorKind) -> Bool { !claims[kind].isEmpty }

    /// Someone claims the accelerometer: ``wants(_:)`` for `.accelerometer`.
    public var wantsSensor: Bool { wants(.accelerometer) }

    /// A claim reply of `kind` waits for that sensor's first reading: the daemon
    /// bounds the wait and then calls ``claimTimedOut(_:)``.
    public func awaitingReading(_ kind: SensorKind) -> Bool { !waiting[kind].isEmpty }

    /// Calls waiting for polkit.
    public var pendingAuthorisations: Int { authorising.count }

    // MARK: Calls

    /// Handles one method call; `token` names it in the `.reply` that answers it
    /// (now, or later for a held claim or one waiting for polkit).
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
            guard let request = Self.request(call.member, onMain: onMain) else { return [unknownMethod(call, token)] }
            guard call.signature.isEmpty else { return [badSignature(call, token, expected: "")] }
            return handle(request, from: call.sender, token: token)
        default:
            return [.reply(token: token, .error(name: DBusError.unknownInterface, message: "No such interface '\(call.interface ?? "")' on object at path \(call.path)"))]
        }
    }

    /// The claim or release `member` names on the main object or the compass's.
    static func request(_ member: String, onMain: Bool) -> Request? {
        let kinds: [SensorKind] = onMain ? [.accelerometer, .light, .proximity] : [.compass]
        for kind in kinds {
            if member == "Claim" + kind.methodSuffix { return .claim(kind) }
            if member == "Release" + kind.methodSuffix { return .release(kind) }
        }
        return nil
    }

    private mutating func handle(_ request: Request, from sender: String, token: UInt64) -> [Action] {
        // Releasing the accelerometer ends the caller's own claim only, and has
        // never asked polkit here; the other releases ask, as iio-sensor-proxy does.
        if request == .release(.accelerometer) || !authorise { return carryOut(request, for: sender, token: token) }
        guard authorising.count < limits.pendingAuthorisations else {
            return [.reply(token: token, .error(name: DBusError.limitsExceeded, message: "Too many claims waiting for authorisation; try again"))]
        }
        authorising[token] = (sender, request)
        return [.authorise(token: token, sender: sender)]
    }

    /// Polkit's answer to an `.authorise` action (`allowed` false also when polkit
    /// failed; `detail` then says why).
    public mutating func authorised(token: UInt64, allowed: Bool, detail: String? = nil) -> [Action] {
        guard let (sender, request) = authorising.removeValue(forKey: token) else { return [] }
        guard allowed else {
            return [.reply(token: token, .error(name: DBusError.accessDenied, message: "Not Authorized: \(detail ?? "Sensor claim not allowed")"))]
        }
        return carryOut(request, for: sender, token: token)
    }

    private mutating func carryOut(_ request: Request, for sender: String, token: UInt64) -> [Action] {
        switch request {
        case .claim(let kind): return claim(kind, for: sender, token: token)
        case .release(let kind): return release(kind, for: sender) + [.reply(token: token, .empty)]
        }
    }

    private mutating func claim(_ kind: SensorKind, for sender: String, token: UInt64) -> [Action] {
        if claims[kind].contains(sender) {
            // A repeated claim while the first waits for its reading waits with it.
            if awaitingReading(kind) {
                waiting[kind].append(token)
                return []
            }
            return [.reply(token: token, .empty)]
        }
        guard claims[kind].count < limits.claimers else {
            return [.reply(token: token, .error(name: DBusError.limitsExceeded, message: "Too many claimers of the \(kind.rawValue) (limit \(limits.claimers))"))]
        }
        let firstClaim = !claimingSenders.contains(sender)
        claims[kind].insert(sender)
        var actions: [Action] = firstClaim ? [.watch(sender: sender)] : []
        if isPresent(kind), !hasValue(kind) || awaitingReading(kind) {
            waiting[kind].append(token)
            // What the sensor gives without a value is published now (a
            // proximity sensor not read yet reads far): the held reply must not
            // come with a value frozen since the last claim.
            actions += publish(kind)
        } else {
            actions += [.reply(token: token, .empty)]
            let changed = publish(kind)
            actions += changed
            // The heading is -1 to whoever does not hold a claim: a new
            // claimer read that before it claimed, and is told the heading
            // another claimer already keeps (GeoClue would otherwise wait for
            // the next turn; found by make check-ssc).
            if kind == .compass, changed.isEmpty, compassHeading != CompassHeading.unknown {
                actions += signals(.compass, values(.compass)).filter {
                    if case .signal(let destination, _, _, _) = $0 { destination == sender } else { false }
                }
            }
        }
        return actions
    }

    private mutating func release(_ kind: SensorKind, for sender: String) -> [Action] {
        guard claims[kind].remove(sender) != nil else { return [] }
        return claimingSenders.contains(sender) ? [] : [.unwatch(sender: sender)]
    }

    /// `sender` left the bus: its claims of every kind end, and its calls
    /// waiting for polkit are answered now (the bus drops the replies; every
    /// call gets exactly one).
    public mutating func left(_ sender: String) -> [Action] {
        var actions: [Action] = []
        for (token, entry) in authorising.sorted(by: { $0.key < $1.key }) where entry.sender == sender {
            authorising[token] = nil
            actions.append(.reply(token: token, .error(name: DBusError.accessDenied, message: "Not Authorized: the caller left the bus")))
        }
        for kind in SensorKind.allCases { actions += release(kind, for: sender) }
        return actions
    }

    /// The bound on `kind`'s first reading passed: its held replies go out with
    /// what there is.
    public mutating func claimTimedOut(_ kind: SensorKind) -> [Action] { answerWaiting(kind) }

    mutating func answerWaiting(_ kind: SensorKind) -> [Action] {
        let tokens = waiting[kind]
        waiting[kind] = []
        return tokens.map { .reply(token: $0, .empty) }
    }
}

extension SensorKind {
    /// The kind's name in the interface's methods: `ClaimLight`, `ReleaseCompass`.
    var methodSuffix: String {
        switch self {
        case .accelerometer: "Accelerometer"
        case .light: "Light"
        case .proximity: "Proximity"
        case .compass: "Compass"
        }
    }
}
