/// The lines of `/proc/PID/maps`, and which of the libraries' pages the daemon
/// releases with its own (`ProgramSegments`).
///
/// orientd's own binary is not all it keeps mapped after start-up: the
/// dynamic loader ran through the symbol tables of every library it links,
/// and libsystemd's start-up through libgcrypt, liblzma, libzstd and liblz4.
/// Those pages are in the page cache whether orientd maps them or not (other
/// programs map them too), so the daemon only unmaps them (`MADV_DONTNEED`):
/// what runs afterwards faults back in from the cache. Only pages the kernel
/// could drop itself are chosen: present, file-backed pages of private,
/// non-writable mappings of a file. A page the loader wrote (relocations,
/// made read-only after: `RELRO`) is anonymous and is never chosen.
package enum MemoryMaps {
    /// One line of `/proc/PID/maps`: `start-end perms offset major:minor inode path`.
    package struct Region: Equatable, Sendable {
        package var range: Range<UInt>
        package var readable: Bool
        package var writable: Bool
        package var executable: Bool
        /// `s` rather than `p` in the fourth permission column.
        package var shared: Bool
        package var offset: UInt64
        package var inode: UInt64
        /// The mapped file's path, `[heap]`-like pseudo names, or empty for
        /// an anonymous mapping; the kernel appends ` (deleted)` to a file
        /// that has been removed.
        package var path: String

        package init(
            range: Range<UInt>, readable: Bool, writable: Bool, executable: Bool, shared: Bool,
            offset: UInt64, inode: UInt64, path: String
        ) {
            self.range = range
            self.readable = readable
            self.writable = writable
            self.executable = executable
            self.shared = shared
            self.offset = offset
            self.inode = inode
            self.path = path
        }
    }

    /// The region as the kernel writes its line (without the newline); it
    /// parses back to the same region.
    package static func line(_ region: Region) -> String {
        func hex<T: BinaryInteger>(_ value: T, width: Int) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let permissions = (region.readable ? "r" : "-") + (region.writable ? "w" : "-") + (region.executable ? "x" : "-")
            + (region.shared ? "s" : "p")
        let head = "\(hex(region.range.lowerBound, width: 8))-\(hex(region.range.upperBound, width: 8)) \(permissions) "
            + "\(hex(region.offset, width: 8)) 00:00 \(region.inode)"
        return region.path.isEmpty ? head : head + String(repeating: " ", count: max(1, 73 - head.count)) + region.path
    }

    /// A line that is not a maps line: where (1-based line and column) and what.
    package struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        package var line: Int
        package var column: Int
        package var message: String
        package var description: String { "/proc/self/maps:\(line):\(column): \(message)" }
    }

    /// The longest maps text read: a daemon with a few dozen mappings has a
    /// few KiB of it.
    package static let maximumBytes = 1 << 20

    /// Every region of `text` (the whole of a maps file), with an error for
    /// each line that is not one; the good lines are kept either way. More
    /// than `maximumBytes` gives one error and no regions.
    package static func parse(_ text: [UInt8]) -> (regions: [Region], errors: [ParseError]) {
        guard text.count <= maximumBytes else {
            return ([], [ParseError(line: 1, column: 1, message: "\(text.count) bytes, more than the \(maximumBytes) a maps file is read to")])
        }
        var regions: [Region] = []
        var errors: [ParseError] = []
        var number = 0
        for line in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            if line.isEmpty { continue }
            do { regions.append(try parseLine(line, number: number)) } catch { errors.append(error) }
        }
        return (regions, errors)
    }

    /// One line (without its newline); `number` is its line number for errors.
    package static func parseLine(_ line: ArraySlice<UInt8>, number: Int) throws(ParseError) -> Region {
        var cursor = Cursor(bytes: line, number: number)
        let start = try cursor.hex("the start address", upTo: UInt8(ascii: "-"))
        let end = try cursor.hex("the end address", upTo: UInt8(ascii: " "))
        guard start < end, let startAddress = UInt(exactly: start), let endAddress = UInt(exactly: end) else {
            throw cursor.error("the range \(String(start, radix: 16))-\(String(end, radix: 16)) is empty or out of order", at: 1)
        }
        let permissionsColumn = cursor.column
        let permissions = try cursor.field("the permissions")
        guard permissions.count == 4 else {
            throw cursor.error("permissions must be 4 characters (rwxp), not \(permissions.count)", at: permissionsColumn)
        }
        func flag(_ index: Int, _ set: Character, _ unset: Character = "-") throws(ParseError) -> Bool {
            let byte = permissions[permissions.startIndex + index]
            if byte == set.asciiValue { return true }
            if byte == unset.asciiValue { return false }
            throw cursor.error("permission \(index + 1) must be '\(set)' or '\(unset)'", at: permissionsColumn + index)
        }
        let readable = try flag(0, "r"), writable = try flag(1, "w"), executable = try flag(2, "x")
        let shared = try flag(3, "s", "p")
        let offset = try cursor.hex("the offset", upTo: UInt8(ascii: " "))
        let deviceColumn = cursor.column
        let device = try cursor.field("the device")
        guard let colon = device.firstIndex(of: UInt8(ascii: ":")), colon > device.startIndex, colon < device.endIndex - 1,
            device.allSatisfy({ $0 == UInt8(ascii: ":") || Self.hexDigit($0) != nil }),
            device.filter({ $0 == UInt8(ascii: ":") }).count == 1
        else { throw cursor.error("the device must be major:minor in hex", at: deviceColumn) }
        let inode = try cursor.decimal("the inode")
        // The path: after the padding, to the end of the line (it may hold spaces).
        let rest = cursor.rest.drop { $0 == UInt8(ascii: " ") }
        return Region(
            range: startAddress..<endAddress, readable: readable, writable: writable, executable: executable,
            shared: shared, offset: offset, inode: inode, path: String(decoding: rest, as: UTF8.self))
    }

    /// The ranges of `regions` whose pages the daemon may unmap once start-up
    /// is over, in address order: private, non-writable mappings of a file
    /// (a path beginning with `/`, an inode), none overlapping `excluding`
    /// (orientd's own segments, which `ProgramSegments` releases). Which of
    /// their pages are still the file's is for the page map to say
    /// (`ProgramSegments.unwrittenRuns`).
    package static func libraryRanges(_ regions: [Region], excluding: [Range<UInt>]) -> [Range<UInt>] {
        regions.filter { region in
            !region.shared && !region.writable && (region.readable || region.executable) && region.inode != 0
                && region.path.hasPrefix("/") && !excluding.contains { $0.overlaps(region.range) }
        }
        .map(\.range).sorted { $0.lowerBound < $1.lowerBound }
    }

    private static func hexDigit(_ byte: UInt8) -> UInt64? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt64(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt64(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt64(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// Walks one line field by field, knowing the column it is at.
    private struct Cursor {
        var rest: ArraySlice<UInt8>
        let lineStart: Int
        let number: Int

        init(bytes: ArraySlice<UInt8>, number: Int) {
            rest = bytes
            lineStart = bytes.startIndex
            self.number = number
        }

        var column: Int { rest.startIndex - lineStart + 1 }

        func error(_ message: String, at column: Int? = nil) -> ParseError {
            ParseError(line: number, column: column ?? self.column, message: message)
        }

        /// The bytes up to the next space (one or more spaces end it; the end of the line does too).
        mutating func field(_ what: String) throws(ParseError) -> ArraySlice<UInt8> {
            let value = rest.prefix { $0 != UInt8(ascii: " ") }
            guard !value.isEmpty else { throw error("\(what) is missing") }
            rest = rest[value.endIndex...].drop { $0 == UInt8(ascii: " ") }
            return value
        }

        /// A hexadecimal number of at most 16 digits ended by `separator`.
        mutating func hex(_ what: String, upTo separator: UInt8) throws(ParseError) -> UInt64 {
            let digits = rest.prefix { MemoryMaps.hexDigit($0) != nil }
            let next = digits.endIndex < rest.endIndex ? rest[digits.endIndex] : nil
            if next != separator {
                guard next == nil || next == UInt8(ascii: " ") else {
                    throw error("\(what) must be hexadecimal", at: column + digits.count)
                }
                guard !digits.isEmpty else { throw error("\(what) is missing") }
                throw error("\(what) must be followed by '\(Character(Unicode.Scalar(separator)))'", at: column + digits.count)
            }
            guard !digits.isEmpty else { throw error("\(what) is missing") }
            guard digits.count <= 16 else { throw error("\(what) has \(digits.count) hex digits, more than 16") }
            let value = digits.reduce(UInt64(0)) { $0 << 4 | (MemoryMaps.hexDigit($1) ?? 0) }
            rest = rest[(digits.endIndex + 1)...]
            if separator == UInt8(ascii: " ") { rest = rest.drop { $0 == UInt8(ascii: " ") } }
            return value
        }

        /// A decimal number that fits 64 bits, ended by a space or the line's end.
        mutating func decimal(_ what: String) throws(ParseError) -> UInt64 {
            let start = column
            let digits = try field(what)
            var value: UInt64 = 0
            for (index, byte) in digits.enumerated() {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                    throw error("\(what) must be decimal", at: start + index)
                }
                let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowB) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                guard !(overflowA || overflowB) else { throw error("\(what) does not fit 64 bits", at: start) }
                value = sum
            }
            return value
        }
    }
}
