import TestSupport
import Testing

@testable import OrientDevices

/// Builds the stored bytes of `value` the way a driver does: the low `bits` of its
/// two's-complement pattern shifted left by `shift`, with `noise` in every bit of
/// the storage word outside that field (drivers leave status bits there), written
/// with the type's endianness.
func scanBytes(_ value: Int64, as type: ScanType, noise: UInt64 = 0) -> [UInt8] {
    let fieldMask: UInt64 = type.bits == 64 ? ~0 : (1 << UInt64(type.bits)) - 1
    let storageMask: UInt64 = type.storageBits == 64 ? ~0 : (1 << UInt64(type.storageBits)) - 1
    let field = (UInt64(bitPattern: value) & fieldMask) << UInt64(type.shift)
    let word = (field | (noise & ~(fieldMask << UInt64(type.shift)))) & storageMask
    let little = (0..<type.storageBytes).map { UInt8(truncatingIfNeeded: word >> UInt64(8 * $0)) }
    return type.bigEndian ? little.reversed() : little
}

func scanType(_ text: String) throws -> ScanType { try ScanType(parsing: text) }

@Suite("Scan element type")
struct ScanTypeTests {
    @Test(
        "parses the kernel's type strings",
        arguments: [
            ("le:s12/16>>4", false, true, 12, 16, 4, 1),
            ("be:s16/16>>0", true, true, 16, 16, 0, 1),
            ("le:u10/16>>0", false, false, 10, 16, 0, 1),
            ("le:s32/32>>0", false, true, 32, 32, 0, 1),
            ("le:s64/64>>0", false, true, 64, 64, 0, 1),
            ("le:s16/32X2>>0", false, true, 16, 32, 0, 2),
            ("be:u8/8>>0", true, false, 8, 8, 0, 1),
            ("le:s14/16>>2\n", false, true, 14, 16, 2, 1),
            ("be:s12/16>>4 \n", true, true, 12, 16, 4, 1),
            ("le:u1/64>>63", false, false, 1, 64, 63, 1),
        ])
    func parses(text: String, bigEndian: Bool, signed: Bool, bits: Int, storage: Int, shift: Int, repeatCount: Int) throws {
        let type = try scanType(text)
        #expect(type.bigEndian == bigEndian)
        #expect(type.signed == signed)
        #expect(type.bits == bits)
        #expect(type.storageBits == storage)
        #expect(type.shift == shift)
        #expect(type.repeatCount == repeatCount)
        #expect(type.storageBytes == storage / 8)
        #expect(type.elementBytes == storage / 8 * repeatCount)
    }

    @Test(
        "the description is the kernel's spelling and parses back to the same type",
        arguments: ["le:s12/16>>4", "be:s16/16>>0", "le:u10/16>>0", "le:s16/32X2>>0", "le:s64/64>>0"])
    func descriptionRoundTrips(text: String) throws {
        let type = try scanType(text + "\n")
        #expect(type.description == text)
        #expect(try scanType(type.description) == type)
    }

    @Test(
        "rejects malformed or impossible types naming the column",
        arguments: [
            ("", 1, "'le' or 'be'"),
            ("me:s12/16>>4", 1, "'le' or 'be'"),
            ("LE:s12/16>>4", 1, "'le' or 'be'"),
            ("le-s12/16>>4", 3, "expected ':'"),
            ("le:x12/16>>4", 4, "'s' or 'u'"),
            ("le:s/16>>4", 5, "expected a number (the bits)"),
            ("le:s12-16>>4", 7, "expected '/'"),
            ("le:s12/>>4", 8, "the storage bits"),
            ("le:s12/16>4", 10, "expected '>>'"),
            ("le:s12/16", 10, "expected '>>'"),
            ("le:s12/16>>", 12, "the shift"),
            ("le:s12/16>>4x", 13, "unexpected text"),
            ("le:s12/16X>>4", 11, "the repeat count"),
            ("le:s12/16X0>>4", 11, "repeat count is at least 1"),
            ("le:s12/12>>0", 8, "must be 8, 16, 32 or 64; found 12"),
            ("le:s24/24>>0", 8, "found 24"),
            ("le:s0/16>>0", 5, "at least 1 bit"),
            ("le:s17/16>>0", 5, "17 bits do not fit in 16"),
            ("le:s12/16>>16", 12, "shift 16 is not below the 16 storage bits"),
            ("le:s12/16>>99999", 12, "too large"),
            (" le:s12/16>>4", 1, "'le' or 'be'"),
            ("le:s12/16>>4\nle", 13, "unexpected text"),
        ])
    func rejects(text: String, column: Int, message: String) {
        let error = thrownError(ScanTypeError.self) { try ScanType(parsing: text) }
        #expect(error?.column == column)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.description == "column \(column): \(error?.message ?? "")")
    }

    /// Hand-assembled scans: each row is the bytes a driver stores and the value they mean.
    @Test(
        "decodes stored bytes to the value",
        arguments: [
            ("le:s12/16>>4", [0xF0, 0xFF], -1),
            ("le:s12/16>>4", [0x00, 0x80], -2048),
            ("le:s12/16>>4", [0xF0, 0x7F], 2047),
            ("le:s12/16>>4", [0x0F, 0x80], -2048),  // status bits below the field are dropped
            ("le:s12/16>>4", [0x30, 0xFE], -29),
            ("be:s16/16>>0", [0xFF, 0xFE], -2),
            ("be:s16/16>>0", [0x80, 0x00], -32768),
            ("be:s16/16>>0", [0x02, 0x0B], 523),
            ("le:u10/16>>0", [0xFF, 0x03], 1023),
            ("le:u10/16>>0", [0xFF, 0xFF], 1023),  // bits above the field are dropped
            ("le:u10/16>>0", [0x00, 0x02], 512),
            ("le:s32/32>>0", [0x00, 0x00, 0x00, 0x80], -2_147_483_648),
            ("le:s32/32>>0", [0x0B, 0x02, 0x00, 0x00], 523),
            ("be:s32/32>>0", [0xFF, 0xFF, 0xFF, 0xBD], -67),
            ("le:s64/64>>0", [0x00, 0xCA, 0x9A, 0x3B, 0x00, 0x00, 0x00, 0x00], 1_000_000_000),
            ("be:s64/64>>0", [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE], -2),
            ("le:u8/8>>0", [0xFF], 255),
            ("le:s8/8>>0", [0x80], -128),
            ("be:s12/16>>4", [0xFF, 0xF0], -1),
            ("le:s20/32>>8", [0xAA, 0x00, 0x00, 0xF8], -524_288),  // noise on both sides of the field
        ] as [(String, [UInt8], Int64)])
    func decodes(text: String, bytes: [UInt8], value: Int64) throws {
        let type = try scanType(text)
        #expect(type.decode(bytes) == value)
        #expect(type.decode(bytes, at: 0) == value)
    }

    @Test("every 12-bit value in le:s12/16>>4 sign-extends correctly (iio-sensor-proxy #191)")
    func twelveBitSignExtension() throws {
        let type = try scanType("le:s12/16>>4")
        for value in Int64(-2048)...2047 {
            #expect(type.decode(scanBytes(value, as: type)) == value)
            #expect(type.decode(scanBytes(value, as: type, noise: ~0)) == value, "status bits must not leak in")
        }
    }

    @Test(
        "the extreme and boundary values round-trip for every storage size, endianness, sign and shift",
        arguments: [8, 16, 32, 64], [false, true])
    func roundTripsExtremes(storage: Int, bigEndian: Bool) throws {
        for signed in [false, true] {
            for bits in Set([1, 2, storage / 2, storage - 1, storage]) where bits >= 1 {
                for shift in Set([0, 1, storage - bits]) where shift >= 0 && shift < storage && bits + shift <= storage {
                    let text = "\(bigEndian ? "be" : "le"):\(signed ? "s" : "u")\(bits)/\(storage)>>\(shift)"
                    let type = try scanType(text)
                    let values: [Int64]
                    if signed {
                        let minValue = bits == 64 ? Int64.min : -(Int64(1) << Int64(bits - 1))
                        let maxValue = bits == 64 ? Int64.max : (Int64(1) << Int64(bits - 1)) - 1
                        values = [minValue, minValue + (bits > 1 ? 1 : 0), -1, 0, maxValue]
                    } else {
                        let maxValue = bits >= 63 ? Int64.max : (Int64(1) << Int64(bits)) - 1
                        values = [0, 1 & maxValue, maxValue / 2, maxValue]
                    }
                    for value in values {
                        #expect(type.decode(scanBytes(value, as: type)) == value, "\(text) \(value)")
                        #expect(type.decode(scanBytes(value, as: type, noise: ~0)) == value, "\(text) \(value) with noise")
                    }
                }
            }
        }
    }

    @Test(
        "unsigned types give their full range, never a negative number",
        arguments: [("le:u8/8>>0", 255), ("be:u16/16>>0", 65535), ("le:u12/16>>4", 4095), ("le:u32/32>>0", 4_294_967_295),
            ("be:u63/64>>1", Int64.max)] as [(String, Int64)])
    func unsignedMaxima(text: String, maxValue: Int64) throws {
        let type = try scanType(text)
        let allOnes = [UInt8](repeating: 0xFF, count: type.storageBytes)
        #expect(type.decode(allOnes) == maxValue)
    }

    @Test("an unsigned 64-bit value above Int64.max comes back as its bit pattern")
    func unsigned64BitPattern() throws {
        let type = try scanType("le:u64/64>>0")
        #expect(type.decode([UInt8](repeating: 0xFF, count: 8)) == -1)
    }

    @Test("decoding reads at the offset and nowhere else, from a raw buffer or an array")
    func decodesAtOffset() throws {
        let type = try scanType("be:s16/16>>0")
        let bytes: [UInt8] = [0x7F, 0x7F, 0xFF, 0x85, 0x7F]
        #expect(type.decode(bytes, at: 2) == -123)
        #expect(bytes.withUnsafeBytes { type.decode($0, at: 2) } == -123)
        #expect(type.decode(bytes, at: 3) == Int64(Int16(bitPattern: 0x857F)))
    }
}
