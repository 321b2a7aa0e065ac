/// Which of a program's own pages the daemon releases once start-up is over.
///
/// Most of orientd's resident memory is the pages of its own binary: the code,
/// metadata and unwind tables its start-up ran through (argument and
/// configuration parsing, device enumeration, the bus connection) stay mapped
/// after start-up ends. Like the kernel freeing its `__init` sections after
/// boot, the daemon asks the kernel to reclaim the pages of its read-only and
/// executable segments (`MADV_PAGEOUT`) when it starts serving and after a
/// reload; whatever runs afterwards is faulted in again from the page cache or
/// the file. Of a writable segment only the pages still as the file has them
/// are released (`unwrittenRuns`): a written page is the daemon's state.
/// docs/architecture.md (Memory) has the figures.
package enum ProgramSegments {
    /// One loadable segment of the program as its program header gives it
    /// (`PT_LOAD`): where it starts relative to the load base, its size in
    /// memory, and whether it is writable (`PF_W`).
    package struct Load: Equatable, Sendable {
        package var virtualAddress: UInt
        package var memorySize: UInt
        package var writable: Bool

        package init(virtualAddress: UInt, memorySize: UInt, writable: Bool) {
            self.virtualAddress = virtualAddress
            self.memorySize = memorySize
            self.writable = writable
        }
    }

    /// The address ranges, page-aligned, the daemon may release: each
    /// non-writable segment of `loads`, rounded inward to whole pages so that
    /// no page shared with a writable neighbour is ever included, in address
    /// order. A segment that holds no whole page gives nothing. `base` is the
    /// load base (where the program headers say they are against where the auxiliary vector's `AT_PHDR` found them); `pageSize` a power of two.
    package static func releasable(_ loads: [Load], base: UInt, pageSize: UInt) -> [Range<UInt>] {
        guard pageSize > 0, pageSize & (pageSize - 1) == 0 else { return [] }
        let mask = pageSize - 1
        func span(_ load: Load) -> Range<UInt>? { Self.span(load, base: base, mask: mask) }
        // A writable segment's pages, rounded outward, are never released,
        // even where a malformed header makes a read-only segment overlap one.
        let holes = loads.filter(\.writable).compactMap(span).map { ($0.lowerBound & ~mask)..<($0.upperBound & ~mask) }
        let ranges = loads.filter { !$0.writable }.compactMap(span).compactMap { bytes -> Range<UInt>? in
            // Inward: the first whole page to the last whole page.
            let first = (bytes.lowerBound &+ mask) & ~mask, last = (bytes.upperBound &- mask) & ~mask
            return first < last ? first..<last : nil
        }
        return ranges.sorted { $0.lowerBound < $1.lowerBound }.flatMap { subtracting(holes, from: $0) }
    }

    /// Each writable segment of `loads`, rounded outward to whole pages, in
    /// address order: where `unwrittenRuns` looks for pages to release.
    package static func writable(_ loads: [Load], base: UInt, pageSize: UInt) -> [Range<UInt>] {
        guard pageSize > 0, pageSize & (pageSize - 1) == 0 else { return [] }
        let mask = pageSize - 1
        return loads.filter(\.writable).compactMap { span($0, base: base, mask: mask) }
            .map { ($0.lowerBound & ~mask)..<($0.upperBound & ~mask) }
            .sorted { $0.lowerBound < $1.lowerBound }
    }

    /// The segment's bytes, its end rounded up to a page (`mask` is the page
    /// size less one), or nil where the header's figures overflow the address
    /// space or it holds nothing.
    private static func span(_ load: Load, base: UInt, mask: UInt) -> Range<UInt>? {
        let (start, overflowA) = base.addingReportingOverflow(load.virtualAddress)
        let (end, overflowB) = start.addingReportingOverflow(load.memorySize)
        let (endRoundedUp, overflowC) = end.addingReportingOverflow(mask)
        return overflowA || overflowB || overflowC || load.memorySize == 0 ? nil : start..<endRoundedUp
    }

    /// The runs of pages, from `start`, that `/proc/self/pagemap`'s `entries`
    /// (one per page) show present and file-backed: in a private writable
    /// mapping, the pages never written, which the kernel can read from the
    /// file again. A written page (copy-on-write, anonymous: bit 61 clear),
    /// a swapped or absent one is never included.
    package static func unwrittenRuns(_ entries: [UInt64], start: UInt, pageSize: UInt) -> [Range<UInt>] {
        let present: UInt64 = 1 << 63, file: UInt64 = 1 << 61
        var runs: [Range<UInt>] = []
        var runStart: UInt?
        for (i, entry) in entries.enumerated() {
            let (offset, overflowA) = UInt(i).multipliedReportingOverflow(by: pageSize)
            let (address, overflowB) = start.addingReportingOverflow(offset)
            guard !(overflowA || overflowB) else { break }
            if entry & present != 0, entry & file != 0 {
                if runStart == nil { runStart = address }
            } else if let first = runStart {
                runs.append(first..<address)
                runStart = nil
            }
        }
        // A run still open ends after the last entry (a run past the end of
        // the address space was never opened: the loop stopped before it).
        let (offset, overflowA) = UInt(entries.count).multipliedReportingOverflow(by: pageSize)
        let (end, overflowB) = start.addingReportingOverflow(offset)
        if let first = runStart, !(overflowA || overflowB) { runs.append(first..<end) }
        return runs
    }

    /// `range` without any of `holes`.
    private static func subtracting(_ holes: [Range<UInt>], from range: Range<UInt>) -> [Range<UInt>] {
        var pieces = [range]
        for hole in holes {
            pieces = pieces.flatMap { piece -> [Range<UInt>] in
                guard piece.overlaps(hole) else { return [piece] }
                var rest: [Range<UInt>] = []
                if piece.lowerBound < hole.lowerBound { rest.append(piece.lowerBound..<hole.lowerBound) }
                if hole.upperBound < piece.upperBound { rest.append(hole.upperBound..<piece.upperBound) }
                return rest
            }
        }
        return pieces
    }
}
