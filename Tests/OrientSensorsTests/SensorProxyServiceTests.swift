import OrientProtocol
import Testing

@testable import OrientSensors

/// The D-Bus side's decisions (SensorProxyService), without a bus: the Tests/dbus
/// suite checks the same through real clients.
@Suite("iio-sensor-proxy's interface")
struct SensorProxyServiceTests {
    static let idle = Service.Reading(hasAccelerometer: true, fresh: false, orientation: .normal, tilt: .vertical)
    static let leftUp = Service.Reading(hasAccelerometer: true, fresh: true, orientation: .leftUp, tilt: .vertical)

    func call(_ member: String, from sender: String = ":1.1", interface: String? = Service.interface,
              signature: String = "", strings: [String] = []) -> Service.Call {
        Service.Call(sender: sender, path: Service.path, interface: interface, member: member, signature: signature, strings: strings)
    }

    @Test("the first claim is answered with the first reading, and the properties hold it")
    func firstClaimWaitsForReading() {
        var service = Service(authorise: false, reading: Self.idle)
        #expect(service.receive(call("ClaimAccelerometer"), token: 1) == [.watch(sender: ":1.1")])
        #expect(service.orientation == .undefined)
        #expect(service.awaitingReading(.accelerometer))
        let actions = service.update(Self.leftUp)
        #expect(actions.first == .reply(token: 1, .empty))
        #expect(actions.dropFirst() == [
            .main(":1.1", Service.Change("AccelerometerOrientation", .string("left-up"))),
            .main(":1.1", Service.Change("AccelerometerTilt", .string("vertical"))),
        ])
        #expect(service.orientation == .leftUp)
    }

    @Test("a second claim from the same sender is a no-op; leaving the bus releases")
    func claimsArePerSender() {
        var service = Service(authorise: false, reading: Self.leftUp)
        _ = service.receive(call("ClaimAccelerometer"), token: 1)
        #expect(service.receive(call("ClaimAccelerometer"), token: 2) == [.reply(token: 2, .empty)])
        #expect(service.claimers == [":1.1"])
        #expect(service.left(":1.1") == [.unwatch(sender: ":1.1")])
        #expect(service.claimers.isEmpty && !service.wantsSensor)
    }

    @Test("changes go to claimers only, one property per signal, and stop when nothing claims")
    func signalsGoToClaimersOnly() {
        var service = Service(authorise: false, reading: Self.leftUp)
        _ = service.receive(call("ClaimAccelerometer", from: ":1.1"), token: 1)
        var turned = Self.leftUp
        turned.orientation = .normal
        turned.tilt = .faceUp
        #expect(service.update(turned) == [
            .main(":1.1", Service.Change("AccelerometerOrientation", .string("normal"))),
            .main(":1.1", Service.Change("AccelerometerTilt", .string("face-up"))),
        ])
        _ = service.receive(call("ReleaseAccelerometer", from: ":1.1"), token: 2)
        #expect(service.update(Self.leftUp).isEmpty)
        #expect(service.orientation == .normal, "values are kept, not reset, on release")
    }

    @Test("polkit: a refused claim is AccessDenied, an allowed one claims")
    func polkit() {
        var service = Service(authorise: true, reading: Self.leftUp)
        #expect(service.receive(call("ClaimAccelerometer"), token: 1) == [.authorise(token: 1, sender: ":1.1")])
        guard case .reply(1, .error(let name, _)) = service.authorised(token: 1, allowed: false).first else {
            Issue.record("no error reply")
            return
        }
        #expect(name == DBusError.accessDenied)
        _ = service.receive(call("ClaimAccelerometer"), token: 2)
        #expect(service.authorised(token: 2, allowed: true).contains(.watch(sender: ":1.1")))
    }

    @Test("a sender leaving while polkit decides gets its answer now, and no claim")
    func leavingWhileAuthorising() {
        var service = Service(authorise: true, reading: Self.leftUp)
        _ = service.receive(call("ClaimAccelerometer"), token: 1)
        guard case .reply(1, .error) = service.left(":1.1").first else {
            Issue.record("the pending call was not answered")
            return
        }
        #expect(service.authorised(token: 1, allowed: true).isEmpty)
        #expect(service.claimers.isEmpty)
    }

    @Test("HasAccelerometer follows hotplug, with the orientation, to claimers")
    func hotplug() {
        var service = Service(authorise: false, reading: Service.Reading(hasAccelerometer: false, fresh: false, orientation: .normal, tilt: .undefined))
        #expect(service.receive(call("ClaimAccelerometer"), token: 1) == [.watch(sender: ":1.1"), .reply(token: 1, .empty)])
        let actions = service.update(Self.leftUp)
        #expect(actions.first == .main(
            ":1.1", Service.Change("HasAccelerometer", .bool(true)), Service.Change("AccelerometerOrientation", .string("left-up")),
            Service.Change("AccelerometerTilt", .string("vertical"))))
        var gone = Self.leftUp
        gone.hasAccelerometer = false
        _ = service.update(gone)
        #expect(service.orientation == .undefined)
    }

    @Test("Get, GetAll, Set and wrong signatures answer as GDBus would")
    func properties() {
        var service = Service(authorise: false, reading: Self.idle)
        let properties = Service.propertiesInterface
        #expect(service.receive(call("Get", interface: properties, signature: "ss", strings: [Service.interface, "HasAccelerometer"]), token: 1)
            == [.reply(token: 1, .value(.bool(true)))])
        guard case .reply(2, .all(let all)) = service.receive(call("GetAll", interface: properties, signature: "s", strings: [Service.interface]), token: 2).first
        else {
            Issue.record("no GetAll answer")
            return
        }
        #expect(all.map(\.name) == ["HasAccelerometer", "AccelerometerOrientation", "AccelerometerTilt", "HasAmbientLight",
                                 "LightLevelUnit", "LightLevel", "HasProximity", "ProximityNear"])
        for (member, signature, expected) in [
            ("Set", "ssv", DBusError.propertyReadOnly), ("Get", "s", DBusError.invalidArgs), ("Frob", "", DBusError.unknownMethod),
        ] {
            guard case .reply(_, .error(let name, _)) = service.receive(call(member, interface: properties, signature: signature), token: 3).first else {
                Issue.record("\(member): no error")
                continue
            }
            #expect(name == expected)
        }
        guard case .reply(4, .error(let name, _)) = service.receive(call("ClaimAccelerometer", signature: "s", strings: ["x"]), token: 4).first else {
            Issue.record("a claim with an argument was not refused")
            return
        }
        #expect(name == DBusError.invalidArgs)
    }

    @Test("claimers beyond the limit get LimitsExceeded")
    func claimerLimit() {
        var limits = Service.Limits()
        limits.claimers = 2
        var service = Service(authorise: false, reading: Self.leftUp, limits: limits)
        for n in 1...3 { _ = service.receive(call("ClaimAccelerometer", from: ":1.\(n)"), token: UInt64(n)) }
        #expect(service.claimers.count == 2)
        guard case .reply(4, .error(let name, _)) = service.receive(call("ClaimAccelerometer", from: ":1.9"), token: 4).first else {
            Issue.record("no error")
            return
        }
        #expect(name == DBusError.limitsExceeded)
    }
}
