import Testing

import OrientSense

/// Which of the daemon's own pages it releases after start-up (ProgramSegments).
@Suite("Program segments released after start-up")
struct ProgramSegmentsTests {
    typealias Load = ProgramSegments.Load
    let page: UInt = 4096

    @Test("orientd's own layout: the read-only and the executable segments, rounded inward; the writable ones never")
    func orientdLayout() {
        // `readelf -l` of a release orientd: R, R E, RW (RELRO), RW.
        let loads = [
            Load(virtualAddress: 0x0, memorySize: 0xfe8b8, writable: false),
            Load(virtualAddress: 0xff8c0, memorySize: 0x4ba660, writable: false),
            Load(virtualAddress: 0x5baf20, memorySize: 0x1f0e0, writable: true),
            Load(virtualAddress: 0x5da8b8, memorySize: 0x14eb48, writable: true),
        ]
        let base: UInt = 0x5555_5555_4000
        let ranges = ProgramSegments.releasable(loads, base: base, pageSize: page)
        #expect(ranges == [base + 0x0..<base + 0xfe000, base + 0x100000..<base + 0x5b9000])
        for range in ranges {
            #expect(range.lowerBound % page == 0 && range.upperBound % page == 0)
        }
    }

    @Test("a segment holding no whole page, or none at all, gives nothing")
    func noWholePage() {
        let loads = [
            Load(virtualAddress: 0x1010, memorySize: 0x800, writable: false),
            Load(virtualAddress: 0x3000, memorySize: 0, writable: false),
            Load(virtualAddress: 0x5ff0, memorySize: 0x1000, writable: false),
        ]
        #expect(ProgramSegments.releasable(loads, base: 0, pageSize: page).isEmpty)
    }

    @Test("a read-only segment overlapping a writable one (a malformed header) loses the writable one's pages, rounded outward")
    func writableNeverReleased() {
        let loads = [
            Load(virtualAddress: 0x0, memorySize: 0x10000, writable: false),
            Load(virtualAddress: 0x4800, memorySize: 0x1000, writable: true),
        ]
        #expect(ProgramSegments.releasable(loads, base: 0, pageSize: page) == [0x0..<0x4000, 0x6000..<0x10000])
    }

    @Test("figures that overflow the address space, and page sizes that are no power of two, give nothing")
    func hostileFigures() {
        let huge = [Load(virtualAddress: UInt.max - 0x1000, memorySize: 0x10000, writable: false)]
        #expect(ProgramSegments.releasable(huge, base: 0x10000, pageSize: page).isEmpty)
        #expect(ProgramSegments.releasable(huge, base: 0, pageSize: page).isEmpty)
        let plain = [Load(virtualAddress: 0, memorySize: 0x10000, writable: false)]
        #expect(ProgramSegments.releasable(plain, base: 0, pageSize: 0).isEmpty)
        #expect(ProgramSegments.releasable(plain, base: 0, pageSize: 3000).isEmpty)
        #expect(ProgramSegments.releasable(plain, base: 0, pageSize: 0x10000) == [0..<0x10000])
    }

    @Test("ranges come in address order whatever the headers' order, on 16 KiB pages too")
    func addressOrder() {
        let loads = [
            Load(virtualAddress: 0x40000, memorySize: 0x8000, writable: false),
            Load(virtualAddress: 0x0, memorySize: 0x8000, writable: false),
        ]
        #expect(ProgramSegments.releasable(loads, base: 0, pageSize: 0x4000) == [0x0..<0x8000, 0x40000..<0x48000])
    }

    @Test("the writable segments, rounded outward, in address order; overflowing figures give nothing")
    func writableSpans() {
        let loads = [
            ProgramSegments.Load(virtualAddress: 0x5afef8, memorySize: 0x14f508, writable: true),
            ProgramSegments.Load(virtualAddress: 0xed1d0, memorySize: 0x4a2180, writable: false),
            ProgramSegments.Load(virtualAddress: 0x590350, memorySize: 0x1ecb0, writable: true),
            ProgramSegments.Load(virtualAddress: UInt.max - 10, memorySize: 0x100, writable: true),
        ]
        #expect(ProgramSegments.writable(loads, base: 0x1000_0000, pageSize: 4096) == [
            0x1059_0000..<0x105a_f000, 0x105a_f000..<0x1070_0000,
        ])
        #expect(ProgramSegments.writable(loads, base: 0, pageSize: 3000) == [])
    }

    static let present: UInt64 = 1 << 63, file: UInt64 = 1 << 61, swapped: UInt64 = 1 << 62

    @Test("of a writable segment only pages present and file-backed are released: a written (anonymous), swapped or absent page ends a run")
    func unwrittenRuns() {
        let p = Self.present, f = Self.file
        let entries: [UInt64] = [p | f, p | f | 0x1234, p, 0, p | f, Self.swapped | f, p | f, p | f]
        #expect(ProgramSegments.unwrittenRuns(entries, start: 0x10000, pageSize: 4096) == [
            0x10000..<0x12000, 0x14000..<0x15000, 0x16000..<0x18000,
        ])
        #expect(ProgramSegments.unwrittenRuns([], start: 0x10000, pageSize: 4096) == [])
        #expect(ProgramSegments.unwrittenRuns([p, p, 0], start: 0x10000, pageSize: 4096) == [])
    }

    @Test("a run never reaches past the end of the address space, however many entries are given")
    func unwrittenRunsAtTheTop() {
        let entries = [UInt64](repeating: Self.present | Self.file, count: 4)
        // From the last two pages: no Range<UInt> can end past them, so none is given.
        #expect(ProgramSegments.unwrittenRuns(entries, start: UInt.max - 0x1fff, pageSize: 4096) == [])
        // Two pages that fit, then one ending at the top: only the run that fits.
        let start = UInt.max - 0x4fff
        #expect(ProgramSegments.unwrittenRuns([Self.present | Self.file, Self.present | Self.file, 0], start: start, pageSize: 4096)
            == [start..<start + 0x2000])
    }
}
