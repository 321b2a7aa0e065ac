/// What buffered capture of some channels switches on in a device's
/// `scan_elements` directory, and the rules for the sysfs text it reads back
/// (kernel ABI, `Documentation/ABI/testing/sysfs-bus-iio`).
///
/// Capture enables the wanted channels' elements and `in_timestamp` when the
/// device has one, and switches exactly those off again when it stops. It
/// leaves every other element as it finds it (libiio does the same): an
/// element someone else enabled stays enabled, so the scan layout is computed
/// from every element that reads back enabled, not only from the wanted ones.
///
/// ```swift
/// let selection = try ScanSelection(channels: ["accel_x", "accel_y", "accel_z"],
///                                   available: ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"])
/// selection.enabling  // ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"]
/// ```
public struct ScanSelection: Sendable, Equatable {
    /// The wanted channels' element names (`in_accel_x`), in the order asked:
    /// the order of the values of each decoded scan.
    public let channels: [String]
    /// `in_timestamp` when the device has that element, else nil.
    public let timestamp: String?

    /// The elements capture writes `1` to (and `0` to when it stops): the
    /// channels, then the timestamp.
    public var enabling: [String] { channels + (timestamp.map { [$0] } ?? []) }

    /// The elements to enable for `wanted` (channel names without `in_`:
    /// `accel_x`, `intensity_both`, `rot_from_north_magnetic_tilt_comp`) on a
    /// device whose `scan_elements` lists the elements `available`
    /// (`elementNames(files:)`).
    ///
    /// Throws when a wanted channel has no scan element, when one is asked
    /// twice, or when none is asked.
    public init(channels wanted: [String], available: [String]) throws(ScanLayoutError) {
        guard !wanted.isEmpty else { throw ScanLayoutError(message: "no channel to capture") }
        let present = Set(available)
        var channels: [String] = []
        for name in wanted {
            let element = "in_\(name)"
            guard present.contains(element) else { throw ScanLayoutError(message: "no scan element \(element)") }
            guard !channels.contains(element) else { throw ScanLayoutError(message: "scan element \(element) is asked twice") }
            channels.append(element)
        }
        self.channels = channels
        let stamp = ScanSelection.timestampElement
        timestamp = present.contains(stamp) && !channels.contains(stamp) ? stamp : nil
    }

    /// The timestamp element's name.
    public static let timestampElement = "in_timestamp"

    /// The input elements a `scan_elements` directory holds, from its file
    /// names: `in_accel_x_en` gives `in_accel_x`. Output elements (`out_`)
    /// and the `_index` and `_type` files are left out; sorted, no repeats.
    public static func elementNames(files: [String]) -> [String] {
        Set(files.compactMap { file -> String? in
            guard file.hasPrefix("in_"), file.hasSuffix("_en"), file.utf8.count > 6 else { return nil }
            return String(file.dropLast(3))
        }).sorted()
    }

    /// An `_en` attribute's value: true for a non-zero number, false for 0,
    /// nil for anything else. Surrounding whitespace and NULs are ignored.
    public static func parseEnabled(_ text: String) -> Bool? {
        parseCount(text).map { $0 != 0 }
    }

    /// An `_index` attribute's value: a non-negative decimal number, nil for
    /// anything else. Surrounding whitespace and NULs are ignored.
    public static func parseIndex(_ text: String) -> Int? {
        parseCount(text)
    }

    /// The name of a device's own data-ready trigger as the kernel names it,
    /// `<name>-dev<N>` for device `name` with id `iio:deviceN`
    /// (`defaultTrigger(deviceName: "als", sysname: "iio:device0")` is
    /// `als-dev0`); nil when the name is empty or the id has no number.
    public static func defaultTrigger(deviceName: String, sysname: String) -> String? {
        let name = trimmed(deviceName)
        let digits = String(sysname.reversed().prefix { $0.isASCII && $0.isNumber }.reversed())
        guard !name.isEmpty, let number = Int(digits) else { return nil }
        return "\(name)-dev\(number)"
    }

    /// True when a `trigger/current_trigger` text names no trigger (empty,
    /// or only whitespace and NULs): capture then attaches the default one.
    public static func isUnset(trigger text: String) -> Bool {
        trimmed(text).isEmpty
    }

    /// The text without surrounding whitespace and NULs (sysfs ends values
    /// with a newline; some writers leave a NUL).
    public static func trimmed(_ text: String) -> String {
        let bytes = Array(text.utf8)
        func blank(_ byte: UInt8) -> Bool { byte == 0 || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    private static func parseCount(_ text: String) -> Int? {
        let digits = Array(trimmed(text).utf8)
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}

/// One scan decoded: the timestamp in nanoseconds when the timestamp element
/// is captured, and the raw value of each captured channel, in the order asked.
public struct DecodedScan: Sendable, Equatable {
    /// `in_timestamp`'s value, or nil when the device has no timestamp element.
    public var timestampNs: Int64?
    /// The raw values (first repetition of repeated elements), in channel order.
    public var values: [Int64]

    /// A scan as decoded.
    public init(timestampNs: Int64?, values: [Int64]) {
        self.timestampNs = timestampNs
        self.values = values
    }
}

/// Splits the bytes read from `/dev/iio:deviceN` into whole scans and decodes
/// the captured channels of each. A read may end inside a scan (a pty standing
/// in for the device, as under umockdev, delivers what it holds); the partial
/// scan is kept and completed by the next bytes.
///
/// ```swift
/// var reader = try ScanReader(layout: layout, channels: ["in_accel_x"], timestamp: "in_timestamp")
/// let scans = reader.feed(bytes)  // whole scans only
/// ```
public struct ScanReader: Sendable {
    /// The layout of one scan.
    public let layout: ScanLayout
    private let channels: [(offset: Int, type: ScanType)]
    private let timestamp: (offset: Int, type: ScanType)?
    private var pending: [UInt8] = []

    /// Bytes kept from the last feed: the start of a scan not yet complete.
    public var pendingCount: Int { pending.count }

    /// A reader of `channels` (element names) and `timestamp` (nil for none) in
    /// scans laid out as `layout`. Throws when one of them is not in the layout.
    public init(layout: ScanLayout, channels: [String], timestamp: String?) throws(ScanLayoutError) {
        self.layout = layout
        func place(_ name: String) throws(ScanLayoutError) -> (offset: Int, type: ScanType) {
            guard let placement = layout.placements.first(where: { $0.element.name == name }) else {
                throw ScanLayoutError(message: "scan element \(name) is not enabled")
            }
            return (placement.offset, placement.element.type)
        }
        var placed: [(offset: Int, type: ScanType)] = []
        for name in channels { placed.append(try place(name)) }
        self.channels = placed
        if let timestamp { self.timestamp = try place(timestamp) } else { self.timestamp = nil }
    }

    /// Decodes every whole scan that the bytes kept from before and `bytes`
    /// make up, in order, and keeps the rest for the next call.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [DecodedScan] {
        let size = layout.scanSize
        var out: [DecodedScan] = []
        var start = 0
        if !pending.isEmpty {
            let needed = size - pending.count
            guard bytes.count >= needed else {
                pending.append(contentsOf: bytes)
                return []
            }
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<needed]))
            pending.withUnsafeBytes { out.append(decode($0, at: 0)) }
            pending.removeAll(keepingCapacity: true)
            start = needed
        }
        while bytes.count - start >= size {
            out.append(decode(bytes, at: start))
            start += size
        }
        if start < bytes.count { pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start...])) }
        return out
    }

    /// Decodes from a byte array; see `feed(_:)`.
    public mutating func feed(_ bytes: [UInt8]) -> [DecodedScan] {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// Forgets a partial scan kept from before.
    public mutating func reset() { pending.removeAll() }

    private func decode(_ bytes: UnsafeRawBufferPointer, at scan: Int) -> DecodedScan {
        DecodedScan(
            timestampNs: timestamp.map { $0.type.decode(bytes, at: scan + $0.offset) },
            values: channels.map { $0.type.decode(bytes, at: scan + $0.offset) })
    }
}
