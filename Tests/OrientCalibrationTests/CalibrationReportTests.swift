import OrientCalibration
import OrientProtocol
import Testing

@Suite("Calibration report")
struct CalibrationReportTests {
    /// The report for a sensor mounted per `mounted`, seen through `current`.
    func report(mounted: String, current: String, source: String = "identity", key: HwdbMatchKey? = nil, zSign: Int? = 1)
        throws -> CalibrationReport
    {
        let matrix = try MountMatrix(parsing: mounted)
        let poses = poseReadings(matrix)
        func rest(_ v: Vector3) -> Rest { Rest(mean: v, startMs: 0, endMs: 1000, count: 21, spreadDegrees: 0.5) }
        let set = PoseSet(upright: rest(poses.upright), leftUp: rest(poses.leftUp), faceUp: rest(poses.faceUp))
        let fit = try MountFit(upright: poses.upright, leftUp: poses.leftUp, faceUp: poses.faceUp)
        return CalibrationReport(
            device: "iio:device2", chip: "bmc150_accel", current: try MountMatrix(parsing: current), currentSource: source,
            poses: set, fit: fit, key: key, machine: "TOSHIBA WT10-A", zSign: zSign)
    }

    @Test("the table shows each pose under the matrix in use and under the new one")
    func table() throws {
        let r = try report(mounted: "-1, 0, 0; 0, -1, 0; 0, 0, 1", current: "1, 0, 0; 0, 1, 0; 0, 0, 1")
        let lines = r.comparison.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("  ") && lines[0].contains("in use (identity)") && lines[0].hasSuffix("new"))
        #expect(lines[2].contains("upright") && lines[2].contains("bottom-up, vertical") && lines[2].hasSuffix("normal, vertical"))
        #expect(lines[3].contains("right-up, vertical") && lines[3].hasSuffix("left-up, vertical"))
        #expect(!r.nothingToChange)
    }

    @Test("a daemon with z-sign -1 shows lying face up as face-down in use, and the report says to set it to 1")
    func zSign() throws {
        let r = try report(mounted: "1, 0, 0; 0, 1, 0; 0, 0, 1", current: "1, 0, 0; 0, 1, 0; 0, 0, 1", zSign: -1)
        #expect(r.comparison.contains("flat (keeps the last orientation), face-down"))
        #expect(r.cautions.contains { $0.contains("set z-sign = 1") })
        #expect(r.configAlternative.contains("z-sign = 1"))
    }

    @Test("the entry carries the machine, the chip, the key and the matrix, and the steps name the device node")
    func entry() throws {
        let key = HwdbMatchKey(key: "sensor:modalias:acpi:BOSC0200*:dmi:*svnTOSHIBA:pnWT10-A:*", scope: "")
        let r = try report(mounted: "0, 1, 0; 1, 0, 0; 0, 0, 1", current: "1, 0, 0; 0, 1, 0; 0, 0, 1", key: key)
        #expect(
            r.entry.text == """
                # TOSHIBA WT10-A, bmc150_accel: mount matrix found by orientctl calibrate
                sensor:modalias:acpi:BOSC0200*:dmi:*svnTOSHIBA:pnWT10-A:*
                 ACCEL_MOUNT_MATRIX=0, 1, 0; 1, 0, 0; 0, 0, 1

                """)
        #expect(r.loadSteps.contains("udevadm trigger -v -p DEVNAME=/dev/iio:device2"))
        #expect(r.configAlternative.contains("mount-matrix = 0, 1, 0; 1, 0, 0; 0, 0, 1"))
    }

    @Test("without a key the entry is written under a key to fill in")
    func placeholder() throws {
        let r = try report(mounted: "0, 1, 0; 1, 0, 0; 0, 0, 1", current: "1, 0, 0; 0, 1, 0; 0, 0, 1")
        #expect(r.entry.key == CalibrationReport.placeholderKey)
    }

    @Test("a matrix in orientd's config is called out: it hides a hwdb entry from orientd")
    func configOverride() throws {
        let r = try report(mounted: "0, 1, 0; 1, 0, 0; 0, 0, 1", current: "1, 0, 0; 0, 1, 0; 0, 0, 1", source: "config")
        #expect(r.cautions.contains { $0.contains("overrides udev") })
    }

    @Test("a matrix in use that already gives every pose right means nothing to change")
    func nothingToChange() throws {
        let r = try report(mounted: "0, -1, 0; -1, 0, 0; 0, 0, 1", current: "0, -1, 0; -1, 0, 0; 0, 0, 1")
        #expect(r.nothingToChange)
    }
}
