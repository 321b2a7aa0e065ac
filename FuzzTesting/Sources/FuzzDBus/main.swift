// fuzz-dbus: what orientd does with the D-Bus calls it receives. sd-bus parses
// the wire format; the bytes here drive SensorProxyService (the decisions of
// the net.hadess.SensorProxy side) through a sequence of events: method calls
// from a handful of senders with any path, interface, member, signature and
// string arguments (the claims and releases of all four kinds among them);
// polkit answers; senders leaving the bus; published readings of the
// accelerometer, light, proximity and compass (absent, not read, or any value,
// NaN and out-of-range ones included); each kind's first-reading bound passing.
//
// Invariants beyond "no crash":
// - every call is answered exactly once (after the pending polkit checks and
//   the first-reading bounds are settled at the end);
// - PropertiesChanged goes only to a current claimer of the kind the properties
//   belong to, on that kind's object and interface, in the kind's groups: one
//   accelerometer property per signal, LightLevelUnit with LightLevel,
//   ProximityNear, CompassHeading; a Has… change first with the kind's values;
// - the senders watched on the bus are exactly the senders claiming anything;
// - each kind's claimers and the pending polkit checks stay within their limits;
// - the published orientation is `undefined` until a claimer had a fresh reading,
//   and then it is a reading's effective orientation;
// - ProximityNear is false without a proximity sensor and, while claimed,
//   whenever the reading is not "near"; CompassHeading is -1 or in [0, 360),
//   and -1 without a compass; LightLevelUnit is lux without a light sensor,
//   and LightLevel finite and not below 0;
// - Get/GetAll answer with iio-sensor-proxy's property types.
import FuzzSupport
import OrientProtocol
import OrientSensors

private let members = [
    "ClaimAccelerometer", "ReleaseAccelerometer", "ClaimLight", "ReleaseLight", "ClaimProximity", "ReleaseProximity",
    "ClaimCompass", "ReleaseCompass", "Get", "GetAll", "Set", "Introspect", "Ping", "",
]
private let interfaces: [String?] = [
    SensorProxyService.interface, SensorProxyService.propertiesInterface, SensorProxyService.introspectableInterface,
    SensorProxyService.compassInterface, nil, "org.freedesktop.DBus.Peer",
]
private let paths = [SensorProxyService.path, SensorProxyService.compassPath, "/", "/net/hadess/SensorProxy/x"]
private let signatures = ["", "s", "ss", "ssv", "u", "sss", "as"]
private let strings = [
    SensorProxyService.interface, SensorProxyService.compassInterface, "HasAccelerometer", "AccelerometerOrientation",
    "AccelerometerTilt", "LightLevel", "LightLevelUnit", "HasAmbientLight", "HasProximity", "ProximityNear", "HasCompass",
    "CompassHeading", "", "net.hadess", "HasAccelerometer\u{0}",
]
private let lightValues: [Double] = [0, 1, 120.5, 120.5, 1e6, -1, .nan, .infinity, -0.0]
private let headings: [Double] = [0, 90, 359.999, 360, -1, 720, .nan, -.infinity, -0.0]

/// Reads the fuzzer's bytes one at a time (zero past the end).
private struct Bytes {
    let buffer: UnsafeBufferPointer<UInt8>
    var index = 0
    var atEnd: Bool { index >= buffer.count }
    mutating func next() -> Int {
        defer { index += 1 }
        return index < buffer.count ? Int(buffer[index]) : 0
    }
    mutating func pick<T>(_ list: [T]) -> T { list[next() % list.count] }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBus(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var bytes = Bytes(buffer: fuzzInput(data, size))
    var limits = SensorProxyService.Limits()
    limits.claimers = 1 + bytes.next() % 4
    limits.pendingAuthorisations = 1 + bytes.next() % 4
    let initial = reading(&bytes)
    var service = SensorProxyService(authorise: bytes.next() % 2 == 0, reading: initial, limits: limits)
    var model = Model()
    model.readings.append(initial)
    var nextToken: UInt64 = 1

    while !bytes.atEnd {
        switch bytes.next() % 6 {
        case 0, 1:
            let signature = bytes.pick(signatures)
            var arguments: [String] = []
            if signature.allSatisfy({ $0 == "s" }) {
                for _ in signature { arguments.append(bytes.pick(strings)) }
            }
            let call = SensorProxyService.Call(
                sender: ":1.\(bytes.next() % 5)", path: bytes.pick(paths), interface: bytes.pick(interfaces),
                member: bytes.pick(members), signature: signature, strings: arguments)
            model.calls[nextToken] = call
            let actions = service.receive(call, token: nextToken)
            nextToken += 1
            model.check(actions, service: service)
        case 2:
            let waiting = model.authorising.sorted()
            guard !waiting.isEmpty else { continue }
            let token = waiting[bytes.next() % waiting.count]
            model.authorising.remove(token)
            model.check(service.authorised(token: token, allowed: bytes.next() % 2 == 0), service: service)
        case 3:
            let sender = ":1.\(bytes.next() % 5)"
            model.check(service.left(sender), service: service)
            model.authorising = model.authorising.filter { !model.answered.contains($0) }
        case 4:
            let new = reading(&bytes)
            model.readings.append(new)
            model.check(service.update(new), service: service)
        default:
            model.check(service.claimTimedOut(bytes.pick(SensorKind.allCases)), service: service)
        }
    }
    // Settle: polkit answers everything, the bound passes; then every call is answered.
    for token in model.authorising.sorted() {
        model.check(service.authorised(token: token, allowed: true), service: service)
    }
    model.authorising = []
    for kind in SensorKind.allCases { model.check(service.claimTimedOut(kind), service: service) }
    for token in model.calls.keys.sorted() {
        fuzzCheck(model.answered.contains(token), "call \(token) (\(model.calls[token].map { "\($0.member) from \($0.sender)" } ?? "")) was never answered")
    }
    return 0
}

private func reading(_ bytes: inout Bytes) -> SensorProxyService.Reading {
    let flags = bytes.next()
    let sensors = bytes.next()
    /// Absent, present but not read, or present with a value (two bits of `sensors` from `shift`).
    func value<Value>(_ shift: Int, _ make: () -> Value) -> SensorValue<Value> {
        switch (sensors >> shift) & 3 {
        case 0: .absent
        case 1: .present(nil)
        default: .present(make())
        }
    }
    let light = value(0) { LightLevel(lightValues[bytes.next() % lightValues.count], unit: flags & 4 != 0 ? .vendor : .lux) }
    let proximity = value(2) { flags & 8 != 0 }
    let compass = value(4) { headings[bytes.next() % headings.count] }
    return SensorProxyService.Reading(
        hasAccelerometer: flags & 1 != 0, fresh: flags & 2 != 0,
        orientation: bytes.pick(Orientation.allCases), tilt: bytes.pick(Tilt.allCases),
        light: light, proximity: proximity, compass: compass)
}

/// The kind each property belongs to.
private func kind(of property: String) -> SensorKind? {
    switch property {
    case "HasAccelerometer", "AccelerometerOrientation", "AccelerometerTilt": .accelerometer
    case "HasAmbientLight", "LightLevelUnit", "LightLevel": .light
    case "HasProximity", "ProximityNear": .proximity
    case "HasCompass", "CompassHeading": .compass
    default: nil
    }
}

/// The property groups a signal of each kind may carry.
private let signalShapes: [[String]] = [
    ["AccelerometerOrientation"], ["AccelerometerTilt"], ["HasAccelerometer", "AccelerometerOrientation", "AccelerometerTilt"],
    ["LightLevelUnit", "LightLevel"], ["HasAmbientLight", "LightLevelUnit", "LightLevel"],
    ["ProximityNear"], ["HasProximity", "ProximityNear"],
    ["CompassHeading"], ["HasCompass", "CompassHeading"],
]

/// What the service has been told and has said, to check its answers against.
private struct Model {
    var calls: [UInt64: SensorProxyService.Call] = [:]
    var answered: Set<UInt64> = []
    var authorising: Set<UInt64> = []
    var watched: Set<String> = []
    var readings: [SensorProxyService.Reading] = []
    var hadClaimedReading = false

    mutating func check(_ actions: [SensorProxyService.Action], service: SensorProxyService) {
        for action in actions {
            switch action {
            case .reply(let token, let reply):
                fuzzCheck(calls[token] != nil, "a reply to call \(token), which was never made")
                fuzzCheck(answered.insert(token).inserted, "call \(token) answered twice")
                if let call = calls[token] { checkReply(reply, to: call) }
            case .authorise(let token, _):
                fuzzCheck(calls[token] != nil && !answered.contains(token), "polkit asked about call \(token), unknown or answered")
                authorising.insert(token)
            case .watch(let sender):
                fuzzCheck(watched.insert(sender).inserted, "\(sender) watched twice")
            case .unwatch(let sender):
                fuzzCheck(watched.remove(sender) != nil, "\(sender) unwatched but never watched")
            case .signal(let destination, let path, let interface, let changes):
                let names = changes.map(\.name)
                fuzzCheck(signalShapes.contains(names), "a signal with properties \(names)")
                guard let kind = names.first.flatMap(kind(of:)) else { continue }
                fuzzCheck(service.claimers(of: kind).contains(destination), "PropertiesChanged \(names) to \(destination), who does not claim the \(kind)")
                let compass = kind == .compass
                fuzzCheck(
                    path == (compass ? SensorProxyService.compassPath : SensorProxyService.path)
                        && interface == (compass ? SensorProxyService.compassInterface : SensorProxyService.interface),
                    "\(names) signalled on \(path) \(interface)")
                for change in changes { checkType(change.name, change.value) }
            }
        }
        fuzzCheck(watched == service.claimingSenders, "watched \(watched.sorted()) but claiming are \(service.claimingSenders.sorted())")
        for kind in SensorKind.allCases {
            fuzzCheck(service.claimers(of: kind).count <= service.limits.claimers, "\(service.claimers(of: kind).count) claimers of the \(kind) over the limit")
        }
        fuzzCheck(service.pendingAuthorisations <= service.limits.pendingAuthorisations, "too many pending polkit checks")
        let reading = service.reading
        if !reading.proximity.isPresent || (service.wants(.proximity) && reading.proximity.value != true) {
            fuzzCheck(!service.proximityNear, "ProximityNear true with proximity \(reading.proximity), claimed: \(service.wants(.proximity))")
        }
        fuzzCheck(
            service.compassHeading == -1 || (service.compassHeading >= 0 && service.compassHeading < 360 && service.compassHeading.sign == .plus),
            "CompassHeading \(service.compassHeading)")
        if !reading.compass.isPresent { fuzzCheck(service.compassHeading == -1, "CompassHeading \(service.compassHeading) without a compass") }
        if !reading.light.isPresent { fuzzCheck(service.lightLevel == LightLevel(0, unit: .lux), "light \(service.lightLevel) without a sensor") }
        fuzzCheck(service.lightLevel.value.isFinite && service.lightLevel.value >= 0 && service.lightLevel.value.sign == .plus, "LightLevel \(service.lightLevel.value)")
        for kind in SensorKind.allCases where kind != .accelerometer {
            let present: Bool
            switch kind {
            case .light: present = service.hasAmbientLight == reading.light.isPresent
            case .proximity: present = service.hasProximity == reading.proximity.isPresent
            default: present = service.hasCompass == reading.compass.isPresent
            }
            fuzzCheck(present, "Has… of the \(kind) differs from the reading")
        }
        if !service.claimers.isEmpty, service.reading.fresh, service.reading.hasAccelerometer { hadClaimedReading = true }
        if !hadClaimedReading {
            fuzzCheck(service.orientation == .undefined, "orientation \(service.orientation) before any claimed reading")
        } else if service.orientation != .undefined {
            fuzzCheck(readings.contains { $0.orientation == service.orientation }, "orientation \(service.orientation) was never read")
        }
    }

    func checkReply(_ reply: SensorProxyService.Reply, to call: SensorProxyService.Call) {
        switch reply {
        case .error(let name, let message):
            fuzzCheck(name.hasPrefix("org.freedesktop.DBus.Error.") && !message.isEmpty, "error \(name): '\(message)'")
        case .all(let properties):
            fuzzCheck(call.member == "GetAll" && (properties.count == 8 || properties.count == 2), "GetAll gave \(properties.count) properties")
            for change in properties { checkType(change.name, change.value) }
        case .value(let value):
            fuzzCheck(call.member == "Get" && call.strings.count == 2, "a value for \(call.member)")
            if call.strings.count == 2 { checkType(call.strings[1], value) }
        case .xml(let text):
            fuzzCheck(call.member == "Introspect" && text.hasPrefix("<!DOCTYPE node"), "introspection for \(call.member)")
        case .empty:
            fuzzCheck(call.member.hasPrefix("Claim") || call.member.hasPrefix("Release"), "an empty return for \(call.member)")
        }
    }

    func checkType(_ name: String, _ value: SensorProxyService.Value) {
        switch (name, value) {
        case ("HasAccelerometer", .bool), ("HasAmbientLight", .bool), ("HasProximity", .bool), ("ProximityNear", .bool),
            ("HasCompass", .bool):
            return
        case ("LightLevel", .double(let level)):
            fuzzCheck(level.isFinite && level >= 0, "LightLevel \(level)")
        case ("CompassHeading", .double(let heading)):
            fuzzCheck(heading == -1 || (heading >= 0 && heading < 360), "CompassHeading \(heading)")
        case ("AccelerometerOrientation", .string(let s)):
            fuzzCheck(Orientation(rawValue: s) != nil, "orientation '\(s)'")
        case ("AccelerometerTilt", .string(let s)):
            fuzzCheck(Tilt(rawValue: s) != nil, "tilt '\(s)'")
        case ("LightLevelUnit", .string(let s)):
            fuzzCheck(s == "lux" || s == "vendor", "light level unit '\(s)'")
        default:
            fuzzCheck(false, "property \(name) has the wrong type: \(value)")
        }
    }
}
