/// How one IIO scan element is stored in a buffered scan: the kernel's
/// `scan_elements/<channel>_type` attribute.
///
/// The text form is `[be|le]:[s|u]BITS/STORAGEBITS[Xrepeat]>>SHIFT` (kernel ABI,
/// `Documentation/ABI/testing/sysfs-bus-iio`), for example `le:s12/16>>4`: a
/// little-endian 16-bit word whose bits 4…15 hold a signed 12-bit value.
///
/// ```swift
/// let type = try ScanType(parsing: "le:s12/16>>4\n")
/// type.decode([0xF0, 0xFF], at: 0)  // -1
/// ```
public struct ScanType: Sendable, Equatable, CustomStringConvertible {
    /// True for `be` (big-endian storage), false for `le`.
    public let bigEndian: Bool
    /// True for `s` (two's complement), false for `u`.
    public let signed: Bool
    /// Significant bits of the value (`realbits`), 1…`storageBits`.
    public let bits: Int
    /// Bits the value occupies in the scan: 8, 16, 32 or 64.
    public let storageBits: Int
    /// Right shift to apply to the stored word before masking, 0..<`storageBits`.
    public let shift: Int
    /// How many values of this type the element holds in a row (`X` suffix); 1 without it.
    public let repeatCount: Int

    /// Bytes of one stored value.
    public var storageBytes: Int { storageBits / 8 }

    /// Bytes of the whole element (`storageBytes` × `repeatCount`): its size and
    /// its alignment in a scan.
    public var elementBytes: Int { storageBytes * repeatCount }

    /// Parses the `_type` attribute text. A trailing newline (as sysfs gives it)
    /// and other trailing whitespace are ignored.
    ///
    /// Throws with a 1-based column on malformed text, on storage bits other than
    /// 8, 16, 32 or 64, on 0 bits or more bits than storage, on a shift not below
    /// the storage bits, and on a repeat count of 0.
    public init(parsing text: some StringProtocol) throws(ScanTypeError) {
        var chars = Array(String(text).utf8)
        while let last = chars.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 {
            chars.removeLast()
        }
        guard chars.count <= 64 else {
            throw ScanTypeError(column: 65, message: "scan type is too long (\(chars.count) bytes, at most 64)")
        }
        var i = 0

        func expect(_ literal: String, _ what: String) throws(ScanTypeError) {
            let start = i
            for byte in literal.utf8 {
                guard i < chars.count, chars[i] == byte else {
                    throw ScanTypeError(column: start + 1, message: "expected '\(literal)' \(what)")
                }
                i += 1
            }
        }

        func number(_ what: String) throws(ScanTypeError) -> (value: Int, column: Int) {
            let start = i
            var value = 0
            while i < chars.count, chars[i] >= 0x30, chars[i] <= 0x39 {
                guard i - start < 4 else {
                    throw ScanTypeError(column: start + 1, message: "\(what) is too large")
                }
                value = value * 10 + Int(chars[i] - 0x30)
                i += 1
            }
            guard i > start else {
                throw ScanTypeError(column: start + 1, message: "expected a number (\(what))")
            }
            return (value, start + 1)
        }

        let endianness = chars.count >= 2 ? String(decoding: chars[0..<2], as: UTF8.self) : ""
        switch endianness {
        case "le": bigEndian = false
        case "be": bigEndian = true
        default: throw ScanTypeError(column: 1, message: "expected 'le' or 'be' (the endianness)")
        }
        i = 2
        try expect(":", "after the endianness")
        guard i < chars.count, chars[i] == UInt8(ascii: "s") || chars[i] == UInt8(ascii: "u") else {
            throw ScanTypeError(column: i + 1, message: "expected 's' or 'u' (signed or unsigned)")
        }
        signed = chars[i] == UInt8(ascii: "s")
        i += 1
        let parsedBits = try number("the bits")
        try expect("/", "between the bits and the storage bits")
        let parsedStorage = try number("the storage bits")
        var parsedRepeat = (value: 1, column: 0)
        if i < chars.count, chars[i] == UInt8(ascii: "X") {
            i += 1
            parsedRepeat = try number("the repeat count")
        }
        try expect(">>", "before the shift")
        let parsedShift = try number("the shift")
        guard i == chars.count else {
            throw ScanTypeError(column: i + 1, message: "unexpected text after the shift")
        }

        guard [8, 16, 32, 64].contains(parsedStorage.value) else {
            throw ScanTypeError(
                column: parsedStorage.column,
                message: "storage bits must be 8, 16, 32 or 64; found \(parsedStorage.value)")
        }
        guard parsedBits.value > 0 else {
            throw ScanTypeError(column: parsedBits.column, message: "a value has at least 1 bit")
        }
        guard parsedBits.value <= parsedStorage.value else {
            throw ScanTypeError(
                column: parsedBits.column,
                message: "\(parsedBits.value) bits do not fit in \(parsedStorage.value) storage bits")
        }
        guard parsedShift.value < parsedStorage.value else {
            throw ScanTypeError(
                column: parsedShift.column,
                message: "shift \(parsedShift.value) is not below the \(parsedStorage.value) storage bits")
        }
        guard parsedRepeat.value > 0 else {
            throw ScanTypeError(column: parsedRepeat.column, message: "a repeat count is at least 1")
        }
        bits = parsedBits.value
        storageBits = parsedStorage.value
        shift = parsedShift.value
        repeatCount = parsedRepeat.value
    }

    /// Decodes one stored value: reads `storageBytes` at `offset` with the
    /// endianness, shifts right by `shift`, keeps the low `bits` and sign-extends
    /// them when `signed`.
    ///
    /// The caller guarantees `0 ≤ offset` and `offset + storageBytes ≤ bytes.count`
    /// (a `ScanLayout` checks the scan length for you). An unsigned 64-bit value
    /// above `Int64.max` comes back as its bit pattern.
    @inlinable
    public func decode(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int64 {
        let count = storageBits / 8
        precondition(offset >= 0 && offset + count <= bytes.count, "scan element outside the buffer")
        var word: UInt64 = 0
        if bigEndian {
            for k in 0..<count { word = word << 8 | UInt64(bytes[offset + k]) }
        } else {
            for k in 0..<count { word |= UInt64(bytes[offset + k]) << (8 * k) }
        }
        word >>= UInt64(shift)
        if bits < 64 {
            word &= (1 << UInt64(bits)) - 1
            if signed {
                let unused = UInt64(64 - bits)
                return Int64(bitPattern: word << unused) >> unused
            }
        }
        return Int64(bitPattern: word)
    }

    /// Decodes one stored value from a byte array; see `decode(_:at:)`.
    public func decode(_ bytes: [UInt8], at offset: Int = 0) -> Int64 {
        bytes.withUnsafeBytes { decode($0, at: offset) }
    }

    /// The canonical text form, as the kernel writes it (without the newline).
    public var description: String {
        let repeatText = repeatCount > 1 ? "X\(repeatCount)" : ""
        return "\(bigEndian ? "be" : "le"):\(signed ? "s" : "u")\(bits)/\(storageBits)\(repeatText)>>\(shift)"
    }
}

/// A scan element type that could not be parsed, with the 1-based column in its text.
public struct ScanTypeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based column in the type text where the problem is.
    public var column: Int
    /// What is wrong, for a log line.
    public var message: String
    /// `column N: message`.
    public var description: String { "column \(column): \(message)" }
}
