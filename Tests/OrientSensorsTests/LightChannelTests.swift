import TestSupport
import Testing

@testable import OrientSensors

@Suite("Light channels and their levels")
struct LightChannelTests {
    @Test("find picks every spelling of a light channel, _input before _raw, with its own attributes", arguments: [
        (["in_illuminance_input"], "in_illuminance_input"),
        (["in_illuminance0_input"], "in_illuminance0_input"),
        (["in_illuminance_raw"], "in_illuminance_raw"),
        (["in_illuminance0_raw"], "in_illuminance0_raw"),
        (["in_illuminance_clear_raw"], "in_illuminance_clear_raw"),
        (["in_intensity_clear_raw"], "in_intensity_clear_raw"),
        (["in_illuminance_raw", "in_illuminance_input"], "in_illuminance_input"),
        (["in_illuminance0_raw", "in_illuminance_raw"], "in_illuminance_raw"),
        (["in_intensity_clear_raw", "in_illuminance_clear_raw"], "in_illuminance_clear_raw"),
    ])
    func findsEverySpelling(attributes: [String], expected: String) throws {
        let channel = try #require(LightChannel.find(in: Set(attributes)))
        #expect(channel.value == expected)
        #expect(channel.isProcessed == expected.hasSuffix("_input"))
    }

    @Test("find gives nil on a device with no light channel")
    func noChannel() {
        #expect(LightChannel.find(in: []) == nil)
        #expect(LightChannel.find(in: ["in_proximity_raw", "in_illuminance_scale", "in_intensity_both_raw"]) == nil)
    }

    @Test("a channel's own scale, offset and integration time come before its type's")
    func ownAttributesFirst() throws {
        let own = try #require(LightChannel.find(in: [
            "in_illuminance0_raw", "in_illuminance0_scale", "in_illuminance_scale", "in_illuminance0_offset", "in_illuminance0_integration_time",
            "integration_time",
        ]))
        #expect(own.scale == "in_illuminance0_scale" && own.offset == "in_illuminance0_offset")
        #expect(own.integrationTime == "in_illuminance0_integration_time")
        let shared = try #require(LightChannel.find(in: ["in_illuminance0_raw", "in_illuminance_scale", "in_illuminance_offset"]))
        #expect(shared.scale == "in_illuminance_scale" && shared.offset == "in_illuminance_offset")
        let clear = try #require(LightChannel.find(in: ["in_intensity_clear_raw", "in_intensity_scale"]))
        #expect(clear.scale == "in_intensity_scale")
        #expect(LightChannel.attributeNames.contains("in_illuminance0_scale"))
        #expect(Set(LightChannel.attributeNames).count == LightChannel.attributeNames.count)
    }

    // The three cases iio-sensor-proxy 3.9 gets wrong.

    @Test("in_illuminance0_scale applies to in_illuminance0_raw: raw 10, scale 2 is 20 lux")
    func illuminance0Scale() throws {
        let channel = try #require(LightChannel.find(in: ["in_illuminance0_raw", "in_illuminance0_scale"]))
        #expect(try channel.level(value: "10\n", scale: "2\n", offset: nil) == 20)
    }

    @Test("the offset applies before the scale: raw 10, scale 2, offset 5 is 30 lux")
    func offsetApplied() throws {
        let channel = try #require(LightChannel.find(in: ["in_illuminance_raw", "in_illuminance_scale", "in_illuminance_offset"]))
        #expect(try channel.level(value: "10\n", scale: "2\n", offset: "5\n") == 30)
        let own = try #require(LightChannel.find(in: ["in_illuminance0_raw", "in_illuminance0_scale", "in_illuminance0_offset"]))
        #expect(try own.level(value: "10\n", scale: "2\n", offset: "5\n") == 30)
    }

    @Test("an _input value is lux already: no scale or offset applies to it")
    func inputTakesNoScale() throws {
        let channel = try #require(LightChannel.find(in: ["in_illuminance_input", "in_illuminance_scale", "in_illuminance_offset"]))
        #expect(channel.scale == nil && channel.offset == nil)
        #expect(try channel.level(value: "120\n", scale: "2\n", offset: "5\n") == 120)
    }

    @Test("a raw value with no scale or offset counts them as 1 and 0; fractions and exponents are read")
    func defaults() throws {
        let channel = try #require(LightChannel.find(in: ["in_illuminance_raw"]))
        #expect(try channel.level(value: "17", scale: nil, offset: nil) == 17)
        #expect(try channel.level(value: " 2.5e1 \n", scale: "0.5", offset: nil) == 12.5)
        #expect(try channel.level(value: "-0", scale: nil, offset: nil).sign == .plus)
    }

    @Test("malformed, oversized and hostile texts are errors naming the attribute", arguments: [
        ("abc", "2", "0", "in_illuminance_raw"),
        ("", "2", "0", "in_illuminance_raw"),
        ("10", "", "0", "in_illuminance_scale"),
        ("10", "0", "0", "in_illuminance_scale"),
        ("10", "-2", "0", "in_illuminance_scale"),
        ("10", "2", "x", "in_illuminance_offset"),
        ("1,5", "2", "0", "in_illuminance_raw"),
        ("nan", "2", "0", "in_illuminance_raw"),
        ("inf", "2", "0", "in_illuminance_raw"),
        ("0x10", "2", "0", "in_illuminance_raw"),
        ("1e400", "2", "0", "in_illuminance_raw"),
        (String(repeating: "9", count: 100_000), "2", "0", "in_illuminance_raw"),
        ("1e300", "1e300", "0", "in_illuminance_raw"),
        ("-10", "2", "0", "in_illuminance_raw"),
        ("10\u{0}", "2", "0", "in_illuminance_raw"),
        ("10 20", "2", "0", "in_illuminance_raw"),
        ("\u{FEFF}10", "2", "0", "in_illuminance_raw"),
    ])
    func badTexts(value: String, scale: String, offset: String, attribute: String) throws {
        let channel = try #require(LightChannel.find(in: ["in_illuminance_raw", "in_illuminance_scale", "in_illuminance_offset"]))
        let error = thrownError(AttributeError.self) { try channel.level(value: value, scale: scale, offset: offset) }
        #expect(error?.attribute == attribute)
        #expect((error?.description.utf8.count ?? .max) < 200, "the message stays short")
    }

    @Test("the bytes a poll read parse as their text does, and fail with the text's own error", arguments: [
        Array("17\n".utf8), Array(" 2.5e1 \n".utf8), Array("0.009807\n".utf8), Array("-0\n".utf8), Array("abc".utf8), [],
        Array("1,5\n".utf8), Array(String(repeating: "9", count: 100).utf8), Array("10\u{0}".utf8), [0xFF, 0x31, 0x0A],
        [0x31, 0xC3], Array("\t\t42\t".utf8), Array("1e400".utf8), Array("12345678901234567890123".utf8),
    ])
    func bytesAgreeWithText(bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let fromBytes = Result { () throws(AttributeError) in try attributeNumber(bytes, attribute: "in_illuminance_raw") }
        let fromText = Result { () throws(AttributeError) in try attributeNumber(text, attribute: "in_illuminance_raw") }
        switch (fromBytes, fromText) {
        case (.success(let a), .success(let b)): #expect(a.bitPattern == b.bitPattern, "\(bytes): \(a) against \(b)")
        case (.failure(let a), .failure(let b)): #expect(a == b)
        default: Issue.record("\(bytes): bytes \(fromBytes), text \(fromText)")
        }
    }

    @Test("a level from the bytes read is the level from their text")
    func levelFromBytes() throws {
        let channel = try #require(LightChannel.find(in: ["in_illuminance_raw", "in_illuminance_scale", "in_illuminance_offset"]))
        #expect(try channel.level(value: Array("10\n".utf8), scale: Array("2\n".utf8), offset: Array("5\n".utf8)) == 30)
        let error = thrownError(AttributeError.self) {
            try channel.level(value: Array("10\n".utf8), scale: Array("0\n".utf8), offset: nil)
        }
        #expect(error == AttributeError(attribute: "in_illuminance_scale", value: "0\n", message: "a light scale must be above 0"))
    }

    @Test("the poll interval is the integration time when it is usable, else the default")
    func pollInterval() {
        #expect(LightChannel.pollIntervalMs(integrationTime: "0.1\n") == 100)
        #expect(LightChannel.pollIntervalMs(integrationTime: nil) == 800)
        #expect(LightChannel.pollIntervalMs(integrationTime: "0") == 800)
        #expect(LightChannel.pollIntervalMs(integrationTime: "60") == 800)
        #expect(LightChannel.pollIntervalMs(integrationTime: "junk", defaultMs: 700) == 700)
    }
}

@Suite("hwmon light: '(a,b)'")
struct HwmonLightTests {
    @Test("good texts give max(a, b) / 255 × 100 in the vendor's unit", arguments: [
        ("(0,0)", 0.0), ("(255,0)", 100.0), ("(0,255)\n", 100.0), ("( 51 , 102 )", 40.0), ("(10,5)", 1000.0 / 255),
    ])
    func good(text: String, expected: Double) throws {
        let level = try HwmonLight.level(text)
        #expect(level.unit == .vendor)
        #expect(abs(level.value - expected) < 1e-12)
    }

    @Test("bad texts are errors naming the light attribute", arguments: [
        "", "0,0", "(0,0", "0,0)", "(0)", "(0,0,0)", "(256,0)", "(-1,0)", "(a,b)", "(,)", "(1.5,2)", "[1,2]",
        "(" + String(repeating: "1", count: 10_000) + ",1)", "(1,2)x", "((1,2))",
    ])
    func bad(text: String) {
        let error = thrownError(AttributeError.self) { try HwmonLight.level(text) }
        #expect(error?.attribute == "light")
    }
}
