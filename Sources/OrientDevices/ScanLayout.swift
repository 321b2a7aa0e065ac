import OrientProtocol

/// One enabled scan element of an IIO buffer: `scan_elements/<name>_{en,index,type}`.
public struct ScanElement: Sendable, Equatable {
    /// The channel name without the suffix, e.g. `in_accel_x` or `in_timestamp`.
    public var name: String
    /// The `_index` attribute: the element's position in the scan.
    public var index: Int
    /// The `_type` attribute.
    public var type: ScanType

    /// An element as the sysfs attributes describe it.
    public init(name: String, index: Int, type: ScanType) {
        self.name = name
        self.index = index
        self.type = type
    }
}

/// Where each enabled element sits in one scan read from `/dev/iio:deviceN`,
/// computed as the kernel does (`iio_compute_scan_bytes`).
///
/// Elements are laid out in `_index` order; each starts at the next multiple of
/// its own size (`storageBytes` × repeat count), and the scan is padded to a
/// multiple of the largest element, like a C struct. Every element size the
/// kernel uses is a power of two, where this is exactly the kernel's `ALIGN`.
///
/// ```swift
/// let layout = try ScanLayout(elements: [x, y, z, timestamp])  // s16 ×3, s64
/// layout.scanSize                                          // 16
/// layout.decode(scanBytes, element: "in_accel_y")          // from bytes 2…3
/// ```
public struct ScanLayout: Sendable, Equatable {
    /// An element with its byte offset in the scan.
    public struct Placement: Sendable, Equatable {
        /// The element.
        public let element: ScanElement
        /// Byte offset of its first value from the start of the scan.
        public let offset: Int
    }

    /// The elements in scan order (by `_index`) with their offsets.
    public let placements: [Placement]
    /// Bytes in one scan, padding included: the unit in which the character device delivers data.
    public let scanSize: Int

    /// Lays out the enabled elements (in any order).
    ///
    /// Throws when there are none, when an index is negative, or when two
    /// elements share a name or an index.
    public init(elements: [ScanElement]) throws(ScanLayoutError) {
        guard !elements.isEmpty else {
            throw ScanLayoutError(message: "no scan elements are enabled")
        }
        var names = Set<String>()
        var indices: [Int: String] = [:]
        for element in elements {
            guard element.index >= 0 else {
                throw ScanLayoutError(message: "scan element \(element.name) has a negative index \(element.index)")
            }
            guard names.insert(element.name).inserted else {
                throw ScanLayoutError(message: "scan element \(element.name) is listed twice")
            }
            if let other = indices.updateValue(element.name, forKey: element.index) {
                throw ScanLayoutError(
                    message: "scan elements \(other) and \(element.name) have the same index \(element.index)")
            }
        }
        var placements: [Placement] = []
        var bytes = 0
        var largest = 1
        for element in elements.sorted(by: { $0.index < $1.index }) {
            let length = element.type.elementBytes
            bytes = roundUp(bytes, toMultipleOf: length)
            placements.append(Placement(element: element, offset: bytes))
            bytes += length
            largest = max(largest, length)
        }
        self.placements = placements
        self.scanSize = roundUp(bytes, toMultipleOf: largest)
    }

    /// The byte offset of the element called `name`, or nil if it is not enabled.
    public func offset(of name: String) -> Int? {
        placements.first { $0.element.name == name }?.offset
    }

    /// Decodes element `name` from the scan that starts at `scanOffset` in `bytes`.
    ///
    /// `repetition` picks one value of a repeated element (0 for the first).
    /// Nil when the element is not enabled, `repetition` is out of range, or
    /// `bytes` holds less than a whole scan from `scanOffset`.
    public func decode(
        _ bytes: UnsafeRawBufferPointer, element name: String, repetition: Int = 0, scanOffset: Int = 0
    ) -> Int64? {
        guard let placement = placements.first(where: { $0.element.name == name }) else { return nil }
        let type = placement.element.type
        guard repetition >= 0, repetition < type.repeatCount else { return nil }
        guard scanOffset >= 0, scanOffset <= bytes.count - scanSize else { return nil }
        return type.decode(bytes, at: scanOffset + placement.offset + repetition * type.storageBytes)
    }

    /// Decodes element `name` from a byte array; see `decode(_:element:repetition:scanOffset:)`.
    public func decode(_ bytes: [UInt8], element name: String, repetition: Int = 0, scanOffset: Int = 0) -> Int64? {
        bytes.withUnsafeBytes { decode($0, element: name, repetition: repetition, scanOffset: scanOffset) }
    }
}

/// A set of scan elements that cannot form a scan.
public struct ScanLayoutError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, for a log line.
    public var message: String
    /// The message.
    public var description: String { message }
}

private func roundUp(_ value: Int, toMultipleOf unit: Int) -> Int {
    (value + unit - 1) / unit * unit
}
