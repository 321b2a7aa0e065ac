import Testing
import OrientSensors

@Suite struct InputCapabilitiesTests {
    @Test func readsTheLowWordLast() {
        // SW_FRONT_PROXIMITY is bit 11: 0x800.
        #expect(InputCapabilities.has(bit: 11, in: "800\n"))
        #expect(!InputCapabilities.has(bit: 9, in: "800\n"))
        // An N900's gpio-keys: lens cover (9), keypad slide (10), front proximity (11).
        #expect(InputCapabilities.has(bit: 11, in: "e00"))
        #expect(InputCapabilities.has(bit: 64, in: "1 0"))
        #expect(!InputCapabilities.has(bit: 0, in: "1 0"))
    }

    @Test func malformedAndHostileBitmapsSetNothing() {
        for text in ["", "\n", "zz", "-1", "800,0", String(repeating: "f", count: 17), String(repeating: "1 ", count: 600)] {
            #expect(!InputCapabilities.has(bit: 11, in: text), "\(text.prefix(20))")
        }
        #expect(!InputCapabilities.has(bit: -1, in: "ffff"))
        #expect(!InputCapabilities.has(bit: 200, in: "ffff"))
    }
}
