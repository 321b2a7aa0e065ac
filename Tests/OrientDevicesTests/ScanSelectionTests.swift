import Testing

@testable import OrientDevices

@Suite("Scan selection and reading")
struct ScanSelectionTests {
    /// mpu6050's scan_elements directory as the kernel lists it.
    static let mpu6050Files = [
        "in_accel_x_en", "in_accel_x_index", "in_accel_x_type", "in_accel_y_en", "in_accel_y_index", "in_accel_y_type",
        "in_accel_z_en", "in_accel_z_index", "in_accel_z_type", "in_anglvel_x_en", "in_anglvel_x_index",
        "in_anglvel_x_type", "in_temp_en", "in_temp_index", "in_temp_type", "in_timestamp_en", "in_timestamp_index",
        "in_timestamp_type",
    ]

    @Test("the elements a directory lists come from its _en files, input only, sorted")
    func elementNames() {
        #expect(ScanSelection.elementNames(files: ScanSelectionTests.mpu6050Files)
            == ["in_accel_x", "in_accel_y", "in_accel_z", "in_anglvel_x", "in_temp", "in_timestamp"])
        #expect(ScanSelection.elementNames(files: ["out_voltage0_en", "in_en", "in_accel_x_index", "in_voltage0_en", "x_en"])
            == ["in_voltage0"])
        #expect(ScanSelection.elementNames(files: []) == [])
    }

    @Test("capture enables the wanted channels in the order asked, then the timestamp, and nothing else")
    func enablesWantedAndTimestamp() throws {
        let available = ScanSelection.elementNames(files: ScanSelectionTests.mpu6050Files)
        let selection = try ScanSelection(channels: ["accel_z", "accel_x", "accel_y"], available: available)
        #expect(selection.channels == ["in_accel_z", "in_accel_x", "in_accel_y"])
        #expect(selection.timestamp == "in_timestamp")
        #expect(selection.enabling == ["in_accel_z", "in_accel_x", "in_accel_y", "in_timestamp"])
    }

    @Test("without a timestamp element only the channels are enabled")
    func noTimestamp() throws {
        let selection = try ScanSelection(channels: ["intensity_both"], available: ["in_intensity_both", "in_illuminance"])
        #expect(selection.timestamp == nil)
        #expect(selection.enabling == ["in_intensity_both"])
    }

    @Test("a channel whose name holds an extended name is found by its whole sysfs name")
    func wholeSysfsName() throws {
        let available = ["in_magn_x", "in_rot_from_north_magnetic", "in_rot_from_north_magnetic_tilt_comp", "in_timestamp"]
        let selection = try ScanSelection(channels: ["rot_from_north_magnetic_tilt_comp"], available: available)
        #expect(selection.enabling == ["in_rot_from_north_magnetic_tilt_comp", "in_timestamp"])
    }

    @Test(
        "a missing, repeated or absent channel is refused with a message",
        arguments: [
            (["accel_q"], "no scan element in_accel_q"),
            (["accel_x", "accel_x"], "asked twice"),
            ([], "no channel"),
            (["in_accel_x"], "no scan element in_in_accel_x"),
        ] as [([String], String)])
    func refusals(wanted: [String], message: String) {
        #expect {
            try ScanSelection(channels: wanted, available: ["in_accel_x", "in_timestamp"])
        } throws: { error in
            (error as? ScanLayoutError)?.message.containsText(message) == true
        }
    }

    @Test("asking for the timestamp as a channel does not enable it twice")
    func timestampAsChannel() throws {
        let selection = try ScanSelection(channels: ["accel_x", "timestamp"], available: ["in_accel_x", "in_timestamp"])
        #expect(selection.enabling == ["in_accel_x", "in_timestamp"])
        #expect(selection.timestamp == nil)
    }

    @Test(
        "_en and _index texts parse as sysfs writes them, with or without a newline or NUL",
        arguments: [
            ("1\n", true, 1), ("0\n", false, 0), ("1", true, 1), ("1\0", true, 1), (" 12 \n", true, 12),
            ("", nil, nil), ("\n", nil, nil), ("-1\n", nil, nil), ("x", nil, nil), ("1 2", nil, nil),
            ("9999999999", nil, nil),
        ] as [(String, Bool?, Int?)])
    func parsesAttributes(text: String, enabled: Bool?, index: Int?) {
        #expect(ScanSelection.parseEnabled(text) == enabled)
        #expect(ScanSelection.parseIndex(text) == index)
    }

    @Test(
        "the default trigger is <name>-dev<N>",
        arguments: [
            ("als\n", "iio:device0", "als-dev0"), ("magn_3d", "iio:device1", "magn_3d-dev1"),
            ("bmc150_accel\n", "iio:device12", "bmc150_accel-dev12"), ("", "iio:device0", nil),
            ("\n", "iio:device0", nil), ("als", "iio:device", nil), ("als", "trigger", nil),
        ] as [(String, String, String?)])
    func defaultTrigger(name: String, sysname: String, expected: String?) {
        #expect(ScanSelection.defaultTrigger(deviceName: name, sysname: sysname) == expected)
    }

    @Test("a current_trigger of only whitespace or NULs is unset")
    func unsetTrigger() {
        #expect(ScanSelection.isUnset(trigger: ""))
        #expect(ScanSelection.isUnset(trigger: "\n"))
        #expect(ScanSelection.isUnset(trigger: "\0\n"))
        #expect(!ScanSelection.isUnset(trigger: "als-dev0\n"))
        #expect(ScanSelection.trimmed(" le:s16/16>>0\n\0") == "le:s16/16>>0")
    }

    /// x, y, z le:s12/16>>4, a gyroscope element someone else left enabled at
    /// index 3, and the timestamp: 16-byte scans.
    static func layoutWithLeftover() throws -> ScanLayout {
        try ScanLayout(elements: try elements([
            ("in_accel_x", 0, "le:s12/16>>4"), ("in_accel_y", 1, "le:s12/16>>4"), ("in_accel_z", 2, "le:s12/16>>4"),
            ("in_anglvel_x", 3, "le:s16/16>>0"), ("in_timestamp", 4, "le:s64/64>>0"),
        ]))
    }

    @Test("whole scans decode in channel order, with the timestamp, past an element left enabled by someone else")
    func readsScans() throws {
        let layout = try ScanSelectionTests.layoutWithLeftover()
        #expect(layout.scanSize == 16)
        var reader = try ScanReader(
            layout: layout, channels: ["in_accel_z", "in_accel_x", "in_accel_y"], timestamp: "in_timestamp")
        let bytes = (0..<3).flatMap { k in
            assembleScan(layout, ["in_accel_x": Int64(k), "in_accel_y": -2048, "in_accel_z": 2047,
                                  "in_anglvel_x": 999, "in_timestamp": Int64(k) * 10_000_000])
        }
        let scans = reader.feed(bytes)
        #expect(scans == (0..<3).map { k in DecodedScan(timestampNs: Int64(k) * 10_000_000, values: [2047, Int64(k), -2048]) })
        #expect(reader.pendingCount == 0)
    }

    @Test("a read that ends inside a scan keeps the start and completes it with the next bytes, however split")
    func partialScans() throws {
        let layout = try ScanSelectionTests.layoutWithLeftover()
        let bytes = (0..<4).flatMap { k in
            assembleScan(layout, ["in_accel_x": Int64(k), "in_accel_y": 1, "in_accel_z": 2, "in_timestamp": Int64(k)])
        }
        for split in [[1], [15], [16], [17], [5, 5, 5, 5], [3, 30, 1, 30], [64]] {
            var reader = try ScanReader(layout: layout, channels: ["in_accel_x"], timestamp: "in_timestamp")
            var scans: [DecodedScan] = []
            var start = 0
            var k = 0
            while start < bytes.count {
                let end = min(bytes.count, start + split[k % split.count])
                scans += reader.feed(Array(bytes[start..<end]))
                start = end
                k += 1
            }
            #expect(scans == (0..<4).map { DecodedScan(timestampNs: Int64($0), values: [Int64($0)]) }, "split \(split)")
            #expect(reader.pendingCount == 0)
        }
        var reader = try ScanReader(layout: layout, channels: ["in_accel_x"], timestamp: nil)
        #expect(reader.feed(Array(bytes[0..<20])).map(\.timestampNs) == [nil])
        #expect(reader.pendingCount == 4)
        reader.reset()
        #expect(reader.feed(Array(bytes[16..<32])) == [DecodedScan(timestampNs: nil, values: [1])])
    }

    @Test("a channel or timestamp not in the layout is refused")
    func readerRefusals() throws {
        let layout = try ScanSelectionTests.layoutWithLeftover()
        #expect(throws: ScanLayoutError.self) { try ScanReader(layout: layout, channels: ["in_magn_x"], timestamp: nil) }
        let noStamp = try ScanLayout(elements: try elements([("in_accel_x", 0, "le:s16/16>>0")]))
        #expect(throws: ScanLayoutError.self) {
            try ScanReader(layout: noStamp, channels: ["in_accel_x"], timestamp: "in_timestamp")
        }
    }
}
