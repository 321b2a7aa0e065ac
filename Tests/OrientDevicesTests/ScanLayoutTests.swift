import TestSupport
import Testing

@testable import OrientDevices

/// `(name, index, type text)` rows as a driver's scan_elements directory lists them.
func elements(_ rows: [(String, Int, String)]) throws -> [ScanElement] {
    try rows.map { ScanElement(name: $0.0, index: $0.1, type: try ScanType(parsing: $0.2)) }
}

/// One scan holding `values` (by element name) at the layout's offsets, encoded
/// with `scanBytes`; padding bytes are 0xA5 so a decoder that strays into them shows.
func assembleScan(_ layout: ScanLayout, _ values: [String: Int64]) -> [UInt8] {
    var scan = [UInt8](repeating: 0xA5, count: layout.scanSize)
    for placement in layout.placements {
        let type = placement.element.type
        for r in 0..<type.repeatCount {
            let value = (values[placement.element.name] ?? 0) + Int64(r)
            let bytes = scanBytes(value, as: type)
            let start = placement.offset + r * type.storageBytes
            scan.replaceSubrange(start..<start + bytes.count, with: bytes)
        }
    }
    return scan
}

@Suite("Scan layout")
struct ScanLayoutTests {
    @Test(
        "elements sit where the kernel puts them and the scan is padded to its largest element",
        arguments: [
            // HID sensor hub / most I2C accelerometers: x, y, z s16 and the s64 timestamp.
            ([("in_accel_x", 0, "le:s16/16>>0"), ("in_accel_y", 1, "le:s16/16>>0"), ("in_accel_z", 2, "le:s16/16>>0"),
              ("in_timestamp", 3, "le:s64/64>>0")], [0, 2, 4, 8], 16),
            // 12 bits in 16 (bma180-style), big-endian 16-bit: the same places.
            ([("in_accel_x", 0, "le:s12/16>>4"), ("in_accel_y", 1, "le:s12/16>>4"), ("in_accel_z", 2, "le:s12/16>>4"),
              ("in_timestamp", 3, "le:s64/64>>0")], [0, 2, 4, 8], 16),
            ([("in_accel_x", 0, "be:s16/16>>0"), ("in_accel_y", 1, "be:s16/16>>0"), ("in_accel_z", 2, "be:s16/16>>0")],
             [0, 2, 4], 6),
            // 32-bit elements (HID accel_3d on some hubs).
            ([("in_accel_x", 0, "le:s32/32>>0"), ("in_accel_y", 1, "le:s32/32>>0"), ("in_accel_z", 2, "le:s32/32>>0"),
              ("in_timestamp", 3, "le:s64/64>>0")], [0, 4, 8, 16], 24),
            // iio-sensor-proxy's test_iio_buffer_accel device: 16 bits stored in 32.
            ([("in_accel_x", 0, "le:s16/32>>0"), ("in_accel_y", 1, "le:s16/32>>0"), ("in_accel_z", 2, "le:s16/32>>0"),
              ("in_timestamp", 3, "le:s64/64>>0")], [0, 4, 8, 16], 24),
            // No timestamp: three s32 need no padding.
            ([("in_accel_x", 0, "le:s32/32>>0"), ("in_accel_y", 1, "le:s32/32>>0"), ("in_accel_z", 2, "le:s32/32>>0")],
             [0, 4, 8], 12),
            // The linux-iio 2019 case: a 32-bit element before a 16-bit one pads the scan to 8.
            ([("in_voltage0", 0, "le:s32/32>>0"), ("in_voltage1", 1, "le:s16/16>>0")], [0, 4], 8),
            // u16, u16, u32, u16: alignment to the largest happens once, at the end.
            ([("a", 0, "le:u16/16>>0"), ("b", 1, "le:u16/16>>0"), ("c", 2, "le:u32/32>>0"), ("d", 3, "le:u16/16>>0")],
             [0, 2, 4, 8], 12),
            // u8 then s16: the s16 skips a byte.
            ([("a", 0, "le:u8/8>>0"), ("b", 1, "le:s16/16>>0"), ("c", 2, "le:u8/8>>0")], [0, 2, 4], 6),
            ([("a", 0, "le:u8/8>>0")], [0], 1),
            // A repeated element is aligned to its whole size (storage × repeat).
            ([("in_temp", 0, "le:s16/16>>0"), ("in_rot_quaternion", 1, "le:s16/16X4>>0"), ("in_timestamp", 2, "le:s64/64>>0")],
             [0, 8, 16], 24),
            ([("in_temp", 0, "le:s16/16>>0"), ("in_pair", 1, "le:s16/32X2>>0")], [0, 8], 16),
        ] as [([(String, Int, String)], [Int], Int)])
    func offsets(rows: [(String, Int, String)], expectedOffsets: [Int], scanSize: Int) throws {
        let layout = try ScanLayout(elements: try elements(rows))
        #expect(layout.placements.map(\.offset) == expectedOffsets)
        #expect(layout.placements.map(\.element.name) == rows.map(\.0))
        #expect(layout.scanSize == scanSize)
        for (row, offset) in zip(rows, expectedOffsets) {
            #expect(layout.offset(of: row.0) == offset)
        }
    }

    @Test("elements are laid out by index, whatever order they are listed in and however sparse the indices")
    func ordersByIndex() throws {
        let listed = try elements([
            ("in_timestamp", 9, "le:s64/64>>0"), ("in_accel_z", 4, "le:s16/16>>0"), ("in_accel_x", 0, "le:s16/16>>0"),
            ("in_accel_y", 2, "le:s16/16>>0"),
        ])
        let layout = try ScanLayout(elements: listed)
        #expect(layout.placements.map(\.element.name) == ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"])
        #expect(layout.placements.map(\.offset) == [0, 2, 4, 8])
        #expect(layout.scanSize == 16)
        for permutation in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]] {
            #expect(try ScanLayout(elements: permutation.map { listed[$0] }) == layout)
        }
        // z before x when the driver numbers them so.
        let swapped = try ScanLayout(elements: try elements([
            ("in_accel_x", 2, "le:s16/16>>0"), ("in_accel_y", 1, "le:s16/16>>0"), ("in_accel_z", 0, "le:s16/16>>0"),
        ]))
        #expect(swapped.offset(of: "in_accel_z") == 0)
        #expect(swapped.offset(of: "in_accel_x") == 4)
    }

    @Test(
        "each element decodes to the value written at its place",
        arguments: [
            ["in_accel_x": 523, "in_accel_y": 13, "in_accel_z": -5, "in_timestamp": 1_700_000_000_123_456_789],
            ["in_accel_x": -2048, "in_accel_y": 2047, "in_accel_z": -1, "in_timestamp": -1],
        ] as [[String: Int64]],
        ["le:s12/16>>4", "be:s16/16>>0", "le:s32/32>>0", "be:s24/32>>8"])
    func decodesElements(values: [String: Int64], axisType: String) throws {
        let layout = try ScanLayout(elements: try elements([
            ("in_accel_x", 0, axisType), ("in_accel_y", 1, axisType), ("in_accel_z", 2, axisType),
            ("in_timestamp", 3, "le:s64/64>>0"),
        ]))
        let scan = assembleScan(layout, values)
        for (name, value) in values {
            #expect(layout.decode(scan, element: name) == value, "\(name)")
        }
    }

    @Test("the last of several scans in one read decodes at its scan offset")
    func decodesLaterScan() throws {
        let layout = try ScanLayout(elements: try elements([
            ("in_accel_x", 0, "be:s16/16>>0"), ("in_accel_y", 1, "be:s16/16>>0"), ("in_accel_z", 2, "be:s16/16>>0"),
            ("in_timestamp", 3, "le:s64/64>>0"),
        ]))
        let read = (0..<5).flatMap { k in
            assembleScan(layout, ["in_accel_x": Int64(k), "in_accel_y": -Int64(k), "in_accel_z": 100, "in_timestamp": Int64(k) * 50_000_000])
        }
        #expect(read.count == 5 * layout.scanSize)
        let last = 4 * layout.scanSize
        #expect(layout.decode(read, element: "in_accel_x", scanOffset: last) == 4)
        #expect(layout.decode(read, element: "in_accel_y", scanOffset: last) == -4)
        #expect(layout.decode(read, element: "in_timestamp", scanOffset: last) == 200_000_000)
        #expect(read.withUnsafeBytes { layout.decode($0, element: "in_accel_y", scanOffset: last) } == -4)
    }

    @Test("each value of a repeated element decodes by its repetition")
    func decodesRepetitions() throws {
        let layout = try ScanLayout(elements: try elements([
            ("in_temp", 0, "le:s16/16>>0"), ("in_rot_quaternion", 1, "be:s16/16X4>>0"),
        ]))
        let scan = assembleScan(layout, ["in_temp": 7, "in_rot_quaternion": -2])
        #expect((0..<4).map { layout.decode(scan, element: "in_rot_quaternion", repetition: $0) } == [-2, -1, 0, 1])
        #expect(layout.decode(scan, element: "in_rot_quaternion", repetition: 4) == nil)
        #expect(layout.decode(scan, element: "in_temp", repetition: -1) == nil)
    }

    @Test("an unknown element, a short scan or a bad scan offset decodes to nil, not a crash")
    func decodeRefusals() throws {
        let layout = try ScanLayout(elements: try elements([
            ("in_accel_x", 0, "le:s16/16>>0"), ("in_timestamp", 1, "le:s64/64>>0"),
        ]))
        let scan = assembleScan(layout, ["in_accel_x": 3])
        #expect(layout.decode(scan, element: "in_accel_x") == 3)
        #expect(layout.decode(scan, element: "in_accel_q") == nil)
        #expect(layout.offset(of: "in_accel_q") == nil)
        #expect(layout.decode(Array(scan.dropLast()), element: "in_accel_x") == nil)
        #expect(layout.decode([], element: "in_accel_x") == nil)
        #expect(layout.decode(scan, element: "in_accel_x", scanOffset: 1) == nil)
        #expect(layout.decode(scan, element: "in_accel_x", scanOffset: -1) == nil)
    }

    @Test(
        "sets of elements that cannot form a scan are refused with a message",
        arguments: [
            ([], "no scan elements"),
            ([("in_accel_x", 0, "le:s16/16>>0"), ("in_accel_y", 0, "le:s16/16>>0")], "same index 0"),
            ([("in_accel_x", 0, "le:s16/16>>0"), ("in_accel_x", 1, "le:s16/16>>0")], "listed twice"),
            ([("in_accel_x", -1, "le:s16/16>>0")], "negative index"),
        ] as [([(String, Int, String)], String)])
    func refuses(rows: [(String, Int, String)], message: String) throws {
        let listed = try elements(rows)
        let error = thrownError(ScanLayoutError.self) { try ScanLayout(elements: listed) }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }
}
