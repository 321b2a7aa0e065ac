import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What /proc says about a process: open file descriptors, resident memory and
/// CPU time, for the abuse suite's "returns to its baseline" checks.
///
/// Every reader returns nil when the process is gone (or /proc is unreadable),
/// so a dead daemon fails the test with a message instead of a crash.
enum ProcessStats {
    /// The number of entries in /proc/PID/fd.
    static func fdCount(_ pid: Int32) -> Int? {
        entries("/proc/\(pid)/fd")?.count
    }

    /// The names in a directory, without `.` and `..`. Each name is read in
    /// place: copying `entry.pointee` (a whole `dirent`) from a record only
    /// `d_reclen` long reads past glibc's buffer at its last entry, and
    /// Foundation's directory listing is not trusted here for the same reason
    /// (ChildProcess.swift).
    static func entries(_ path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return nil }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// What each of the process's fds points at (`socket:[123]`, `anon_inode:[eventpoll]`, …),
    /// by kind and count: for a failure message that says what leaked.
    static func fdKinds(_ pid: Int32) -> [String: Int] {
        let directory = "/proc/\(pid)/fd"
        guard let names = entries(directory) else { return [:] }
        var kinds: [String: Int] = [:]
        for name in names {
            var target = [CChar](repeating: 0, count: 4096)
            let n = readlink(directory + "/" + name, &target, target.count - 1)
            guard n > 0 else { continue }
            let text = String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // `socket:[4711]` → `socket`; paths stay whole.
            let kind = text.firstIndex(of: ":").map { String(text[..<$0]) } ?? text
            kinds[kind, default: 0] += 1
        }
        return kinds
    }

    /// Resident set size in KiB (`VmRSS` in /proc/PID/status).
    static func rssKiB(_ pid: Int32) -> Int? { statusField("VmRSS", pid) }

    /// Peak resident set size in KiB (`VmHWM`).
    static func peakRSSKiB(_ pid: Int32) -> Int? { statusField("VmHWM", pid) }

    /// A `kB` field of /proc/PID/status.
    static func statusField(_ field: String, _ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let number = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return number.flatMap { Int($0) }
        }
        return nil
    }

    /// The fields of /proc/PID/stat after the command name: field 3 (state) is
    /// index 0. Nil when the process is gone.
    static func statFields(_ pid: Int32) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// CPU time used so far in clock ticks: utime + stime (fields 14 and 15 of /proc/PID/stat).
    static func cpuTicks(_ pid: Int32) -> Int? {
        guard let fields = statFields(pid), fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12])
        else { return nil }
        return user + system
    }

    /// The process state letter (field 3 of /proc/PID/stat): `R`, `S`, `T` (stopped), `Z`…
    static func runState(_ pid: Int32) -> Character? {
        statFields(pid)?.first?.first
    }

    /// Clock ticks a second (`sysconf(_SC_CLK_TCK)`, 100 on Linux).
    static var ticksPerSecond: Int { max(1, sysconf(Int32(_SC_CLK_TCK))) }

    /// Raises this process's soft RLIMIT_NOFILE to its hard limit (a thousand client
    /// sockets do not fit in the usual soft 1024); returns the soft limit now in force.
    @discardableResult
    static func raiseFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// Polls `probe` every `interval` seconds until `condition` holds for what it
    /// returns or the deadline passes; returns the last value read and whether the
    /// condition held. No sleep-and-hope: the wait ends as soon as the condition holds.
    static func waitFor<T>(
        timeout: Double, interval: Double = 0.005, _ probe: () -> T?, until condition: (T) -> Bool
    ) -> (value: T?, met: Bool) {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let value = probe()
            if let value, condition(value) { return (value, true) }
            guard ContinuousClock.now < deadline else { return (value, false) }
            pause(seconds: interval)
        }
    }

    /// Blocks the calling thread for `seconds` (a measurement window, not a wait for a condition).
    static func pause(seconds: Double) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }
}
