import Foundation
import Testing

import OrientSense

/// `/proc/PID/maps` lines, and which of the libraries' pages the daemon
/// unmaps with its own once start-up is over (MemoryMaps).
@Suite("Memory maps and the libraries' pages")
struct MemoryMapsTests {
    typealias Region = MemoryMaps.Region

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Lines as a Debian 12 orientd has them (`cat /proc/PID/maps`).
    static let orientdMaps = """
        55e7d12b2000-55e7d139f000 r--p 00000000 fe:01 1837364                    /usr/sbin/orientd
        55e7d139f000-55e7d1846000 r-xp 000ec000 fe:01 1837364                    /usr/sbin/orientd
        55e7d1846000-55e7d1865000 r--p 00592000 fe:01 1837364                    /usr/sbin/orientd
        55e7d1865000-55e7d1981000 rw-p 005b0000 fe:01 1837364                    /usr/sbin/orientd
        55e7d2a1d000-55e7d2a5f000 rw-p 00000000 00:00 0                          [heap]
        7f107e745000-7f107e79c000 r--p 00000000 fe:00 323409                     /usr/lib/locale/C.utf8/LC_CTYPE
        7f107e7a5000-7f107e7cb000 r--p 00000000 fe:00 333151                     /usr/lib/x86_64-linux-gnu/libc.so.6
        7f107e7cb000-7f107e921000 r-xp 00026000 fe:00 333151                     /usr/lib/x86_64-linux-gnu/libc.so.6
        7f107e921000-7f107e974000 r--p 0017c000 fe:00 333151                     /usr/lib/x86_64-linux-gnu/libc.so.6
        7f107e974000-7f107e978000 r--p 001cf000 fe:00 333151                     /usr/lib/x86_64-linux-gnu/libc.so.6
        7f107e978000-7f107e97a000 rw-p 001d3000 fe:00 333151                     /usr/lib/x86_64-linux-gnu/libc.so.6
        7f107e97a000-7f107e987000 rw-p 00000000 00:00 0 
        7f107e98b000-7f107e992000 r--s 00000000 fe:00 332619                     /usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache
        7f107e995000-7f107e999000 r--p 00000000 00:00 0                          [vvar]
        7f107e999000-7f107e99b000 r-xp 00000000 00:00 0                          [vdso]
        7f107e9a0000-7f107e9a1000 ---p 00000000 00:00 0 
        7f107e9b0000-7f107e9b4000 r--p 00000000 fe:00 400001                     /usr/lib/x86_64-linux-gnu/lib with space.so (deleted)
        ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]

        """

    @Test("every field of a maps line: the range, the permissions, the offset, the inode and the path")
    func fields() throws {
        let (regions, errors) = MemoryMaps.parse(Self.bytes(Self.orientdMaps))
        #expect(errors.isEmpty, "\(errors)")
        #expect(regions.count == 18)
        let text = regions[1]
        #expect(text.range == 0x55e7_d139_f000..<0x55e7_d184_6000)
        #expect(text.readable && !text.writable && text.executable && !text.shared)
        #expect(text.offset == 0xec000 && text.inode == 1_837_364 && text.path == "/usr/sbin/orientd")
        #expect(regions[4].path == "[heap]" && regions[4].inode == 0)
        #expect(regions[11].path == "" && regions[11].writable)
        #expect(regions[12].shared)
        #expect(regions[15] == Region(range: 0x7f10_7e9a_0000..<0x7f10_7e9a_1000, readable: false, writable: false,
                                      executable: false, shared: false, offset: 0, inode: 0, path: ""))
        #expect(regions[16].path == "/usr/lib/x86_64-linux-gnu/lib with space.so (deleted)")
        #expect(regions[17].range.upperBound == 0xffff_ffff_ff60_1000 && regions[17].executable && !regions[17].readable)
    }

    @Test("a region written back as the kernel writes it parses to the same region")
    func roundTrip() throws {
        let (regions, _) = MemoryMaps.parse(Self.bytes(Self.orientdMaps))
        for region in regions {
            let line = MemoryMaps.line(region)
            #expect(try MemoryMaps.parseLine(ArraySlice(line.utf8), number: 1) == region, "\(line)")
        }
    }

    @Test("the libraries' read-only mappings of a file: not orientd's own, not written, shared, anonymous or a pseudo file")
    func libraryRanges() throws {
        let (regions, _) = MemoryMaps.parse(Self.bytes(Self.orientdMaps))
        // orientd's own segments, as ProgramSegments gives them (read-only rounded inward, writable outward).
        let own: [Range<UInt>] = [0x55e7_d12b_2000..<0x55e7_d139_e000, 0x55e7_d139_f000..<0x55e7_d184_6000,
                                  0x55e7_d184_6000..<0x55e7_d198_1000]
        let ranges = MemoryMaps.libraryRanges(regions, excluding: own)
        #expect(ranges == [
            0x7f10_7e74_5000..<0x7f10_7e79_c000,  // the locale, a read-only file too
            0x7f10_7e7a_5000..<0x7f10_7e7c_b000, 0x7f10_7e7c_b000..<0x7f10_7e92_1000,
            0x7f10_7e92_1000..<0x7f10_7e97_4000,
            // libc's RELRO, read-only now: which of its pages are still the file's is the page map's to say.
            0x7f10_7e97_4000..<0x7f10_7e97_8000,
            0x7f10_7e9b_0000..<0x7f10_7e9b_4000,
        ])
        #expect(MemoryMaps.libraryRanges(regions, excluding: []).contains(0x55e7_d139_f000..<0x55e7_d184_6000))
    }

    @Test("the test process's own maps parse without an error and name libc")
    func ownMaps() throws {
        let text = try Data(contentsOf: URL(fileURLWithPath: "/proc/self/maps"))
        let (regions, errors) = MemoryMaps.parse(Array(text))
        #expect(errors.isEmpty, "\(errors)")
        #expect(regions.contains { $0.path.contains("libc.so") && $0.executable })
        #expect(!MemoryMaps.libraryRanges(regions, excluding: []).isEmpty)
    }

    @Test("a malformed line is an error naming its line and column, and the good lines are kept", arguments: [
        ("zz-10 r--p 0 fe:00 1 /x", 1, "the start address must be hexadecimal"),
        ("1000 r--p 0 fe:00 1 /x", 5, "the start address must be followed by '-'"),
        ("-1000 r--p 0 fe:00 1 /x", 1, "the start address is missing"),
        ("1000-1000 r--p 0 fe:00 1 /x", 1, "is empty or out of order"),
        ("2000-1000 r--p 0 fe:00 1 /x", 1, "is empty or out of order"),
        ("1000-2000 r--q 0 fe:00 1 /x", 14, "permission 4 must be 's' or 'p'"),
        ("1000-2000 rw 0 fe:00 1 /x", 11, "permissions must be 4 characters"),
        ("1000-2000 r-xpp 0 fe:00 1 /x", 11, "permissions must be 4 characters"),
        ("1000-2000 R--p 0 fe:00 1 /x", 11, "permission 1 must be 'r' or '-'"),
        ("1000-2000 r--p 0g fe:00 1 /x", 17, "the offset must be hexadecimal"),
        ("1000-2000 r--p 0 fe00 1 /x", 18, "the device must be major:minor"),
        ("1000-2000 r--p 0 fe:00:01 1 /x", 18, "the device must be major:minor"),
        ("1000-2000 r--p 0 :00 1 /x", 18, "the device must be major:minor"),
        ("1000-2000 r--p 0 fe:00 -1 /x", 24, "the inode must be decimal"),
        ("1000-2000 r--p 0 fe:00 18446744073709551616 /x", 24, "the inode does not fit 64 bits"),
        ("1000-2000 r--p 0 fe:00", 23, "the inode is missing"),
        ("1000-2000", 10, "the end address must be followed by ' '"),
        ("10000000000000000-20000000000000000 r--p 0 fe:00 1 /x", 1, "17 hex digits, more than 16"),
    ])
    func malformed(line: String, column: Int, message: String) {
        let text = "1000-2000 r--p 00000000 fe:00 1 /good\n" + line + "\n3000-4000 r-xp 00000000 fe:00 2 /also-good\n"
        let (regions, errors) = MemoryMaps.parse(Self.bytes(text))
        #expect(regions.map(\.path) == ["/good", "/also-good"])
        #expect(errors.count == 1)
        #expect(errors.first?.line == 2 && errors.first?.column == column, "\(errors)")
        #expect(errors.first?.description.hasPrefix("/proc/self/maps:2:\(column): ") == true, "\(errors)")
        #expect(errors.first?.message.contains(message) == true, "\(errors)")
    }

    @Test("hostile text: more than a maps file is read to, NULs, invalid UTF-8 in a path, a line without its newline")
    func hostile() throws {
        let huge = [UInt8](repeating: UInt8(ascii: "1"), count: MemoryMaps.maximumBytes + 1)
        let (none, errors) = MemoryMaps.parse(huge)
        #expect(none.isEmpty && errors.count == 1 && errors[0].line == 1)

        let (regions, bad) = MemoryMaps.parse([0, 0, 10] + Self.bytes("1000-2000 r--p 0 fe:00 1 /x") + [0xff, 0xfe])
        #expect(bad.count == 1 && bad[0].line == 1)
        #expect(regions.count == 1 && regions[0].path == "/x\u{FFFD}\u{FFFD}")

        // Nothing but spaces and newlines, and an empty file.
        #expect(MemoryMaps.parse(Self.bytes("\n\n\n")).errors.isEmpty)
        #expect(MemoryMaps.parse([]).regions.isEmpty)
        #expect(MemoryMaps.parse(Self.bytes("   \n")).errors.first?.column == 1)
    }
}
