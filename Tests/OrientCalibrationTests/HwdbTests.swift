import Foundation
import OrientCalibration
import Testing

@Suite("hwdb match keys and entries")
struct HwdbTests {
    static let toshiba =
        "dmi:bvnINSYDECorp.:bvrV1.08:bd04/28/2017:br1.8:efr1.3:svnTOSHIBA:pnWT10-A:pvrPDW0EE-00300KGR:rvnTOSHIBA:rnWT10-A:rvr1.00:cvnTOSHIBA:ct32:cvr:skuPDW0EE:"

    @Test("a machine with a vendor and product name gets the key 60-sensor.hwdb would use, and it matches")
    func usualKey() throws {
        let identity = SensorIdentity(parentModalias: "acpi:BOSC0200:BOSC0200:", dmiModalias: Self.toshiba)
        let choice = HwdbKeyChoice(for: identity)
        #expect(choice.keys.map(\.key) == ["sensor:modalias:acpi:BOSC0200*:dmi:*svnTOSHIBA:pnWT10-A:*"])
        #expect(!choice.needsChoice)
        #expect(choice.keys[0].matches(try #require(identity.lookupString)))
        #expect(identity.lookupString == "sensor:modalias:acpi:BOSC0200:BOSC0200::\(Self.toshiba)")
    }

    @Test("a sensor with a label is looked up with the label first")
    func labelled() throws {
        let identity = SensorIdentity(
            label: "accel-display", parentModalias: "platform:cros-ec-accel", dmiModalias: Self.toshiba)
        let key = try #require(HwdbKeyChoice(for: identity).keys.first)
        #expect(key.key == "sensor:accel-display:modalias:platform:cros-ec-accel*:dmi:*svnTOSHIBA:pnWT10-A:*")
        #expect(key.matches(try #require(identity.lookupString)))
    }

    @Test("placeholder DMI names make the wizard offer narrower keys and say why, each of them matching")
    func placeholders() throws {
        let dmi =
            "dmi:bvnAmericanMegatrendsInc.:bvr5.6.5:bd07/25/2014:svnTobefilledbyO.E.M.:pnTobefilledbyO.E.M.:pvrTobefilledbyO.E.M.:rvnAMICorporation:rnAptioCRB:rvrTobefilledbyO.E.M.:cvnToBeFilledByO.E.M.:ct3:cvrToBeFilledByO.E.M.:"
        let identity = SensorIdentity(parentModalias: "acpi:SMO8500:SMO8500:", dmiModalias: dmi)
        let choice = HwdbKeyChoice(for: identity)
        #expect(choice.needsChoice)
        #expect(choice.keys.count == 3)
        #expect(choice.keys[1].key == "sensor:modalias:acpi:SMO8500*:dmi:bvnAmericanMegatrendsInc.:bvr5.6.5:bd07/25/2014:*")
        #expect(choice.notes.first?.contains("placeholder") == true)
        let lookup = try #require(identity.lookupString)
        for key in choice.keys { #expect(key.matches(lookup), "\(key.key)") }
    }

    @Test("without DMI the key names only the sensor, and says so")
    func noDMI() {
        let choice = HwdbKeyChoice(for: SensorIdentity(parentModalias: "of:NaccelerometerT_null_Csilan,sc7a20"))
        #expect(choice.keys.map(\.key) == ["sensor:modalias:of:NaccelerometerT_null_Csilan,sc7a20*:*"])
        #expect(choice.notes.first?.contains("no DMI identity") == true)
    }

    @Test("without a parent modalias no key can work, and the config file is suggested")
    func noParent() {
        let choice = HwdbKeyChoice(for: SensorIdentity(dmiModalias: Self.toshiba))
        #expect(choice.keys.isEmpty)
        #expect(choice.notes.first?.contains("mount-matrix") == true)
    }

    @Test("glob characters in DMI values are matched, not interpreted")
    func globs() throws {
        let identity = SensorIdentity(parentModalias: "acpi:KIOX000A:KIOX000A:", dmiModalias: "dmi:svnOdd*Co:pnTab[1]:")
        let key = try #require(HwdbKeyChoice(for: identity).keys.first)
        #expect(key.key == "sensor:modalias:acpi:KIOX000A*:dmi:*svnOdd?Co:pnTab?1?:*")
        #expect(key.matches(try #require(identity.lookupString)))
    }

    @Test("an entry is appended to a local file after a blank line, or written alone")
    func append() {
        let entry = HwdbEntry(comment: "a tablet", key: "sensor:modalias:acpi:X*:dmi:*svnA:pnB:*", matrix: "0, 1, 0; 1, 0, 0; 0, 0, 1")
        #expect(entry.merged(into: "") == (entry.text, false))
        let other = "# mine\nsensor:modalias:acpi:Y*:dmi:*\n ACCEL_LOCATION=base\n"
        #expect(entry.merged(into: other) == (other + "\n" + entry.text, false))
    }

    @Test("an entry with the same key has its matrix replaced and its other properties kept")
    func replace() {
        let existing = """
            # old
            sensor:modalias:acpi:X*:dmi:*svnA:pnB:*
             ACCEL_MOUNT_MATRIX=1, 0, 0; 0, 1, 0; 0, 0, 1
             ACCEL_LOCATION=display

            sensor:modalias:acpi:Z*:dmi:*
             ACCEL_MOUNT_MATRIX=-1, 0, 0; 0, 1, 0; 0, 0, 1

            """
        let entry = HwdbEntry(comment: "new", key: "sensor:modalias:acpi:X*:dmi:*svnA:pnB:*", matrix: "0, 1, 0; 1, 0, 0; 0, 0, 1")
        let merged = entry.merged(into: existing)
        #expect(merged.replaced)
        #expect(merged.text == existing.replacingOccurrences(of: "=1, 0, 0; 0, 1, 0; 0, 0, 1", with: "=0, 1, 0; 1, 0, 0; 0, 0, 1"))
    }
}
