import Testing
import OrientSensors

@Suite struct LightChannelTests {
    @Test func inputIsAlreadyLuxAndTakesNoScale() throws {
        let channel = try #require(LightChannel.find(in: ["in_illuminance_input", "in_illuminance_scale"]))
        #expect(channel.value == "in_illuminance_input")
        #expect(channel.scale == nil)
        #expect(try channel.level(value: "120\n", scale: "2\n", offset: nil) == 120)
    }

    @Test func illuminance0TakesItsOwnScaleAndOffset() throws {
        let channel = try #require(LightChannel.find(in: ["in_illuminance0_raw", "in_illuminance0_scale", "in_illuminance0_offset"]))
        #expect(channel.scale == "in_illuminance0_scale")
        #expect(try channel.level(value: "10\n", scale: "2\n", offset: "5\n") == 30)
    }
}
