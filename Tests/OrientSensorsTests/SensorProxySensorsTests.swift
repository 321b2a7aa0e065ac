import OrientProtocol
import Testing

@testable import OrientSensors

/// The light, proximity and compass halves of iio-sensor-proxy's interface
/// (SensorProxyService), without a bus.
@Suite("iio-sensor-proxy's interface: light, proximity, compass")
struct SensorProxySensorsTests {
    typealias Change = Service.Change

    static let lux120 = LightLevel(120, unit: .lux)
    static let allSensors = Service.Reading.with(light: .present(lux120), proximity: .present(false), compass: .present(90))

    @Test("claims are per sender and per kind; one bus watch per sender, ended with its last claim")
    func claimsPerSenderPerKind() {
        var service = Service(authorise: false, reading: Self.allSensors)
        #expect(service.receive(Service.call("ClaimLight"), token: 1) == [
            .watch(sender: ":1.1"), .reply(token: 1, .empty),
            .main(":1.1", Change("LightLevelUnit", .string("lux")), Change("LightLevel", .double(120))),
        ])
        #expect(service.receive(Service.call("ClaimProximity"), token: 2).first == .reply(token: 2, .empty))
        #expect(service.receive(Service.call("ClaimLight"), token: 3) == [.reply(token: 3, .empty)], "a second claim is a no-op")
        #expect(service.claimers(of: .light) == [":1.1"] && service.claimers(of: .proximity) == [":1.1"])
        #expect(service.wants(.light) && service.wants(.proximity) && !service.wants(.compass) && !service.wantsSensor)
        #expect(service.claimers.isEmpty, "claimers counts the accelerometer's only")
        #expect(service.receive(Service.call("ReleaseLight"), token: 4) == [.reply(token: 4, .empty)])
        #expect(!service.wants(.light))
        #expect(service.receive(Service.call("ReleaseProximity"), token: 5) == [.unwatch(sender: ":1.1"), .reply(token: 5, .empty)])
        #expect(service.claimingSenders.isEmpty)
    }

    @Test("a sender leaving the bus is released from every kind")
    func leavingReleasesEveryKind() {
        var service = Service(authorise: false, reading: Self.allSensors)
        for (n, member) in ["ClaimAccelerometer", "ClaimLight", "ClaimProximity", "ClaimCompass"].enumerated() {
            _ = service.receive(Service.call(member), token: UInt64(n + 1))
        }
        _ = service.receive(Service.call("ClaimLight", from: ":1.2"), token: 9)
        #expect(service.left(":1.1") == [.unwatch(sender: ":1.1")])
        for kind in SensorKind.allCases { #expect(!service.claimers(of: kind).contains(":1.1")) }
        #expect(service.claimers(of: .light) == [":1.2"])
    }

    @Test("ClaimCompass asks polkit: refused is AccessDenied and no claim, allowed claims")
    func compassClaimIsAuthorised() {
        var service = Service(authorise: true, reading: Self.allSensors)
        #expect(service.receive(Service.call("ClaimCompass"), token: 1) == [.authorise(token: 1, sender: ":1.1")])
        #expect(service.authorised(token: 1, allowed: false).first?.errorName == DBusError.accessDenied)
        #expect(!service.wants(.compass))
        #expect(service.receive(Service.call("ClaimCompass"), token: 2) == [.authorise(token: 2, sender: ":1.1")])
        let allowed = service.authorised(token: 2, allowed: true)
        #expect(allowed.prefix(2) == [.watch(sender: ":1.1"), .reply(token: 2, .empty)])
        #expect(service.claimers(of: .compass) == [":1.1"])
    }

    @Test("releases of light, proximity and compass ask polkit and end only the caller's claim; ReleaseAccelerometer does not ask")
    func releasesAreAuthorised() {
        var service = Service(authorise: false, reading: Self.allSensors)
        for sender in [":1.1", ":1.2"] {
            for member in ["ClaimAccelerometer", "ClaimLight", "ClaimProximity", "ClaimCompass"] {
                _ = service.receive(Service.call(member, from: sender), token: 1)
            }
        }
        service.authorise = true
        for (n, member) in ["ReleaseLight", "ReleaseProximity", "ReleaseCompass"].enumerated() {
            let token = UInt64(10 + n)
            #expect(service.receive(Service.call(member, from: ":1.2"), token: token) == [.authorise(token: token, sender: ":1.2")])
            #expect(service.authorised(token: token, allowed: true) == [.reply(token: token, .empty)])
        }
        #expect(service.receive(Service.call("ReleaseAccelerometer", from: ":1.2"), token: 20) == [.unwatch(sender: ":1.2"), .reply(token: 20, .empty)])
        for kind in SensorKind.allCases { #expect(service.claimers(of: kind) == [":1.1"], "\(kind)") }
        // A refused release keeps the claim.
        _ = service.receive(Service.call("ReleaseLight"), token: 30)
        #expect(service.authorised(token: 30, allowed: false).first?.errorName == DBusError.accessDenied)
        #expect(service.claimers(of: .light) == [":1.1"])
    }

    @Test("PropertiesChanged goes only to that kind's claimers; the compass's on its own object")
    func signalsGoToTheKindsClaimers() {
        var service = Service(authorise: false, reading: Self.allSensors)
        for (sender, member) in [(":1.1", "ClaimLight"), (":1.2", "ClaimProximity"), (":1.3", "ClaimCompass"), (":1.4", "ClaimAccelerometer")] {
            _ = service.receive(Service.call(member, from: sender), token: 1)
        }
        var reading = Self.allSensors
        reading.light = .present(LightLevel(300, unit: .lux))
        #expect(service.update(reading) == [.main(":1.1", Change("LightLevelUnit", .string("lux")), Change("LightLevel", .double(300)))])
        reading.proximity = .present(true)
        #expect(service.update(reading) == [.main(":1.2", Change("ProximityNear", .bool(true)))])
        reading.compass = .present(181.5)
        #expect(service.update(reading) == [.compass(":1.3", Change("CompassHeading", .double(181.5)))])
        #expect(service.update(reading).isEmpty, "nothing changed, nothing sent")
    }

    @Test("LightLevelUnit and LightLevel change together, in one signal, when either changes")
    func lightUnitAndLevelTogether() {
        var service = Service(authorise: false, reading: Self.allSensors)
        _ = service.receive(Service.call("ClaimLight"), token: 1)
        var reading = Self.allSensors
        reading.light = .present(LightLevel(120, unit: .vendor))
        #expect(service.update(reading) == [.main(":1.1", Change("LightLevelUnit", .string("vendor")), Change("LightLevel", .double(120)))])
        #expect(service.get("LightLevelUnit") == .string("vendor"))
    }

    @Test("the first claim of a kind waits for that sensor's first reading; the reply goes before the signal")
    func firstClaimWaitsForItsReading() {
        var service = Service(authorise: false, reading: .with(light: .present(nil)))
        #expect(service.receive(Service.call("ClaimLight"), token: 1) == [.watch(sender: ":1.1")])
        #expect(service.receive(Service.call("ClaimLight", from: ":1.2"), token: 2) == [.watch(sender: ":1.2")], "a claim made while it waits waits too")
        #expect(service.awaitingReading(.light) && !service.awaitingReading(.accelerometer))
        #expect(service.update(.with(light: .present(nil))).isEmpty)
        let actions = service.update(.with(light: .present(Self.lux120)))
        #expect(actions == [
            .reply(token: 1, .empty), .reply(token: 2, .empty),
            .main(":1.1", Change("LightLevelUnit", .string("lux")), Change("LightLevel", .double(120))),
            .main(":1.2", Change("LightLevelUnit", .string("lux")), Change("LightLevel", .double(120))),
        ])
        #expect(!service.awaitingReading(.light))
    }

    @Test("the bound on the first reading answers that kind's held claims, and only those")
    func timeoutAnswersItsKind() {
        var service = Service(authorise: false, reading: .with(light: .present(nil), compass: .present(nil)))
        _ = service.receive(Service.call("ClaimLight"), token: 1)
        _ = service.receive(Service.call("ClaimCompass"), token: 2)
        #expect(service.claimTimedOut(.accelerometer).isEmpty)
        #expect(service.claimTimedOut(.light) == [.reply(token: 1, .empty)])
        #expect(service.awaitingReading(.compass))
        #expect(service.claimTimedOut(.compass) == [.reply(token: 2, .empty)])
        #expect(service.get("LightLevel") == .double(0), "no reading: the level is 0")
    }

    @Test("a claim with no such sensor answers at once; a sensor that goes answers the claims waiting for it")
    func claimsWithoutASensor() {
        var service = Service(authorise: false, reading: .with())
        for member in ["ClaimLight", "ClaimProximity", "ClaimCompass"] {
            #expect(service.receive(Service.call(member), token: 1).contains(.reply(token: 1, .empty)), "\(member)")
        }
        var waiting = Service(authorise: false, reading: .with(proximity: .present(nil)))
        _ = waiting.receive(Service.call("ClaimProximity"), token: 7)
        #expect(waiting.update(.with()).first == .reply(token: 7, .empty))
    }

    @Test("anyone reads HasCompass; only a sender holding a compass claim reads the heading, everyone else -1")
    func headingOnlyToClaimers() {
        var service = Service(authorise: false, reading: .with(compass: .present(nil)))
        _ = service.receive(Service.call("ClaimCompass", from: ":1.1"), token: 1)
        _ = service.update(.with(compass: .present(42)))
        #expect(service.get("CompassHeading", from: ":1.1") == .double(42))
        #expect(service.get("CompassHeading", from: ":1.7") == .double(-1))
        #expect(service.get("HasCompass", from: ":1.7") == .bool(true))
        let getAll = Service.Call(
            sender: ":1.7", path: Service.compassPath, interface: Service.propertiesInterface, member: "GetAll", signature: "s",
            strings: [Service.compassInterface])
        #expect(service.receive(getAll, token: 2) == [.reply(token: 2, .all([Change("HasCompass", .bool(true)), Change("CompassHeading", .double(-1))]))])
        // A sender that claims the accelerometer only is not a compass claimer.
        _ = service.receive(Service.call("ClaimAccelerometer", from: ":1.7"), token: 3)
        #expect(service.get("CompassHeading", from: ":1.7") == .double(-1))
        // Released, the claimer reads -1 too.
        _ = service.receive(Service.call("ReleaseCompass", from: ":1.1"), token: 4)
        #expect(service.get("CompassHeading", from: ":1.1") == .double(-1))
    }

    @Test("a second claimer, who read -1 before its claim, is told the heading the first one keeps")
    func laterClaimerIsToldTheHeading() {
        var service = Service(authorise: false, reading: .with(compass: .present(nil)))
        _ = service.receive(Service.call("ClaimCompass", from: ":1.1"), token: 1)
        _ = service.update(.with(compass: .present(90)))
        #expect(service.get("CompassHeading", from: ":1.2") == .double(-1))
        #expect(service.receive(Service.call("ClaimCompass", from: ":1.2"), token: 2)
            == [.watch(sender: ":1.2"), .reply(token: 2, .empty), .compass(":1.2", Change("CompassHeading", .double(90)))])
        // Without a heading yet, nothing is said: -1 is what it read.
        var unread = Service(authorise: false, reading: .with(compass: .present(nil)))
        _ = unread.receive(Service.call("ClaimCompass", from: ":1.1"), token: 1)
        #expect(!unread.receive(Service.call("ClaimCompass", from: ":1.2"), token: 2).contains { if case .signal = $0 { true } else { false } })
    }

    @Test("without a compass, CompassHeading is -1 (unknown), never 0 (north); so too before a reading and for a bad one")
    func compassHeadingUnknown() {
        var service = Service(authorise: false, reading: .with())
        #expect(service.get("HasCompass") == .bool(false))
        #expect(service.get("CompassHeading") == .double(-1))
        service = Service(authorise: false, reading: .with(compass: .present(nil)))
        _ = service.receive(Service.call("ClaimCompass"), token: 1)
        #expect(service.get("CompassHeading") == .double(-1))
        _ = service.update(.with(compass: .present(42)))
        #expect(service.get("CompassHeading") == .double(42))
        for bad in [Double.nan, .infinity, -3, 360] {
            _ = service.update(.with(compass: .present(bad)))
            #expect(service.get("CompassHeading") == .double(-1), "\(bad)")
            _ = service.update(.with(compass: .present(42)))
        }
        #expect(service.update(.with()) == [.compass(":1.1", Change("HasCompass", .bool(false)), Change("CompassHeading", .double(-1)))])
    }

    @Test("without a light sensor, LightLevelUnit is lux and LightLevel 0; the unit is the sensor's, known before a claim")
    func lightWithoutASensor() {
        var service = Service(authorise: false, reading: .with())
        #expect(service.get("HasAmbientLight") == .bool(false))
        #expect(service.get("LightLevelUnit") == .string("lux"))
        #expect(service.get("LightLevel") == .double(0))
        _ = service.update(.with(light: .present(LightLevel(40, unit: .vendor))))
        #expect(service.get("HasAmbientLight") == .bool(true))
        #expect(service.get("LightLevelUnit") == .string("vendor"))
        #expect(service.get("LightLevel") == .double(0), "the level is frozen while nothing claims")
        _ = service.receive(Service.call("ClaimLight"), token: 1)
        #expect(service.get("LightLevel") == .double(40))
        _ = service.receive(Service.call("ReleaseLight"), token: 2)
        _ = service.update(.with(light: .present(LightLevel(90, unit: .vendor))))
        #expect(service.get("LightLevel") == .double(40), "frozen again after the release")
        _ = service.update(.with())
        #expect(service.get("LightLevelUnit") == .string("lux"))
        #expect(service.get("LightLevel") == .double(0))
    }

    @Test("a light sensor that stops answering keeps its last level; a bad level is not published")
    func lightKeepsItsLevel() {
        var service = Service(authorise: false, reading: .with(light: .present(Self.lux120)))
        _ = service.receive(Service.call("ClaimLight"), token: 1)
        for reading in [SensorValue<LightLevel>.present(nil), .present(LightLevel(.nan, unit: .lux)), .present(LightLevel(-5, unit: .lux))] {
            #expect(service.update(.with(light: reading)).isEmpty)
            #expect(service.get("LightLevel") == .double(120))
        }
    }

    @Test("proximity fails safe: a sensor that stops answering or goes reads far, and its claimers are told")
    func proximityFailsSafe() {
        var service = Service(authorise: false, reading: .with(proximity: .present(true)))
        _ = service.receive(Service.call("ClaimProximity"), token: 1)
        #expect(service.get("ProximityNear") == .bool(true))
        #expect(service.update(.with(proximity: .present(nil))) == [.main(":1.1", Change("ProximityNear", .bool(false)))])
        _ = service.update(.with(proximity: .present(true)))
        #expect(service.update(.with()) == [.main(":1.1", Change("HasProximity", .bool(false)), Change("ProximityNear", .bool(false)))])
        #expect(service.get("ProximityNear") == .bool(false))
    }

    @Test("a near frozen since the last call does not come back with the next claim")
    func proximityNearIsNotStaleOnClaim() {
        var service = Service(authorise: false, reading: .with(proximity: .present(true)))
        _ = service.receive(Service.call("ClaimProximity"), token: 1)
        _ = service.receive(Service.call("ReleaseProximity"), token: 2)
        // Released, the sensor is closed: no reading, the value frozen at near.
        _ = service.update(.with(proximity: .present(nil)))
        #expect(service.get("ProximityNear") == .bool(true))
        let actions = service.receive(Service.call("ClaimProximity"), token: 3)
        #expect(actions == [.watch(sender: ":1.1"), .main(":1.1", Change("ProximityNear", .bool(false)))])
        #expect(service.claimTimedOut(.proximity) == [.reply(token: 3, .empty)])
        #expect(service.get("ProximityNear") == .bool(false))
    }

    @Test("Has… changes go with the kind's values to that kind's claimers, appearing and going")
    func hotplugPerKind() {
        var service = Service(authorise: false, reading: .with())
        _ = service.receive(Service.call("ClaimLight", from: ":1.1"), token: 1)
        _ = service.receive(Service.call("ClaimProximity", from: ":1.2"), token: 2)
        #expect(service.update(.with(light: .present(Self.lux120))) == [
            .main(":1.1", Change("HasAmbientLight", .bool(true)), Change("LightLevelUnit", .string("lux")), Change("LightLevel", .double(120)))
        ])
        #expect(service.update(.with(light: .present(Self.lux120), proximity: .present(nil))) == [
            .main(":1.2", Change("HasProximity", .bool(true)), Change("ProximityNear", .bool(false)))
        ])
        #expect(service.update(.with(proximity: .present(nil))) == [
            .main(":1.1", Change("HasAmbientLight", .bool(false)), Change("LightLevelUnit", .string("lux")), Change("LightLevel", .double(0)))
        ])
    }

    @Test("the claimers limit applies to each kind on its own")
    func limitsPerKind() {
        var limits = Service.Limits()
        limits.claimers = 2
        var service = Service(authorise: false, reading: Self.allSensors, limits: limits)
        for n in 1...2 { _ = service.receive(Service.call("ClaimLight", from: ":1.\(n)"), token: UInt64(n)) }
        #expect(service.receive(Service.call("ClaimLight", from: ":1.3"), token: 3).first?.errorName == DBusError.limitsExceeded)
        #expect(service.claimers(of: .light).count == 2)
        for member in ["ClaimProximity", "ClaimCompass", "ClaimAccelerometer"] {
            #expect(service.receive(Service.call(member, from: ":1.3"), token: 4).contains(.reply(token: 4, .empty)), "\(member)")
        }
    }

    @Test("polkit checks waiting are bounded across kinds")
    func pendingAuthorisationsBounded() {
        var limits = Service.Limits()
        limits.pendingAuthorisations = 2
        var service = Service(authorise: true, reading: Self.allSensors, limits: limits)
        _ = service.receive(Service.call("ClaimLight"), token: 1)
        _ = service.receive(Service.call("ClaimCompass"), token: 2)
        #expect(service.receive(Service.call("ClaimProximity"), token: 3).first?.errorName == DBusError.limitsExceeded)
        #expect(service.left(":1.1").compactMap(\.errorName) == [DBusError.accessDenied, DBusError.accessDenied])
    }

    @Test("GetAll lists the sensors' values in iio-sensor-proxy's order, on each object")
    func getAll() {
        var service = Service(authorise: false, reading: Self.allSensors)
        for member in ["ClaimAccelerometer", "ClaimLight", "ClaimProximity", "ClaimCompass"] { _ = service.receive(Service.call(member), token: 1) }
        #expect(service.properties(of: Service.interface) == [
            Change("HasAccelerometer", .bool(true)), Change("AccelerometerOrientation", .string("normal")),
            Change("AccelerometerTilt", .string("vertical")), Change("HasAmbientLight", .bool(true)),
            Change("LightLevelUnit", .string("lux")), Change("LightLevel", .double(120)), Change("HasProximity", .bool(true)),
            Change("ProximityNear", .bool(false)),
        ])
        #expect(service.properties(of: Service.compassInterface) == [Change("HasCompass", .bool(true)), Change("CompassHeading", .double(90))])
    }

    @Test("the compass's methods live on the compass object only, and the others on the main one")
    func methodsOnTheirObjects() {
        var service = Service(authorise: false, reading: Self.allSensors)
        let onMain = Service.Call(sender: ":1.1", path: Service.path, interface: Service.interface, member: "ClaimCompass", signature: "")
        #expect(service.receive(onMain, token: 1).first?.errorName == DBusError.unknownMethod)
        let onCompass = Service.Call(sender: ":1.1", path: Service.compassPath, interface: nil, member: "ClaimLight", signature: "")
        #expect(service.receive(onCompass, token: 2).first?.errorName == DBusError.unknownMethod)
        #expect(service.receive(Service.call("ClaimCompass", signature: "s", strings: ["x"]), token: 3).first?.errorName == DBusError.invalidArgs)
    }
}
