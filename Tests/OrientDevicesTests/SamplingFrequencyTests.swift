import Testing

@testable import OrientDevices

@Suite("Sampling frequency")
struct SamplingFrequencyTests {
    /// iio-sensor-proxy's test_iio_poll_accel: `sampling_frequency` 5.2, no
    /// `_available` list; iio-sensor-proxy leaves 10 behind, orientd the 20 Hz
    /// its classifier wants (a HID hub's 100 ms report interval is 10 Hz).
    @Test("a rate below the target with no available list is raised to it (iio-sensor-proxy's test_iio_poll_accel, a HID hub)")
    func iioSensorProxyPollAccel() {
        #expect(SamplingFrequency.choose(available: nil, current: "5.2") == 20)
        #expect(SamplingFrequency.choose(available: nil, current: "5.2\n") == 20)
        #expect(SamplingFrequency.choose(available: nil, current: "10.000000\n") == 20)
        #expect(SamplingFrequency.choose(available: nil, current: "10", target: 25) == 25)
        #expect(SamplingFrequency.sysfsText(20) == "20")
    }

    @Test(
        "without an available list only a rate below the target is changed",
        arguments: [
            (String?("0\n"), Double?(20)), ("9.999", 20), ("10", 20), ("19.999", 20), ("20", nil), ("20.000000\n", nil),
            ("25", nil), ("400", nil), (nil, nil), ("fast", nil), ("", nil), ("-1", 20),
        ])
    func noList(current: String?, expected: Double?) {
        #expect(SamplingFrequency.choose(available: nil, current: current) == expected)
        #expect(SamplingFrequency.choose(available: "\n", current: current) == expected, "an empty list is no list")
    }

    @Test(
        "from a list, the value nearest 20 Hz among those of at least 10 Hz",
        arguments: [
            ("1.5625 3.125 6.25 12.5 25 50 100 200 400 800", 25.0),  // bma250e-style
            ("10 20 50", 20),
            ("1 2 5", 5),  // none reaches 10: the largest
            ("0.781000 1.563000 3.125000 6.250000 12.500000 25.000000 50.000000 100.000000\n", 25),
            ("100 50 25 12.5\n", 25),  // order does not matter
            ("12.5 26", 26),  // 6 from 20 beats 7.5
            ("5 10 30", 10),  // a tie goes to the lower rate
            ("200 400", 200),  // all above: the nearest is the lowest
            ("9.9", 9.9),
            ("0 1.5", 1.5),
            ("  13  \t 19 ", 19),
            ("20", 20),
        ])
    func fromList(available: String, expected: Double) {
        #expect(SamplingFrequency.choose(available: available, current: nil) == expected)
        #expect(SamplingFrequency.choose(available: available, current: "1") == expected)
    }

    @Test(
        "a range [min step max] is searched like the list it stands for",
        arguments: [
            ("[1 1 100]", 20.0), ("[1 1 100]\n", 20), ("[0.5 0.5 8]", 8), ("[5 10 95]", 15), ("[5 10 95] ", 15),
            ("[12 7 40]", 19), ("[25 25 400]", 25), ("[1 3 12]", 10), ("[0 4 100]", 20), ("[100 1 1000]", 100),
            ("[2.5 2.5 30]", 20), ("[11 20 11]", 11),
        ])
    func fromRange(available: String, expected: Double) {
        let chosen = SamplingFrequency.choose(available: available, current: nil)
        #expect(chosen.map { abs($0 - expected) < 1e-9 } == true, "\(String(describing: chosen))")
    }

    @Test(
        "a malformed list leaves the rate alone",
        arguments: [
            "1,5 3,125 6,25", "10 20 fast", "[1 1 100", "1 1 100]", "[1 100]", "[1 1 1 100]", "[1 0 100]", "[1 -1 100]",
            "[100 1 1]", "-5 10", "10 nan", "0x10", "[]",
        ])
    func malformed(available: String) {
        #expect(SamplingFrequency.choose(available: available, current: "1") == nil)
    }

    @Test("nothing is written when the rate already is the one chosen")
    func alreadyChosen() {
        #expect(SamplingFrequency.choose(available: "10 20 50", current: "20\n") == nil)
        #expect(SamplingFrequency.choose(available: "10 20 50", current: "20.000000") == nil)
        #expect(SamplingFrequency.choose(available: "10 20 50", current: "50") == 20)
        #expect(SamplingFrequency.choose(available: "[1 1 100]", current: "20") == nil)
    }

    @Test("target and minimum can be changed", arguments: [
        (100.0, 10.0, "12.5 25 50 100 200", Double?(100)), (5, 1, "1 2 4 8", 4), (20, 30, "10 20 50", 50),
    ])
    func customTarget(target: Double, minimum: Double, available: String, expected: Double?) {
        #expect(SamplingFrequency.choose(available: available, current: nil, target: target, minimum: minimum) == expected)
    }

    @Test(
        "frequencies are written as plain decimals",
        arguments: [(10.0, "10"), (12.5, "12.5"), (1.5625, "1.5625"), (0.781, "0.781"), (20.0000001, "20"), (1e-7, "0"),
            (0.000002, "0.000002"), (800, "800"), (1234567.25, "1234567.25")])
    func sysfsText(hz: Double, text: String) {
        #expect(SamplingFrequency.sysfsText(hz) == text)
    }
}
