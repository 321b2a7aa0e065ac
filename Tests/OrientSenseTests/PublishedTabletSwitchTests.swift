import Testing

@testable import OrientSense
import OrientProtocol

/// A fake uinput: what each device made was set to, and when it was removed.
private final class FakeUInput {
    var log: [String] = []
    var made = 0
    var failMake: String?
    var failWrite: String?

    final class Device: TabletSwitchDevice {
        let owner: FakeUInput
        let number: Int
        var node: String? { "/dev/input/event\(number)" }
        init(owner: FakeUInput, number: Int) {
            self.owner = owner
            self.number = number
            owner.log.append("create event\(number)")
        }
        deinit { owner.log.append("remove event\(number)") }
        func set(_ on: Bool) throws(TabletSwitchError) {
            if let message = owner.failWrite { throw TabletSwitchError(message) }
            owner.log.append("EV_SW SW_TABLET_MODE \(on ? 1 : 0), SYN_REPORT")
        }
    }

    func publisher() -> PublishedTabletSwitch {
        PublishedTabletSwitch { () throws(TabletSwitchError) -> any TabletSwitchDevice in
            if let message = self.failMake { throw TabletSwitchError(message) }
            self.made += 1
            return Device(owner: self, number: 10 + self.made)
        }
    }
}

/// The hinge detector fed the angles at 10 Hz, the publisher following it.
private func open(
    _ angles: [Double], detector: inout HingeModeDetector, publisher: PublishedTabletSwitch, from t0: Double = 0
) -> Double {
    var t = t0
    for angle in angles {
        // Each angle held for a second: past the detector's motion hold.
        for _ in 0..<10 {
            let pair = hingePair(angle, zSign: detector.config.zSign)
            _ = detector.update(tMs: t, lid: pair.lid, base: pair.base)
            publisher.update(wanted: true, hinge: detector.mode, atMs: t)
            t += 100
        }
    }
    return t
}

@Suite struct PublishedTabletSwitchTests {
    @Test func openingTo270AndBackTogglesTheSwitchAtTheDecisionsAngles() {
        let uinput = FakeUInput()
        let publisher = uinput.publisher()
        var detector = HingeModeDetector(config: HingeConfig())
        var events: [String] = []
        var t = 0.0
        for angle in [90.0, 120, 150, 180, 190, 210, 240, 270, 240, 210, 180, 170, 150, 120, 90] {
            let before = uinput.log.count
            t = open([angle], detector: &detector, publisher: publisher, from: t)
            events += uinput.log[before...].map { "\(Int(angle))°: \($0)" }
        }
        #expect(events == [
            "90°: create event11", "90°: EV_SW SW_TABLET_MODE 0, SYN_REPORT",
            "210°: EV_SW SW_TABLET_MODE 1, SYN_REPORT",
            "150°: EV_SW SW_TABLET_MODE 0, SYN_REPORT",
        ])
        #expect(uinput.made == 1)
        #expect(publisher.state == false && publisher.device?.node == "/dev/input/event11")
    }

    @Test func anUnknownDecisionKeepsTheLastState() {
        let uinput = FakeUInput()
        let publisher = uinput.publisher()
        publisher.update(wanted: true, hinge: .unknown, atMs: 0)
        #expect(uinput.log.isEmpty && publisher.device == nil)
        publisher.update(wanted: true, hinge: .tablet, atMs: 100)
        publisher.update(wanted: true, hinge: .unknown, atMs: 200)
        publisher.update(wanted: true, hinge: .unknown, atMs: 60_000)
        #expect(uinput.log == ["create event11", "EV_SW SW_TABLET_MODE 1, SYN_REPORT"])
        #expect(publisher.state == true)
    }

    @Test func theSameDecisionAgainWritesNothing() {
        let uinput = FakeUInput()
        let publisher = uinput.publisher()
        for t in stride(from: 0.0, to: 1000, by: 100) { publisher.update(wanted: true, hinge: .laptop, atMs: t) }
        #expect(uinput.log == ["create event11", "EV_SW SW_TABLET_MODE 0, SYN_REPORT"])
    }

    @Test func theBaseUnpluggedHoldsTheStateThenReleasesToLaptop() {
        let uinput = FakeUInput()
        let publisher = uinput.publisher()
        publisher.update(wanted: true, hinge: .tablet, atMs: 0)
        publisher.update(wanted: true, hinge: nil, atMs: 1000)
        #expect(publisher.releaseAtMs == 1000 + PublishedTabletSwitch.releaseAfterMs)
        publisher.update(wanted: true, hinge: nil, atMs: 5000)
        publisher.releaseIfDue(atMs: 10_999)
        #expect(publisher.state == true && uinput.log.count == 2)
        publisher.releaseIfDue(atMs: 11_000)
        #expect(uinput.log == ["create event11", "EV_SW SW_TABLET_MODE 1, SYN_REPORT", "EV_SW SW_TABLET_MODE 0, SYN_REPORT", "remove event11"])
        #expect(publisher.device == nil && publisher.state == nil && publisher.releaseAtMs == nil)
    }

    @Test func theBaseBackBeforeTheReleaseKeepsTheDevice() {
        let uinput = FakeUInput()
        let publisher = uinput.publisher()
        publisher.update(wanted: true, hinge: .tablet, atMs: 0)
        publisher.update(wanted: true, hinge: nil, atMs: 1000)
        // Back, deciding again from unknown: the state is kept, the release called off.
        publisher.update(wanted: true, hinge: .unknown, atMs: 3000)
        publisher.releaseIfDue(atMs: 20_000)
        publisher.update(wanted: true, hinge: .tablet, atMs: 20_100)
        #expect(uinput.log == ["create event11", "EV_SW SW_TABLET_MODE 1, SYN_REPORT"])
        #expect(uinput.made == 1)
    }

    @Test func aKernelSwitchOrTheConfigRemovesItAtOnce() {
        let uinput = FakeUInput()
        let publisher = uinput.publisher()
        publisher.update(wanted: false, hinge: .tablet, atMs: 0)
        #expect(uinput.made == 0)
        publisher.update(wanted: true, hinge: .tablet, atMs: 100)
        publisher.update(wanted: false, hinge: .tablet, atMs: 200)
        #expect(uinput.log == ["create event11", "EV_SW SW_TABLET_MODE 1, SYN_REPORT", "EV_SW SW_TABLET_MODE 0, SYN_REPORT", "remove event11"])
        // The kernel's switch gone again: a new device with the decision.
        publisher.update(wanted: true, hinge: .tablet, atMs: 300)
        #expect(uinput.log.suffix(2) == ["create event12", "EV_SW SW_TABLET_MODE 1, SYN_REPORT"])
    }

    @Test func removedInLaptopModeSendsNoExtraEvent() {
        let uinput = FakeUInput()
        let publisher = uinput.publisher()
        publisher.update(wanted: true, hinge: .laptop, atMs: 0)
        publisher.update(wanted: false, hinge: .laptop, atMs: 100)
        #expect(uinput.log == ["create event11", "EV_SW SW_TABLET_MODE 0, SYN_REPORT", "remove event11"])
    }

    @Test func uinputUnavailableIsAProblemAndTheNextDecisionTriesAgain() {
        let uinput = FakeUInput()
        let publisher = uinput.publisher()
        uinput.failMake = "/dev/uinput: cannot open: No such file or directory"
        publisher.update(wanted: true, hinge: .tablet, atMs: 0)
        #expect(publisher.problem == "/dev/uinput: cannot open: No such file or directory")
        #expect(publisher.device == nil && uinput.log.isEmpty)
        uinput.failMake = nil
        publisher.update(wanted: true, hinge: .tablet, atMs: 100)
        #expect(publisher.problem == nil && publisher.state == true)
        #expect(uinput.log == ["create event11", "EV_SW SW_TABLET_MODE 1, SYN_REPORT"])
    }

    @Test func aFailedWriteDropsTheDevice() {
        let uinput = FakeUInput()
        let publisher = uinput.publisher()
        publisher.update(wanted: true, hinge: .laptop, atMs: 0)
        uinput.failWrite = "write: No such device"
        publisher.update(wanted: true, hinge: .tablet, atMs: 100)
        #expect(publisher.problem == "write: No such device" && publisher.device == nil)
        #expect(uinput.log.last == "remove event11")
        uinput.failWrite = nil
        publisher.update(wanted: true, hinge: .tablet, atMs: 200)
        #expect(uinput.log.suffix(2) == ["create event12", "EV_SW SW_TABLET_MODE 1, SYN_REPORT"])
    }

    @Test func uinputCheckedUnusableBeforeADecisionIsAProblemUntilCheckedAgain() {
        let uinput = FakeUInput()
        let publisher = uinput.publisher()
        publisher.checked("cannot open /dev/uinput: No such file or directory")
        #expect(publisher.problem == "cannot open /dev/uinput: No such file or directory" && uinput.log.isEmpty)
        publisher.update(wanted: true, hinge: .unknown, atMs: 0)
        #expect(publisher.problem != nil && publisher.device == nil)
        publisher.checked(nil)
        #expect(publisher.problem == nil)
        publisher.update(wanted: true, hinge: .laptop, atMs: 100)
        #expect(uinput.log == ["create event11", "EV_SW SW_TABLET_MODE 0, SYN_REPORT"])
    }

    @Test func turnedOffWhileFailingClearsTheProblem() {
        let uinput = FakeUInput()
        let publisher = uinput.publisher()
        uinput.failMake = "no uinput"
        publisher.update(wanted: true, hinge: .tablet, atMs: 0)
        publisher.update(wanted: false, hinge: .tablet, atMs: 100)
        #expect(publisher.problem == nil)
    }
}
