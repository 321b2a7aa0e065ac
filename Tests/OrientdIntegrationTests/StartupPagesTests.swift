import Foundation
import Glibc
import Testing

/// `[daemon] release-start-up-pages` (docs/configuration.md; docs/architecture.md,
/// Memory): once start-up is over, after each reload, and once a change of
/// who listens has settled, the daemon has the kernel reclaim the pages of its
/// own code and read-only data.
@Suite("Start-up pages released", .serialized)
struct StartupPagesTests {
    static let info = DaemonHarness.defaultConfig + "[daemon]\nlog-level = info\n"

    /// The resident KiB before and after from the daemon's line, e.g.
    /// "released the pages start-up ran through (5684 KiB advised, 3864 KiB of
    /// libraries advised): resident 7020 → 4992 KiB".
    static func residentFigures(_ stderr: String, phase: String) -> (before: Int, after: Int)? {
        guard let line = stderr.split(separator: "\n").last(where: { $0.contains("released the pages \(phase) ran through") }),
            let at = line.range(of: "resident ")
        else { return nil }
        let figures = line[at.upperBound...].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return figures.count >= 2 ? (figures[0], figures[1]) : nil
    }

    /// The whole of a /proc file: `String(contentsOfFile:)` reads the size
    /// stat gives, one page of a file whose size is 0.
    static func procText(_ path: String) throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    }

    /// KiB resident (Rss) and of it anonymous in the mappings of `pid` that
    /// `wanted` picks by their permissions and path (given the binary's
    /// path too), from /proc/PID/smaps.
    static func residentKiB(
        _ pid: Int32, in wanted: (_ permissions: Substring, _ path: Substring, _ exe: String) -> Bool
    ) throws -> (rss: Int, anonymous: Int) {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        var inWanted = false, rss = 0, anonymous = 0
        for line in try Self.procText("/proc/\(pid)/smaps").split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), !first.hasSuffix(":") {
                inWanted = fields.count > 5 && wanted(fields[1], fields[5], exe)
            } else if inWanted, fields.count > 1, let kib = Int(fields[1]) {
                if fields.first == "Rss:" { rss += kib } else if fields.first == "Anonymous:" { anonymous += kib }
            }
        }
        return (rss, anonymous)
    }

    /// KiB resident in the mappings of `pid`'s own binary that are not writable
    /// (code, read-only data).
    static func programReadOnlyRss(_ pid: Int32) throws -> Int {
        try residentKiB(pid) { permissions, path, exe in path == exe && !permissions.contains("w") }.rss
    }

    /// KiB of the libraries' private read-only mappings that are resident
    /// and still the file's (Rss less Anonymous: a page the loader wrote is
    /// never released).
    static func libraryFileRss(_ pid: Int32) throws -> Int {
        let kib = try residentKiB(pid) { permissions, path, exe in
            path.hasPrefix("/") && path != exe && !permissions.contains("w") && permissions.hasSuffix("p")
        }
        return kib.rss - kib.anonymous
    }

    /// The KiB of libraries the daemon's line says it advised, e.g.
    /// "(6140 KiB advised, 3864 KiB of libraries advised)".
    static func libraryFigure(_ stderr: String, phase: String) -> Int? {
        guard let line = stderr.split(separator: "\n").last(where: { $0.contains("released the pages \(phase) ran through") }),
            let at = line.range(of: " KiB of libraries advised")
        else { return nil }
        return Int(line[..<at.lowerBound].split(separator: " ").last ?? "")
    }

    /// A daemon run from its own copy of the binary: the kernel leaves a page
    /// that two processes map, and every other test's daemon maps the same
    /// binary's pages.
    static func onItsOwnCopy(config: String) throws -> DaemonHarness {
        let workspace = try DaemonHarness.Workspace()
        let copy = workspace.path + "/orientd"
        return try DaemonHarness(
            config: config, workspace: workspace, launcher: ["/bin/sh", "-c", #"cp "$0" "\#(copy)" && exec "\#(copy)" "$@""#])
    }

    @Test("after start-up the daemon's own read-only pages are released: its resident set falls, and its code holds fewer pages than a daemon that keeps them")
    func startUpReleases() throws {
        let released = try Self.onItsOwnCopy(config: Self.info)
        #expect(released.waitForStderr(containing: "released the pages start-up ran through"), "\(released.stderr)")
        // Read at once, before what the daemon serves next faults pages back.
        let releasedRss = try Self.programReadOnlyRss(released.pid)
        let releasedLibraries = try Self.libraryFileRss(released.pid)
        let kept = try Self.onItsOwnCopy(config: Self.info + "release-start-up-pages = false\n")
        let figures = try #require(Self.residentFigures(released.stderr, phase: "start-up"), "\(released.stderr)")
        _ = try kept.freshState()
        let keptRss = try Self.programReadOnlyRss(kept.pid)
        let keptLibraries = try Self.libraryFileRss(kept.pid)
        _ = try released.freshState()
        #expect(!kept.stderr.contains("released the pages"), "\(kept.stderr)")
        // qemu-user (`make check-arm64`) takes madvise's advice as a hint and
        // ignores it: there the line is all that can be checked.
        if Slowdown.factor == 1 {
            #expect(figures.after < figures.before, "resident \(figures.before) → \(figures.after) KiB")
            #expect(releasedRss < keptRss, "the program's read-only pages: \(releasedRss) KiB released, \(keptRss) KiB kept")
            // The libraries' pages: unmapped, and the daemon still serves (freshState above) with the pages the loader wrote kept.
            let unmapped = try #require(Self.libraryFigure(released.stderr, phase: "start-up"), "\(released.stderr)")
            #expect(unmapped > 0, "\(released.stderr)")
            #expect(releasedLibraries < keptLibraries, "the libraries' read-only pages: \(releasedLibraries) KiB released, \(keptLibraries) KiB kept")
        }
        try released.stopCleanly()
        try kept.stopCleanly()
    }

    @Test("SIGHUP releases the pages the reload ran through, and a reload that turns it off releases nothing more")
    func reloadReleases() throws {
        let daemon = try DaemonHarness(config: Self.info)
        #expect(daemon.waitForStderr(containing: "released the pages start-up ran through"), "\(daemon.stderr)")
        kill(daemon.pid, SIGHUP)
        #expect(daemon.waitForStderr(containing: "released the pages the reload ran through"), "\(daemon.stderr)")
        _ = try daemon.workspace.write("orientd.conf", Self.info + "release-start-up-pages = false\n")
        kill(daemon.pid, SIGHUP)
        let deadline = ContinuousClock.now + .seconds(5)
        while daemon.stderr.components(separatedBy: "configuration reloaded").count < 3, ContinuousClock.now < deadline {
            usleep(20_000)
        }
        // The second reload is logged before any release would be: one more
        // state request makes sure the daemon has finished handling it.
        _ = try daemon.freshState()
        let reloads = daemon.stderr.components(separatedBy: "configuration reloaded").count - 1
        let releases = daemon.stderr.components(separatedBy: "released the pages the reload ran through").count - 1
        #expect(reloads == 2 && releases == 1, "reloads \(reloads), releases \(releases): \(daemon.stderr)")
        try daemon.stopCleanly()
    }

    @Test("a burst of subscribers is followed, once it has settled, by one release of the pages it ran through; a get by none, nor the last listener leaving")
    func demandReleases() throws {
        let daemon = try DaemonHarness(config: Self.info)
        #expect(daemon.waitForStderr(containing: "released the pages start-up ran through"), "\(daemon.stderr)")
        let line = "released the pages the change of listeners ran through"
        func releases() -> Int { daemon.stderr.components(separatedBy: line).count - 1 }
        // Until the count has held for longer than the daemon's settling time
        // (1 s): what start-up's own connections brought is then released.
        func settled() -> Int {
            var count = releases(), heldSince = ContinuousClock.now
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now - heldSince < .milliseconds(1500 * Slowdown.factor), ContinuousClock.now < deadline {
                usleep(20_000)
                if releases() != count { count = releases(); heldSince = ContinuousClock.now }
            }
            return count
        }
        let before = settled()
        let subscribers = try (0..<5).map { _ in try daemon.subscriber() }
        let after = settled()
        // Under qemu-user five subscriptions may take longer than the settling time.
        if Slowdown.factor == 1 {
            #expect(after == before + 1, "\(daemon.stderr)")
        } else {
            #expect(after > before, "\(daemon.stderr)")
        }
        // A `get` (here three, each on its own connection) changes no one's
        // listening: no release follows.
        for _ in 0..<3 { _ = try daemon.freshState() }
        #expect(settled() == after, "\(daemon.stderr)")
        // When the last listener leaves, none: a daemon nobody listens to
        // makes no wakeups, not even for this.
        for subscriber in subscribers { subscriber.close() }
        #expect(settled() == after, "\(daemon.stderr)")
        try daemon.stopCleanly()
    }
}
