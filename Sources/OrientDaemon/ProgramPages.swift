internal import CLinux
internal import OrientSense

#if canImport(Glibc)
import Glibc
#endif

/// Releases the pages of orientd's own read-only and executable segments once
/// start-up is over (`[daemon] release-start-up-pages`; the rule is
/// `ProgramSegments`, in OrientSense), and those of the libraries'. The
/// kernel reclaims them (`MADV_PAGEOUT`: a page only orientd maps leaves the
/// page cache too), a library page that other programs map as well is only
/// unmapped (`MADV_DONTNEED`, `releaseLibraries`), and what runs afterwards
/// faults back in, from the cache or the file.
package enum ProgramPages {
    /// What one release did: the bytes advised and the daemon's resident set
    /// before and after (`/proc/self/statm`), in KiB.
    package struct Released: Sendable {
        package var advisedBytes: UInt
        /// The bytes of the libraries' segments advised (`releaseLibraries`).
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
            return (address - UInt(headerEntry.p_vaddr), loads(all))
        #else
            return nil
        #endif
    }

    #if _pointerBitWidth(_64)
        typealias ProgramHeader = Elf64_Phdr
    #else
        typealias ProgramHeader = Elf32_Phdr
    #endif

    /// The `PT_LOAD` segments among an object's program headers.
    static func loads(_ headers: UnsafeBufferPointer<ProgramHeader>) -> [ProgramSegments.Load] {
        headers.filter { $0.p_type == UInt32(PT_LOAD) }.map {
            ProgramSegments.Load(
                virtualAddress: UInt($0.p_vaddr), memorySize: UInt($0.p_memsz), writable: $0.p_flags & UInt32(PF_W) != 0)
        }
    }

    /// Advises the kernel to reclaim the pages `ProgramSegments.releasable`
    /// picks, and those of the writable segments that were never written
    /// (`ProgramSegments.unwrittenRuns` on `/proc/self/pagemap`; MADV_PAGEOUT
    /// keeps a page's contents in any case, a written one would only go to
    /// swap); then the libraries' (`releaseLibraries`, said in
    /// `libraryBytes` and `libraryFailure`). Never fails the daemon: a kernel
    /// without `MADV_PAGEOUT` (before Linux 5.4) answers EINVAL, said in
    /// `failure`, and nothing changes.
    package static func release() -> Released {
        let before = residentKiB()
        let page = UInt(pageSize)
        // One descriptor for every page map read, the program's and the libraries'.
        let pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        let pagemapFailure = pagemap < 0 ? "cannot open /proc/self/pagemap: \(String(cString: strerror(errno)))" : nil
        defer { if pagemap >= 0 { close(pagemap) } }
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
        if let (base, loads) = programLoads() {
            ProgramSegments.releasable(loads, base: base, pageSize: page).forEach(advise)
            // Of the writable segments, the pages never written (pagemap).
            for span in ProgramSegments.writable(loads, base: base, pageSize: page) {
                ProgramSegments.unwrittenRuns(Self.pagemap(span, pageSize: page, fd: pagemap), start: span.lowerBound, pageSize: page).forEach(advise)
            }
        } else {
            failure = "no program headers with a PT_PHDR in the auxiliary vector"
        }
        let libraries = pagemap >= 0 ? releaseLibraries(pageSize: page, pagemap: pagemap) : (bytes: 0, failure: pagemapFailure)
        return Released(
            advisedBytes: advised, libraryBytes: libraries.bytes, residentBeforeKiB: before, residentAfterKiB: residentKiB(),
            failure: failure, libraryFailure: libraries.failure)
    }

    /// What `releaseLibraries` did, and what went wrong first.
    struct LibraryRelease {
        var bytes: UInt = 0
        var failure: String?
        let pageSize: UInt
        /// The main program's headers (`AT_PHDR`): its pages are `release()`'s own.
        let programHeaders: UInt
        /// `/proc/self/pagemap`, opened once for every object.
        let pagemap: Int32

        mutating func fail(_ what: String) { if failure == nil { failure = what } }

        /// One loaded object, from `dl_iterate_phdr`: its non-writable
        /// segments, rounded inward (`ProgramSegments.releasable`: a page a
        /// writable segment shares, `RELRO` among them, never), reclaimed
        /// where only orientd maps them and unmapped where others do too.
        mutating func visit(_ info: orientd_dl_phdr_info) {
            // The main program has no name and the vDSO, which is no file, a
            // `linux-` one ("linux-vdso.so.1", "linux-gate.so.1").
            guard let headers = info.dlpi_phdr, UInt(bitPattern: headers) != programHeaders, let name = info.dlpi_name,
                name.pointee != 0, strncmp(name, "linux-", 6) != 0, info.dlpi_phnum > 0
            else { return }
            let loads = ProgramPages.loads(UnsafeBufferPointer(start: headers, count: Int(info.dlpi_phnum)))
            for range in ProgramSegments.releasable(loads, base: UInt(info.dlpi_addr), pageSize: pageSize) {
                let start = UnsafeMutableRawPointer(bitPattern: range.lowerBound), length = Int(range.upperBound - range.lowerBound)
                // MADV_PAGEOUT never loses a page's contents: the pages only
                // orientd maps leave the page cache, the others stay mapped.
                if madvise(start, length, MADV_PAGEOUT) == 0 {
                    bytes += UInt(length)
                } else {
                    fail("madvise(MADV_PAGEOUT): \(String(cString: strerror(errno)))")
                }
                // Those still mapped and still the file's (pagemap) are only
                // unmapped; one that is not (a text relocation, a debugger's
                // breakpoint) is never advised: MADV_DONTNEED would drop it.
                let entries = ProgramPages.pagemap(range, pageSize: pageSize, fd: pagemap)
                guard entries.count == length / Int(pageSize) else {
                    fail("cannot read /proc/self/pagemap for \(String(cString: name))")
                    continue
                }
                for run in ProgramSegments.unwrittenRuns(entries, start: range.lowerBound, pageSize: pageSize) {
                    if madvise(UnsafeMutableRawPointer(bitPattern: run.lowerBound), Int(run.upperBound - run.lowerBound), MADV_DONTNEED) != 0 {
                        fail("madvise(MADV_DONTNEED): \(String(cString: strerror(errno)))")
                    }
                }
            }
        }
    }

    /// Releases the pages of the libraries' read-only and executable
    /// segments (`LibraryRelease.visit` for each object `dl_iterate_phdr`
    /// lists, the dynamic loader among them): the symbol tables the loader
    /// searched and what their start-up ran (libsystemd's in libgcrypt and
    /// its compression libraries). It runs under the loader's lock, so no
    /// library comes or goes while its pages are advised.
    /// `fd` is an open `/proc/self/pagemap`.
    static func releaseLibraries(pageSize page: UInt, pagemap fd: Int32) -> (bytes: UInt, failure: String?) {
        var release = LibraryRelease(pageSize: page, programHeaders: UInt(getauxval(UInt(AT_PHDR))), pagemap: fd)
        _ = withUnsafeMutablePointer(to: &release) { context in
            dl_iterate_phdr({ info, _, context in
                guard let info, let context else { return 0 }
                context.assumingMemoryBound(to: LibraryRelease.self).pointee.visit(info.pointee)
                return 0
            }, context)
        }
        return (release.bytes, release.failure)
    }

    /// The entries of `fd`, an open `/proc/self/pagemap`, for the pages of
    /// `span` (none where it cannot be read: then nothing of it is released).
    static func pagemap(_ span: Range<UInt>, pageSize: UInt, fd: Int32) -> [UInt64] {
        let count = Int((span.upperBound - span.lowerBound) / pageSize)
        guard count > 0, count <= 1 << 20 else { return [] }
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
