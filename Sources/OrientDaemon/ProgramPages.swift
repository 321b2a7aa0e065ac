internal import CLinux
internal import OrientSense

#if canImport(Glibc)
import Glibc
#endif

/// Releases the pages of orientd's own read-only and executable segments once
/// start-up is over (`[daemon] release-start-up-pages`; the rule is
/// `ProgramSegments`, in OrientSense). The kernel reclaims them
/// (`MADV_PAGEOUT`: a page only orientd maps leaves the page cache too) and
/// faults back in, from the cache or the file, what runs afterwards.
package enum ProgramPages {
    /// What one release did: the bytes advised and the daemon's resident set
    /// before and after (`/proc/self/statm`), in KiB.
    package struct Released: Sendable {
        package var advisedBytes: UInt
        /// Of the libraries' pages, the bytes unmapped (`releaseLibraries`).
        package var libraryBytes: UInt = 0
        package var residentBeforeKiB: Int?
        package var residentAfterKiB: Int?
        package var failure: String?
        /// What kept some of the libraries' pages mapped, if anything did.
        package var libraryFailure: String?
    }

    /// The main program's `PT_LOAD` segments and its load base, from the
    /// program headers the kernel passed in the auxiliary vector (`AT_PHDR`,
    /// `AT_PHNUM`); the base is where `PT_PHDR` says the headers are against
    /// where they were found. Nil without a `PT_PHDR` or on a 32-bit system.
    static func programLoads() -> (base: UInt, loads: [ProgramSegments.Load])? {
        #if _pointerBitWidth(_64)
            let address = UInt(getauxval(UInt(AT_PHDR))), count = Int(getauxval(UInt(AT_PHNUM)))
            guard address != 0, count > 0, count < 4096,
                let headers = UnsafePointer<Elf64_Phdr>(bitPattern: address)
            else { return nil }
            let all = UnsafeBufferPointer(start: headers, count: count)
            guard let headerEntry = all.first(where: { $0.p_type == UInt32(PT_PHDR) }), UInt(headerEntry.p_vaddr) <= address
            else { return nil }
            let loads = all.filter { $0.p_type == UInt32(PT_LOAD) }.map {
                ProgramSegments.Load(
                    virtualAddress: UInt($0.p_vaddr), memorySize: UInt($0.p_memsz), writable: $0.p_flags & UInt32(PF_W) != 0)
            }
            return (address - UInt(headerEntry.p_vaddr), loads)
        #else
            return nil
        #endif
    }

    /// Advises the kernel to reclaim the pages `ProgramSegments.releasable`
    /// picks, and those of the writable segments that were never written
    /// (`ProgramSegments.unwrittenRuns` on `/proc/self/pagemap`; MADV_PAGEOUT
    /// keeps a page's contents in any case, a written one would only go to
    /// swap). Never fails the daemon: a kernel without `MADV_PAGEOUT` (before
    /// Linux 5.4) answers EINVAL, said in `failure`, and nothing changes.
    package static func release() -> Released {
        let before = residentKiB()
        guard let (base, loads) = programLoads() else {
            return Released(advisedBytes: 0, residentBeforeKiB: before, residentAfterKiB: before,
                            failure: "no program headers with a PT_PHDR in the auxiliary vector")
        }
        var advised: UInt = 0
        var failure: String?
        func advise(_ range: Range<UInt>) {
            let start = UnsafeMutableRawPointer(bitPattern: range.lowerBound)
            if madvise(start, Int(range.upperBound - range.lowerBound), MADV_PAGEOUT) == 0 {
                advised += range.upperBound - range.lowerBound
            } else if failure == nil {
                failure = "madvise(MADV_PAGEOUT): \(String(cString: strerror(errno)))"
            }
        }
        let page = UInt(pageSize)
        let own = ProgramSegments.releasable(loads, base: base, pageSize: page)
        own.forEach(advise)
        // Of the writable segments, the pages never written (pagemap).
        let writable = ProgramSegments.writable(loads, base: base, pageSize: page)
        for span in writable {
            ProgramSegments.unwrittenRuns(pagemap(span, pageSize: page), start: span.lowerBound, pageSize: page).forEach(advise)
        }
        let libraries = releaseLibraries(excluding: own + writable, pageSize: page)
        return Released(
            advisedBytes: advised, libraryBytes: libraries.bytes, residentBeforeKiB: before, residentAfterKiB: residentKiB(),
            failure: failure, libraryFailure: libraries.failure)
    }

    /// Unmaps the pages of the libraries' read-only mappings that are still
    /// the file's (`MemoryMaps.libraryRanges`, `ProgramSegments.unwrittenRuns`):
    /// `MADV_DONTNEED`, which leaves them in the page cache for the other
    /// programs that map them, and for orientd to fault back what it runs.
    /// A page the loader wrote (anonymous in the page map) is never advised.
    static func releaseLibraries(excluding own: [Range<UInt>], pageSize page: UInt) -> (bytes: UInt, failure: String?) {
        let text: [UInt8]
        do { text = try readProcFile("/proc/self/maps", limit: MemoryMaps.maximumBytes) } catch {
            return (0, "cannot read /proc/self/maps: \(error)")
        }
        let (regions, errors) = MemoryMaps.parse(text)
        var bytes: UInt = 0
        var failure = errors.first.map { "skipped a line: \($0)" }
        for range in MemoryMaps.libraryRanges(regions, excluding: own) {
            for run in ProgramSegments.unwrittenRuns(pagemap(range, pageSize: page), start: range.lowerBound, pageSize: page) {
                let length = Int(run.upperBound - run.lowerBound)
                if madvise(UnsafeMutableRawPointer(bitPattern: run.lowerBound), length, MADV_DONTNEED) == 0 {
                    bytes += UInt(length)
                } else if failure == nil {
                    failure = "madvise(MADV_DONTNEED): \(String(cString: strerror(errno)))"
                }
            }
        }
        return (bytes, failure)
    }

    /// The whole of a /proc file, at most `limit` bytes (more is an error:
    /// such a file is not what it should be).
    static func readProcFile(_ path: String, limit: Int) throws(ProcReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ProcReadError(message: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw ProcReadError(message: String(cString: strerror(errno)))
            }
            bytes += chunk[..<count]
            guard bytes.count <= limit else { throw ProcReadError(message: "longer than \(limit) bytes") }
        }
    }

    struct ProcReadError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// `/proc/self/pagemap`'s entries for the pages of `span` (none where it
    /// cannot be read: then nothing of it is released).
    static func pagemap(_ span: Range<UInt>, pageSize: UInt) -> [UInt64] {
        let count = Int((span.upperBound - span.lowerBound) / pageSize)
        guard count > 0, count <= 1 << 20 else { return [] }
        let fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var entries = [UInt64](repeating: 0, count: count)
        let wanted = count * MemoryLayout<UInt64>.size
        let got = entries.withUnsafeMutableBytes { pread(fd, $0.baseAddress, wanted, off_t(span.lowerBound / pageSize) * 8) }
        return got == wanted ? entries : []
    }

    /// The resident set, KiB: `/proc/self/statm`'s second field, in pages.
    static func residentKiB() -> Int? {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * pageSize / 1024
    }

    /// The kernel's page size (4 KiB where sysconf cannot tell).
    static var pageSize: Int { max(sysconf(Int32(_SC_PAGESIZE)), 4096) }
}
