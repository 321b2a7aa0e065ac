import TestSupport
import Testing

@testable import OrientDevices
import OrientProtocol

private func nearlyEqual(_ a: Vector3, _ b: Vector3, _ tolerance: Double = 1e-9) -> Bool {
    let d = a - b
    return (d * d).sum().squareRoot() <= tolerance
}

private let absent: [String?] = [nil, nil, nil]

@Suite("Axis calibration")
struct AxisCalibrationTests {
    /// iio-sensor-proxy's device fixtures (its tests' `in_accel_scale` and raw values).
    @Test(
        "iio-sensor-proxy's fixtures convert to m/s² with the shared scale",
        arguments: [
            ("0.019163\n", Vector3(523, 13, 5), 10.03),  // Onda v975
            ("0.019163\n", Vector3(8, 521, -67), 10.07),  // Onda v975, right-up
            ("0.306457\n", Vector3(24, 0, -21), 9.77),  // Winbook TW100
        ])
    func iioSensorProxyFixtures(scale: String, raw: Vector3, magnitude: Double) throws {
        let (calibration, warnings) = try AxisCalibration.resolve(
            perAxisScale: absent, sharedScale: scale, perAxisOffset: absent, sharedOffset: nil)
        let value = try #require(DecimalNumber.parse(scale.dropLast()))
        #expect(warnings.isEmpty)
        #expect(calibration == AxisCalibration(scale: Vector3(value, value, value)))
        let a = calibration.apply(raw: raw)
        #expect(nearlyEqual(a, raw * value))
        #expect(abs(length(a) - magnitude) < 0.01)
    }

    /// test_iio_scale_decimal_separator and …_offset, which run under LC_NUMERIC=fr_FR.UTF-8.
    @Test(
        "iio-sensor-proxy's decimal-separator fixtures parse as C-locale numbers",
        arguments: [
            ([nil, nil, nil], "0.0\n"), (["0.0\n", nil, nil], nil),
        ] as [([String?], String?)])
    func decimalSeparatorFixtures(perAxisOffset: [String?], sharedOffset: String?) throws {
        let (calibration, warnings) = try AxisCalibration.resolve(
            perAxisScale: absent, sharedScale: "0.000010\n", perAxisOffset: perAxisOffset, sharedOffset: sharedOffset)
        #expect(warnings.isEmpty)
        #expect(calibration.scale == Vector3(0.00001, 0.00001, 0.00001))
        #expect(calibration.offset == .zero)
    }

    @Test("the Onda v975 reading is about 1 g along x")
    func ondaAxes() throws {
        let (calibration, _) = try AxisCalibration.resolve(
            perAxisScale: absent, sharedScale: "0.019163", perAxisOffset: absent, sharedOffset: nil)
        #expect(nearlyEqual(calibration.apply(raw: Vector3(523, 13, 5)), Vector3(10.022249, 0.249119, 0.095815), 1e-6))
    }

    @Test(
        "a per-axis scale or offset wins over the shared one, axis by axis",
        arguments: [
            (["0.5", "0.25", "2"], "9", [nil, nil, nil], nil, Vector3(0.5, 0.25, 2), Vector3.zero),
            (["0.5", nil, nil], "9", [nil, nil, nil], nil, Vector3(0.5, 9, 9), Vector3.zero),
            ([nil, nil, nil], "0.01", ["1", "-2", nil], "7", Vector3(0.01, 0.01, 0.01), Vector3(1, -2, 7)),
            ([nil, nil, "3"], nil, [nil, nil, nil], "-0.5", Vector3(1, 1, 3), Vector3(-0.5, -0.5, -0.5)),
            (["2", "2", "2"], nil, ["0", "0", "0"], "5", Vector3(2, 2, 2), Vector3.zero),
        ] as [([String?], String?, [String?], String?, Vector3, Vector3)])
    func perAxisFirst(perAxisScale: [String?], sharedScale: String?, perAxisOffset: [String?], sharedOffset: String?,
        scale: Vector3, offset: Vector3) throws {
        let (calibration, _) = try AxisCalibration.resolve(
            perAxisScale: perAxisScale, sharedScale: sharedScale, perAxisOffset: perAxisOffset, sharedOffset: sharedOffset)
        #expect(calibration.scale == scale)
        #expect(calibration.offset == offset)
    }

    @Test("the offset is added to the raw value before scaling")
    func offsetBeforeScale() {
        let calibration = AxisCalibration(scale: Vector3(0.5, 2, 1), offset: Vector3(10, -1, 0))
        #expect(calibration.apply(raw: Vector3(0, 1, 7)) == Vector3(5, 0, 7))
        #expect(AxisCalibration.identity.apply(raw: Vector3(1, -2, 3)) == Vector3(1, -2, 3))
    }

    @Test(
        "surrounding whitespace and the sysfs newline are ignored",
        arguments: ["0.019163\n", " 0.019163", "\t0.019163 \n", "0.019163\r\n", "+0.019163", "1.9163e-2\n"])
    func whitespace(text: String) throws {
        let (calibration, warnings) = try AxisCalibration.resolve(
            perAxisScale: [text, text, text], sharedScale: nil, perAxisOffset: absent, sharedOffset: text)
        #expect(warnings.isEmpty)
        #expect(nearlyEqual(calibration.scale, Vector3(0.019163, 0.019163, 0.019163), 1e-15))
        #expect(nearlyEqual(calibration.offset, Vector3(0.019163, 0.019163, 0.019163), 1e-15))
    }

    @Test("with no scale attribute at all the scale is 1, with a warning")
    func noScale() throws {
        let (calibration, warnings) = try AxisCalibration.resolve(
            perAxisScale: absent, sharedScale: nil, perAxisOffset: absent, sharedOffset: nil)
        #expect(calibration == .identity)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("using scale 1") == true)
        let (short, shortWarnings) = try AxisCalibration.resolve(
            perAxisScale: [], sharedScale: nil, perAxisOffset: [], sharedOffset: nil)
        #expect(short == .identity)
        #expect(shortWarnings == warnings, "missing entries count as absent attributes")
    }

    @Test("an axis left without any scale gets 1 and a warning naming it")
    func oneAxisUnscaled() throws {
        let (calibration, warnings) = try AxisCalibration.resolve(
            perAxisScale: ["0.5", "0.5"], sharedScale: nil, perAxisOffset: absent, sharedOffset: nil)
        #expect(calibration.scale == Vector3(0.5, 0.5, 1))
        #expect(warnings == ["no in_accel_z_scale or in_accel_scale attribute; using scale 1 for z"])
    }

    @Test("a zero per-axis scale falls back to the shared one with a warning")
    func zeroPerAxisScale() throws {
        let (calibration, warnings) = try AxisCalibration.resolve(
            perAxisScale: ["0", "0.5", "0.5"], sharedScale: "0.25", perAxisOffset: absent, sharedOffset: nil)
        #expect(calibration.scale == Vector3(0.25, 0.5, 0.5))
        #expect(warnings == ["in_accel_x_scale is 0; using in_accel_scale for x"])
    }

    @Test(
        "a scale of 0 with nothing to fall back to is an error naming the attribute",
        arguments: [
            (["0.5", "0\n", "0.5"], nil, "in_accel_y_scale"),
            ([nil, nil, nil], "0.000", "in_accel_scale"),
            (["0", nil, nil], "0", "in_accel_scale"),
        ] as [([String?], String?, String)])
    func zeroScale(perAxisScale: [String?], sharedScale: String?, attribute: String) {
        let error = thrownError(CalibrationError.self) {
            try AxisCalibration.resolve(perAxisScale: perAxisScale, sharedScale: sharedScale, perAxisOffset: absent, sharedOffset: nil)
        }
        #expect(error?.attribute == attribute)
        #expect(error?.message.contains("scale of 0") == true)
    }

    /// A comma-decimal locale must never turn `0,019163` into 0 or 19163.
    @Test(
        "a malformed value is an error naming the attribute, never a guess",
        arguments: [
            ("0,019163", "'.' as the decimal point"), ("", "empty"), ("\n", "empty"), ("abc", "not a decimal number"),
            ("0x10", "not a decimal number"), ("nan", "not a decimal number"), ("inf", "not a decimal number"),
            ("1e", "not a decimal number"), ("0.5 0.5", "not a decimal number"), ("1e999", "not a decimal number"),
        ])
    func malformed(text: String, message: String) {
        let cases: [(String, [String?], String?, [String?], String?)] = [
            ("in_accel_scale", absent, text, absent, nil),
            ("in_accel_x_scale", [text, "1", "1"], "1", absent, nil),
            ("in_accel_z_scale", ["1", "1", text], nil, absent, nil),
            ("in_accel_offset", absent, "1", absent, text),
            ("in_accel_y_offset", absent, "1", [nil, text, nil], "0"),
        ]
        for (attribute, perAxisScale, sharedScale, perAxisOffset, sharedOffset) in cases {
            let error = thrownError(CalibrationError.self) {
                try AxisCalibration.resolve(
                    perAxisScale: perAxisScale, sharedScale: sharedScale, perAxisOffset: perAxisOffset, sharedOffset: sharedOffset)
            }
            #expect(error?.attribute == attribute)
            #expect(error?.value == text)
            #expect(error?.message.contains(message) == true, "\(String(describing: error))")
            #expect(error?.description.hasPrefix("\(attribute) '") == true)
        }
    }

    @Test("the config's scale replaces every scale attribute, keeps the offsets, and survives a bad offset")
    func scaleOverride() throws {
        let (calibration, warnings) = try AxisCalibration.resolve(
            perAxisScale: ["0", "x", nil], sharedScale: "1.000000\n", perAxisOffset: [nil, "2", nil], sharedOffset: "1",
            scaleOverride: 0.038307)
        #expect(calibration == AxisCalibration(scale: Vector3(repeating: 0.038307), offset: Vector3(1, 2, 1)))
        #expect(warnings.isEmpty)
        // No scale attribute at all: no "using scale 1" warning, the config said.
        #expect(try AxisCalibration.resolve(
            perAxisScale: absent, sharedScale: nil, perAxisOffset: absent, sharedOffset: nil, scaleOverride: 0.5)
            == (AxisCalibration(scale: Vector3(repeating: 0.5)), warnings: []))
        let (kept, offsetWarnings) = try AxisCalibration.resolve(
            perAxisScale: absent, sharedScale: nil, perAxisOffset: absent, sharedOffset: "1,5", scaleOverride: 0.5)
        #expect(kept == AxisCalibration(scale: Vector3(repeating: 0.5)))
        #expect(offsetWarnings.count == 1 && offsetWarnings[0].hasPrefix("in_accel_offset '1,5': "), "\(offsetWarnings)")
    }
}
