// fuzz-scan: IIO scan element types (`scan_elements/*_type`) and buffered scans.
//
// Input: a text part, a NUL byte, then a bytes part (no NUL: all text, no bytes).
// - The whole text part goes through ScanType(parsing:).
// - The text part split at '|' gives up to four types for the elements
//   in_accel_x, in_accel_y, in_accel_z and in_timestamp; the first bytes of the
//   bytes part give their `_index` (so duplicates and reorderings happen), and a
//   ScanLayout of the types that parsed decodes every scan in the bytes part.
// - Every parsed type decodes the bytes part at every offset.
//
// Invariants beyond "no crash":
// - a type's description re-parses to the same type; an error's column lies
//   within the text (or one past its end);
// - decode agrees with a bit-by-bit reference decoder and stays within the range
//   of `bits` signed or unsigned bits;
// - a layout's placements are aligned to their size, inside the scan, in index
//   order and do not overlap; the scan size is a multiple of the largest element;
// - ScanLayout.decode agrees with ScanType.decode at the placement's offset, and
//   gives nil for a scan that is not wholly inside the bytes;
// - the sysfs texts of buffered capture (ScanSelection): `_en` parses to a
//   bool only where `_index` parses to a number, true for a non-zero one;
//   that number is never negative; the element list of any file names holds only `_en` files' names;
// - ScanReader gives the same scans fed the bytes whole or in two pieces split
//   anywhere, and keeps less than one scan pending.
import FuzzSupport
import OrientDevices

let elementNames = ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScan(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    let split = input.firstIndex(of: 0) ?? input.count
    let textBytes = input[..<split]
    let bytes = split < input.count ? Array(input[(split + 1)...]) : []
    let text = String(decoding: textBytes, as: UTF8.self)

    if let type = parseType(text) { checkDecode(type, bytes) }

    var elements: [ScanElement] = []
    for (k, part) in text.split(separator: "|", omittingEmptySubsequences: false).prefix(4).enumerated() {
        guard let type = parseType(String(part)) else { continue }
        if elements.count < 4 { checkDecode(type, bytes) }
        let index = k < bytes.count ? Int(bytes[k] % 8) : k
        elements.append(ScanElement(name: elementNames[k], index: index, type: type))
    }
    checkSelectionTexts(text)
    guard let layout = try? ScanLayout(elements: elements) else { return 0 }
    checkLayout(layout, bytes)
    checkReader(layout, elements, bytes)
    return 0
}

/// ScanSelection's parsers of `_en`, `_index`, `current_trigger` and file lists.
func checkSelectionTexts(_ text: String) {
    let enabled = ScanSelection.parseEnabled(text)
    let count = ScanSelection.parseIndex(text)
    fuzzCheck(enabled == count.map { $0 != 0 }, "'\(shown(text))' parsed as enabled \(String(describing: enabled)), as a number \(String(describing: count))")
    if let index = ScanSelection.parseIndex(text) { fuzzCheck(index >= 0, "index \(index)") }
    _ = ScanSelection.isUnset(trigger: text)
    let files = text.split(separator: "|").map(String.init)
    for name in ScanSelection.elementNames(files: files) {
        fuzzCheck(files.contains("\(name)_en"), "element \(shown(name)) without an _en file")
    }
}

/// The same scans whether the bytes come at once or in two pieces.
func checkReader(_ layout: ScanLayout, _ elements: [ScanElement], _ bytes: [UInt8]) {
    let channels = elements.map(\.name).filter { $0 != "in_timestamp" }
    let timestamp = elements.contains { $0.name == "in_timestamp" } ? "in_timestamp" : nil
    guard var whole = try? ScanReader(layout: layout, channels: channels, timestamp: timestamp) else { return }
    var pieces = whole
    let all = whole.feed(bytes)
    let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    let split = pieces.feed(Array(bytes[..<cut])) + pieces.feed(Array(bytes[cut...]))
    fuzzCheck(all == split, "\(all.count) scans fed whole, \(split.count) fed split at \(cut)")
    fuzzCheck(whole.pendingCount < layout.scanSize && pieces.pendingCount == whole.pendingCount, "pending \(whole.pendingCount)")
}

/// Parses `text`, checking the error or the description round trip.
func parseType(_ text: String) -> ScanType? {
    do {
        let type = try ScanType(parsing: text)
        fuzzCheck((1...type.storageBits).contains(type.bits), "bits \(type.bits) of \(type.storageBits)")
        fuzzCheck([8, 16, 32, 64].contains(type.storageBits), "storage bits \(type.storageBits)")
        fuzzCheck((0..<type.storageBits).contains(type.shift), "shift \(type.shift)")
        fuzzCheck(type.repeatCount >= 1, "repeat \(type.repeatCount)")
        let again = try? ScanType(parsing: type.description)
        fuzzCheck(again == type, "\(type.description) parses to \(String(describing: again)), not \(type)")
        return type
    } catch {
        fuzzCheck(error.column >= 1 && error.column <= max(text.utf8.count, 64) + 1, "error column \(error.column): \(error)")
        fuzzCheck(!error.message.isEmpty, "error without a message")
        return nil
    }
}

/// Decodes `bytes` at every offset (at most 64) and compares with the reference.
func checkDecode(_ type: ScanType, _ bytes: [UInt8]) {
    guard bytes.count >= type.storageBytes else { return }
    for offset in 0...min(bytes.count - type.storageBytes, 64) {
        let value = type.decode(bytes, at: offset)
        let expected = reference(type, bytes, offset)
        fuzzCheck(value == expected, "\(type) at \(offset) decodes to \(value), the reference says \(expected)")
        if type.bits < 64 {
            // Signed: the bits above bit `bits - 1` are copies of it; unsigned: zeros.
            let high = value >> Int64(type.signed ? type.bits - 1 : type.bits)
            fuzzCheck(high == 0 || (type.signed && high == -1), "\(type) decodes to \(value), outside its \(type.bits) bits")
        }
    }
}

/// The value as the kernel ABI describes it, one bit at a time: the stored word
/// (in its endianness), shifted right, the low `bits` kept, then sign-extended.
func reference(_ type: ScanType, _ bytes: [UInt8], _ offset: Int) -> Int64 {
    let count = type.storageBytes
    // Bit i of the stored word, least significant first.
    func storedBit(_ i: Int) -> Bool {
        let byteInWord = i / 8
        let byte = type.bigEndian ? bytes[offset + count - 1 - byteInWord] : bytes[offset + byteInWord]
        return byte >> UInt8(i % 8) & 1 == 1
    }
    var value: UInt64 = 0
    for i in 0..<type.bits where type.shift + i < type.storageBits && storedBit(type.shift + i) {
        value |= 1 << UInt64(i)
    }
    if type.signed, type.bits < 64, value >> UInt64(type.bits - 1) & 1 == 1 {
        value |= ~0 << UInt64(type.bits)
    }
    return Int64(bitPattern: value)
}

func checkLayout(_ layout: ScanLayout, _ bytes: [UInt8]) {
    var end = 0
    var largest = 1
    var lastIndex = -1
    for placement in layout.placements {
        let size = placement.element.type.elementBytes
        fuzzCheck(placement.offset % size == 0, "\(placement.element.name) at \(placement.offset) is not aligned to \(size)")
        fuzzCheck(placement.offset >= end, "\(placement.element.name) at \(placement.offset) overlaps the previous element")
        fuzzCheck(placement.element.index > lastIndex, "placements out of index order")
        end = placement.offset + size
        largest = max(largest, size)
        lastIndex = placement.element.index
    }
    fuzzCheck(end <= layout.scanSize, "elements end at \(end), past the scan size \(layout.scanSize)")
    fuzzCheck(layout.scanSize % largest == 0, "scan size \(layout.scanSize) is not a multiple of \(largest)")

    let scans = bytes.count / layout.scanSize
    for scan in 0..<min(scans, 8) {
        let scanOffset = scan * layout.scanSize
        for placement in layout.placements {
            let type = placement.element.type
            for repetition in Set([0, type.repeatCount - 1]) {
                let value = layout.decode(bytes, element: placement.element.name, repetition: repetition, scanOffset: scanOffset)
                let expected = type.decode(bytes, at: scanOffset + placement.offset + repetition * type.storageBytes)
                fuzzCheck(value == expected, "layout decodes \(placement.element.name)[\(repetition)] as \(String(describing: value)), not \(expected)")
            }
            fuzzCheck(
                layout.decode(bytes, element: placement.element.name, repetition: type.repeatCount, scanOffset: scanOffset) == nil,
                "a repetition past the repeat count decodes")
        }
    }
    if let first = layout.placements.first {
        let name = first.element.name
        fuzzCheck(layout.decode(bytes, element: name, scanOffset: scans * layout.scanSize) == nil, "a partial scan decodes")
        fuzzCheck(layout.decode(bytes, element: name, scanOffset: -1) == nil, "a negative scan offset decodes")
    }
    fuzzCheck(layout.decode(bytes, element: "in_nothing") == nil, "an element that is not enabled decodes")
}
