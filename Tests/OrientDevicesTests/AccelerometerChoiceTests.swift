import Testing

@testable import OrientDevices

/// An IIO device as discovery would describe `iio:device<n>` under an I2C bus.
func iioDevice(
    _ n: Int, name: String? = "mxc4005", raw: Bool = true, scan: Bool = false, label: String? = nil,
    location: String? = nil, accelLocation: String? = nil
) -> IIODeviceInfo {
    IIODeviceInfo(
        sysname: "iio:device\(n)", syspath: "/sys/devices/pci0000:00/0000:00:15.1/i2c-\(n)/\(n)-0015/iio:device\(n)",
        devnode: "/dev/iio:device\(n)", name: name, label: label, location: location, accelLocation: accelLocation,
        hasRawAxes: raw, hasScanElements: scan)
}

/// A light sensor: an IIO device without accelerometer axes.
let lightSensor = iioDevice(1, name: "als", raw: false)

@Suite("Accelerometer choice")
struct AccelerometerChoiceTests {
    /// iio-sensor-proxy's test_iio_accel_base_location: the only accelerometer is
    /// labelled `accel-base`, so HasAccelerometer is false.
    @Test("a lone accelerometer in the base is not used (iio-sensor-proxy's test_iio_accel_base_location)")
    func iioSensorProxyBaseLocation() {
        let base = iioDevice(0, name: "IIO Test Accelerometer", label: "accel-base")
        let decision = AccelerometerChoice.choose([base], pinned: nil)
        #expect(decision.chosen == nil)
        #expect(decision.skipped == [.init(device: base, reason: "located in the base (label=accel-base)")])
        #expect(decision.notes.isEmpty)
    }

    @Test(
        "each base marking keeps a sensor out, and the display one beside it is chosen",
        arguments: [
            (iioDevice(0, accelLocation: "base"), "udev ACCEL_LOCATION=base"),
            (iioDevice(0, accelLocation: "base\n"), "udev ACCEL_LOCATION=base"),
            (iioDevice(0, label: "accel-base\n"), "label=accel-base"),
            (iioDevice(0, location: "base\n"), "location=base"),
            (iioDevice(0, label: "accel-base", location: "display"), "label=accel-base"),
            (iioDevice(0, label: "accel-base", location: "base", accelLocation: "base"), "udev ACCEL_LOCATION=base"),
        ])
    func baseSkipped(base: IIODeviceInfo, evidence: String) {
        let display = iioDevice(5, label: "accel-display")
        for devices in [[base, display], [display, base]] {
            let decision = AccelerometerChoice.choose(devices, pinned: nil)
            #expect(decision.chosen == display)
            #expect(decision.skipped == [.init(device: base, reason: "located in the base (\(evidence))")])
        }
    }

    @Test(
        "the first location source that is set decides, so a hwdb ACCEL_LOCATION corrects a wrong label",
        arguments: [
            (iioDevice(0, label: "accel-base", accelLocation: "display"), false),
            (iioDevice(0, label: "accel-display", accelLocation: "base"), true),
            (iioDevice(0, label: "accel-display", location: "base"), false),
            (iioDevice(0, location: "lid"), false),
            (iioDevice(0, label: "accel-base", accelLocation: ""), false),  // empty ACCEL_LOCATION: the display
            (iioDevice(0, label: "", location: "base"), true),  // an empty label is no label
        ])
    func locationPrecedence(device: IIODeviceInfo, inBase: Bool) {
        let decision = AccelerometerChoice.choose([device], pinned: nil)
        #expect((decision.chosen == nil) == inBase)
    }

    @Test(
        "location values are case-sensitive, as the kernel and hwdb write them; unknown ones are noted and ignored",
        arguments: [
            (iioDevice(0, accelLocation: "Base"), ["iio:device0: unrecognised udev ACCEL_LOCATION 'Base'; ignored"]),
            (iioDevice(0, location: "BASE"), ["iio:device0: unrecognised location 'BASE'; ignored"]),
            (iioDevice(0, label: "Accel-Base"), []),
            (iioDevice(0, label: "accel"), []),
        ])
    func caseSensitive(device: IIODeviceInfo, notes: [String]) {
        let decision = AccelerometerChoice.choose([device], pinned: nil)
        #expect(decision.chosen == device)
        #expect(decision.notes == notes)
    }

    @Test("of two display sensors the lower device number wins, in natural order")
    func twoDisplaySensors() {
        let two = iioDevice(2), ten = iioDevice(10)
        for devices in [[two, ten], [ten, two]] {
            let decision = AccelerometerChoice.choose(devices, pinned: nil)
            #expect(decision.chosen == two)
            #expect(decision.skipped == [.init(device: ten, reason: "iio:device2 is preferred")])
        }
    }

    @Test("a sensor that declares the display location is preferred to one that declares nothing")
    func explicitDisplayPreferred() {
        let unlabelled = iioDevice(0), display = iioDevice(3, label: "accel-display")
        #expect(AccelerometerChoice.choose([unlabelled, display], pinned: nil).chosen == display)
        let viaUdev = iioDevice(4, accelLocation: "display")
        #expect(AccelerometerChoice.choose([unlabelled, viaUdev], pinned: nil).chosen == viaUdev)
        #expect(AccelerometerChoice.choose([display, viaUdev], pinned: nil).chosen == display)
    }

    @Test(
        "only devices with x, y and z are accelerometers",
        arguments: [
            (iioDevice(0, raw: true, scan: false), true),
            (iioDevice(0, raw: false, scan: true), true),
            (iioDevice(0, raw: true, scan: true), true),
            (iioDevice(0, name: "als", raw: false, scan: false), false),
        ])
    func accelerometersOnly(device: IIODeviceInfo, isAccelerometer: Bool) {
        #expect(device.isAccelerometer == isAccelerometer)
        let decision = AccelerometerChoice.choose([device], pinned: nil)
        #expect((decision.chosen == device) == isAccelerometer)
    }

    @Test("a light sensor beside an accelerometer is skipped as not an accelerometer")
    func lightSensorSkipped() {
        let accel = iioDevice(3)
        let decision = AccelerometerChoice.choose([lightSensor, accel], pinned: nil)
        #expect(decision.chosen == accel)
        #expect(decision.skipped == [
            .init(device: lightSensor, reason: "not an accelerometer (no in_accel_{x,y,z}_raw or scan elements)")
        ])
        #expect(AccelerometerChoice.choose([lightSensor], pinned: nil).chosen == nil)
        #expect(AccelerometerChoice.choose([], pinned: nil) == .init(chosen: nil, skipped: [], notes: []))
    }

    @Test(
        "a pin matches the syspath, the devnode, the sysname or the name, and wins over the automatic choice",
        arguments: [
            "/sys/devices/pci0000:00/0000:00:15.1/i2c-10/10-0015/iio:device10", "/dev/iio:device10", "iio:device10",
            "bmc150_accel", "iio:device10\n", " bmc150_accel ",
        ])
    func pinnedByEachKey(pin: String) {
        let preferred = iioDevice(2, label: "accel-display")
        let pinned = iioDevice(10, name: "bmc150_accel")
        let decision = AccelerometerChoice.choose([lightSensor, preferred, pinned], pinned: pin)
        #expect(decision.chosen == pinned)
        #expect(decision.notes.isEmpty)
        let trimmed = pin.filter { $0 != "\n" && $0 != " " }
        #expect(decision.skipped.map(\.reason) == Array(repeating: "not the pinned device '\(trimmed)'", count: 2))
    }

    @Test("a pinned sensor in the base is still used, and a note says so")
    func pinnedBase() {
        let base = iioDevice(0, label: "accel-base"), display = iioDevice(1, label: "accel-display")
        let decision = AccelerometerChoice.choose([base, display], pinned: "iio:device0")
        #expect(decision.chosen == base)
        #expect(decision.notes == [
            "using iio:device0 although it is located in the base (label=accel-base), because it is pinned"
        ])
    }

    @Test("a pin that matches nothing chooses nothing, rather than another sensor")
    func pinnedMissing() {
        let display = iioDevice(1)
        let decision = AccelerometerChoice.choose([display], pinned: "/dev/iio:device7")
        #expect(decision.chosen == nil)
        #expect(decision.notes == ["the pinned device '/dev/iio:device7' is not present; waiting for it"])
        #expect(decision.skipped == [.init(device: display, reason: "not the pinned device '/dev/iio:device7'")])
    }

    @Test("a pin naming a light sensor chooses nothing")
    func pinnedNotAccelerometer() {
        let decision = AccelerometerChoice.choose([lightSensor, iioDevice(2)], pinned: "als")
        #expect(decision.chosen == nil)
        #expect(decision.notes == ["the pinned device 'als' is not an accelerometer"])
        #expect(decision.skipped.first?.reason.hasPrefix("pinned, but not an accelerometer") == true)
    }

    @Test("a pinned name shared by several sensors picks among them the usual way, with a note")
    func pinnedNameShared() {
        let base = iioDevice(0, name: "accel_3d", label: "accel-base")
        let lid10 = iioDevice(10, name: "accel_3d", location: "lid")
        let lid9 = iioDevice(9, name: "accel_3d", location: "lid")
        let other = iioDevice(1, name: "mxc4005", label: "accel-display")
        let decision = AccelerometerChoice.choose([base, lid10, other, lid9], pinned: "accel_3d")
        #expect(decision.chosen == lid9)
        #expect(decision.notes == ["the pin 'accel_3d' matches 3 accelerometers: iio:device0, iio:device10, iio:device9"])
        #expect(decision.skipped.map(\.device) == [base, lid10, other])
        #expect(decision.skipped.map(\.reason) == ["iio:device9 is preferred", "iio:device9 is preferred", "not the pinned device 'accel_3d'"])
    }

    @Test("an empty pin means the automatic choice", arguments: [String?.none, "", "\n"])
    func emptyPin(pin: String?) {
        let base = iioDevice(0, label: "accel-base"), display = iioDevice(1)
        #expect(AccelerometerChoice.choose([base, display], pinned: pin).chosen == display)
    }

    @Test(
        "sysnames sort in natural order",
        arguments: [
            ("iio:device2", "iio:device10", true), ("iio:device10", "iio:device2", false), ("iio:device2", "iio:device2", false),
            ("iio:device02", "iio:device2", false), ("iio:device2", "iio:device02", true), ("iio:device", "iio:device0", true), ("a1b2", "a1b10", true),
            ("iio:device9", "trigger0", true), ("iio:device10", "iio:device9x", false),
        ])
    func naturalOrder(a: String, b: String, less: Bool) {
        #expect(naturalSysnameOrder(a, b) == less)
    }
}
