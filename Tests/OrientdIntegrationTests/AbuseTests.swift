import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The abuse suite (issue 6 item 2, docs/protocol.md: "slow clients never slow the daemon
/// or other clients", §12 "bad input gets a clear error and loses nothing"),
/// against the real daemon at scale: a thousand clients at once and a hundred
/// past the limit, a storm of connections past the limit, hundreds of hostile
/// byte streams, a subscriber that never reads through ten thousand changes,
/// flooders that never read their replies, thousands of clients that constrain
/// and vanish, a subscriber that vanishes while a change is published, and one
/// uid (nobody) trying to take the whole client table (AbuseTests+Uids.swift).
///
/// Every test runs a daemon without `--mock` (sensor `absent`), so the state
/// moves only when the test's controller (or an abusive client) asks, and ends
/// with the same three checks (`checkRecovery`):
///
/// - a fresh well-behaved client gets a correct, current state: exactly what
///   the controller set last;
/// - every well-behaved subscriber, connected throughout, ends on that state
///   (same content, same `t_ms`);
/// - the daemon's fd count (/proc/PID/fd) returns exactly to its baseline, and
///   its RSS (VmRSS) to within `rssToleranceKiB` of it.
///
/// Baselines are taken after `warmUp`, which walks every code path the abuse
/// will take once at small scale (hello, get, subscribe, constrain, bad JSON,
/// invalid UTF-8, too-long, a flood disconnect, a half-close): what the Swift
/// runtime and malloc set up once (metadata caches, the first arenas) is then
/// part of the baseline, and what remains above it afterwards grows with the
/// number of abusive clients, which is what a leak does.
///
/// Serialized: the figures (CPU ticks, latency, RSS) are not measured while
/// another test of this suite loads the machine.
@Suite("Abuse", .serialized)
struct AbuseTests {
    typealias Client = DaemonHarness.Client
    typealias Message = DaemonHarness.Message

    /// RSS may stay this much above the baseline after the abusive clients are
    /// gone. glibc malloc does not hand every freed page back to the kernel (a
    /// free chunk below a live one stays in the heap, and the buffers of a
    /// thousand clients are spread through it), so exact equality would test
    /// malloc, not the daemon: up to +456 KiB stays after 800 hostile clients.
    /// 1 MiB is still small against what the tests push through: a leak of
    /// 1 KiB per client among the thousand, of 300 bytes per client among the
    /// 3,500+ of the churn, or one state line (~270 bytes) queued per change
    /// for the subscriber that never reads (2.6 MiB over 10,000 changes)
    /// passes it.
    static let rssToleranceKiB = 1024

    /// Set by scripts/check-sanitize.sh (`address` or `thread`): the sanitizers
    /// inflate RSS several times over and slow everything, so the absolute RSS
    /// and CPU-tick bounds are reported but not asserted; every other
    /// expectation (fds, replies, final states) still holds.
    static let sanitized = ProcessInfo.processInfo.environment["ORIENTD_SANITIZED"].map { !$0.isEmpty } ?? false

    /// The test process opens up to ~1,110 sockets: soft RLIMIT_NOFILE is often 1024.
    init() throws {
        let limit = ProcessStats.raiseFileLimit()
        try #require(limit >= 1200, "RLIMIT_NOFILE is \(limit) even after raising the soft limit to the hard one")
    }

    static func config(clients: Int) -> String {
        DaemonHarness.defaultConfig + "[limits]\nclients = \(clients)\n"
    }

    /// Every test's start: a daemon (admitting `clients` when given), the
    /// well-behaved clients that watch it, and its resource baseline.
    static func start(
        _ arguments: [String] = [], clients: Int? = nil, subscribers: Int
    ) throws -> (DaemonHarness, WellBehaved, Baseline) {
        let daemon = try DaemonHarness(arguments, config: clients.map(config(clients:)) ?? DaemonHarness.defaultConfig)
        let watched = try WellBehaved(daemon, subscribers: subscribers)
        return (daemon, watched, try baseline(daemon, watched))
    }

    static func constrain(_ id: String, _ allow: [String], seq: Int? = nil) -> String {
        let names = allow.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"op":"constrain","id":"\#(id)","allow":[\#(names)]\#(seq.map { ",\"seq\":\($0)" } ?? "")}"#
    }

    static func milliseconds(_ duration: Duration) -> Double { DaemonHarness.seconds(duration) * 1000 }

    /// `value` with `digits` decimals.
    static func fixed(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }

    /// The `q` quantile of `values` (nearest rank).
    static func quantile(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)]
    }

    // MARK: - 1. A thousand at once, a hundred past the limit

    @Test("1,000 clients at once are all greeted and served; 100 more past [limits] clients = 1000 get a clean limit refusal and are closed, with no busy loop")
    func thousandClientsThenRefusals() throws {
        let limit = 1000
        let (daemon, watched, baseline) = try Self.start(clients: limit, subscribers: 2)

        // The rest of the limit, all connecting before any reads its hello.
        let crowdSize = limit - watched.count
        let crowd = try (0..<crowdSize).map { _ in try daemon.connect(readHello: false) }
        let hellos = try Self.collect(crowd, timeout: 20) { _, _ in true }
        let greeted = hellos.filter { $0.messages.first?.type == "hello" }.count
        #expect(greeted == crowdSize, "\(crowdSize - greeted) of \(crowdSize) were not greeted: \(hellos.first { $0.messages.first?.type != "hello" }.map { "\($0.messages) closed \($0.closed)" } ?? "")")

        // Every one of them served: a get each, all in flight at once.
        let expected = try watched.controller.request(#"{"op":"get","seq":-1}"#)
        for (index, client) in crowd.enumerated() { try client.send(#"{"op":"get","seq":\#(index)}"#) }
        let replies = try Self.collect(crowd, timeout: 20) { index, message in message.seq == Int64(index) }
        let served = replies.filter { inbox in
            inbox.done && inbox.messages.count == 1 && inbox.messages[0].type == "state"
                && inbox.messages[0].content == expected.content && inbox.messages[0].tMs == expected.tMs
        }.count
        #expect(served == crowdSize, "\(crowdSize - served) of \(crowdSize) gets were not answered with the current state")
        let peakFDs = ProcessStats.fdCount(daemon.pid) ?? -1
        #expect(peakFDs == baseline.fds + crowdSize, "one fd per client: \(peakFDs) with \(crowdSize) more clients than the baseline \(baseline.fds)")

        // A hundred more, past the limit, all at once: each reads one line, the
        // limit error, then end of file.
        let ticksBeforeRefusals = ProcessStats.cpuTicks(daemon.pid) ?? 0
        let extra = try (0..<100).map { _ in try daemon.connect(readHello: false) }
        let refusals = try Self.collect(extra, timeout: 10) { _, _ in false }
        let ticksForRefusals = (ProcessStats.cpuTicks(daemon.pid) ?? 0) - ticksBeforeRefusals
        var clean = 0
        for inbox in refusals {
            let only = inbox.messages.first
            if inbox.closed, inbox.messages.count == 1, only?.type == "error", only?.code == "limit", only?.hasSeq == false,
                only?.string("message") == "too many clients (limit \(limit))"
            {
                clean += 1
            }
        }
        #expect(clean == 100, "\(100 - clean) of 100 refusals were not exactly one limit error then close: \(refusals.first { $0.messages.count != 1 || !$0.closed }.map { "\($0.messages) closed \($0.closed)" } ?? "")")
        #expect(daemon.waitForStderr(containing: "refused"), "the daemon logs the refusals")
        // The log is rate-limited: one line, however many refusals (docs/security.md).
        let logged = Self.logged("refused: too many clients (limit \(limit))", daemon, since: baseline)
        #expect(logged == 1, "100 refusals logged in one line, found \(logged)")

        // Idle at the limit, a thousand clients connected: no busy loop.
        let ticksBefore = try #require(ProcessStats.cpuTicks(daemon.pid))
        ProcessStats.pause(seconds: 2)
        let idleTicks = try #require(ProcessStats.cpuTicks(daemon.pid)) - ticksBefore
        // 5 ticks (50 ms, 2.5 % of a core) allows a scheduler tick charged by
        // accident; an accept loop spinning on a pending connection burns ~200
        // at any CPU speed (a tick samples a running process), so a slow
        // machine's budget (Slowdown) is capped at half of that.
        let idleBudget = min(5 * Slowdown.factor, 100)
        #expect(Self.sanitized || idleTicks <= idleBudget, "the daemon used \(idleTicks) ticks of CPU in the 2 s after the refusals (budget \(idleBudget))")

        // At the limit the well-behaved ones are served and see changes.
        #expect(try watched.controller.request(Self.constrain("c", ["landscape"])).type == "ok")
        for (index, subscriber) in watched.subscribers.enumerated() {
            #expect(try subscriber.read().allowed == ["left-up", "right-up"], "subscriber \(index) at the limit")
        }
        // A freed slot is usable again at once.
        crowd[0].close()
        let next = try daemon.connectWhenAdmitted()
        #expect(try next.request(#"{"op":"get","seq":7}"#).seq == 7)
        next.close()

        for client in crowd { client.close() }
        let peakRSS = ProcessStats.peakRSSKiB(daemon.pid) ?? -1
        let figures = try Self.checkRecovery(daemon, watched, baseline, constrainingTo: "right-up")
        print(
            "abuse/1000: \(crowdSize) clients served at once (+\(watched.count) well-behaved), 100 refused cleanly (\(ticksForRefusals) ticks to refuse them); "
                + "CPU in the 2 s after the refusals: \(idleTicks) ticks (\(ProcessStats.ticksPerSecond)/s); "
                + "fds \(baseline.fds) → \(peakFDs) at the limit → \(figures.fds); RSS \(figures.rssText), peak (VmHWM) \(peakRSS) KiB")
        try daemon.stopCleanly()
    }

    // MARK: - 1b. A storm of connections past the limit

    /// What the storming threads saw, shared with the test's thread.
    struct StormCounts: WorkerCounts {
        var stop = false
        var refused = 0
        var other: [String] = []
    }
    typealias StormLog = WorkerLog<StormCounts>

    /// Connects, reads what the daemon sends until it closes, closes; again,
    /// until `log.stop`. Each connection must get exactly the limit line.
    static func storm(path: String, log: StormLog) {
        while !log.stopped {
            guard let fd = try? DaemonHarness.connectSocket(path) else {
                let reason = String(cString: strerror(errno))
                log.counts.withLock { if $0.other.count < 10 { $0.other.append("connect failed: \(reason)") } }
                continue
            }
            var received: [UInt8] = []
            var outcome = "timed out"
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 100) > 0 else { continue }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    received += chunk[..<n]
                    continue
                }
                outcome = n == 0 || errno == ECONNRESET ? "closed" : "recv: \(String(cString: strerror(errno)))"
                break
            }
            close(fd)
            let text = String(decoding: received, as: UTF8.self)
            let clean = outcome == "closed" && text.hasPrefix(#"{"type":"error","code":"limit""#) && text.filter { $0 == "\n" }.count == 1
                && text.hasSuffix("\n")
            log.counts.withLock {
                if clean { $0.refused += 1 } else if $0.other.count < 10 { $0.other.append("\(outcome): \(text)") }
            }
        }
    }

    @Test("a storm of connections past [limits] clients: each is refused with one limit line and closed, while the clients already in stay fast")
    func refusalStorm() throws {
        let limit = 16
        let (daemon, watched, baseline) = try Self.start(clients: limit, subscribers: 2)
        let prober = try daemon.connect()
        let fillers = try (0..<(limit - watched.count - 1)).map { _ in try daemon.connectWhenAdmitted() }

        let log = StormLog()
        let threads = 2
        let finished = DispatchSemaphore(value: 0)
        let path = daemon.socketPath
        for _ in 0..<threads {
            DispatchQueue.global().async {
                Self.storm(path: path, log: log)
                finished.signal()
            }
        }
        var latencies: [Double] = []
        let until = ContinuousClock.now + .seconds(1.5)
        var request = 0
        while ContinuousClock.now < until {
            request += 1
            let sent = ContinuousClock.now
            let reply = try prober.request(#"{"op":"get","seq":\#(request)}"#)
            latencies.append(Self.milliseconds(ContinuousClock.now - sent))
            guard reply.type == "state", reply.seq == Int64(request) else {
                Issue.record("get answered \(reply)")
                break
            }
        }
        log.counts.withLock { $0.stop = true }
        for _ in 0..<threads {
            #expect(finished.wait(timeout: .now() + 10) == .success, "a storming thread did not stop")
        }
        let counts = log.counts.withLock { $0 }
        #expect(counts.other.isEmpty, "connections in the storm not refused cleanly: \(counts.other)")
        #expect(counts.refused >= 100, "only \(counts.refused) refusals in 1.5 s")
        let p99 = Self.quantile(latencies, 0.99)
        #expect(p99 < 250, "p99 get latency during the storm: \(p99) ms")
        // At most one log line per 10 s, however many refusals: a storm cannot
        // flood the journal.
        let logged = Self.logged("refused: too many clients (limit \(limit))", daemon, since: baseline)
        #expect(logged == 1, "\(logged) refusal lines logged for \(counts.refused) refusals")

        // Still at the limit after the storm, and idle.
        let ticksBefore = try #require(ProcessStats.cpuTicks(daemon.pid))
        ProcessStats.pause(seconds: 0.5)
        let idleTicks = try #require(ProcessStats.cpuTicks(daemon.pid)) - ticksBefore
        #expect(Self.sanitized || idleTicks <= 3, "the daemon used \(idleTicks) ticks of CPU in the 0.5 s after the storm")
        prober.close()
        for filler in fillers { filler.close() }

        let figures = try Self.checkRecovery(daemon, watched, baseline, constrainingTo: "left-up")
        print(
            "abuse/refusal-storm: \(counts.refused) connections refused in 1.5 s by \(threads) threads (\(logged) log lines); "
                + "get latency over \(latencies.count) gets: p50 \(Self.fixed(Self.quantile(latencies, 0.5), 2)) ms, p99 \(Self.fixed(p99, 2)) ms, max \(Self.fixed(latencies.max() ?? .nan, 2)) ms; "
                + "CPU in the 0.5 s after: \(idleTicks) ticks; fds \(baseline.fds) → \(figures.fds); RSS \(figures.rssText)")
        try daemon.stopCleanly()
    }

    // MARK: - 2. Hostile byte streams

    /// What a hostile client of `hostileStreams` sends.
    enum Hostility: Int, CaseIterable {
        /// Random bytes with a newline every ~200, then a `get`: one error per line, then the state.
        case garbage
        /// 1 MiB without a newline: `too-long`, then closed.
        case hugeLine
        /// Lines that are JSON but for invalid UTF-8 in a string, then a `get`.
        case invalidUTF8
        /// A constraint, then half a line (a lock, or a constraint), then a hang-up.
        case halfLine
    }

    /// Lines of otherwise valid JSON with invalid UTF-8 inside a string; each is `bad-json`.
    static let invalidUTF8Lines: [[UInt8]] = [
        Array(#"{"op":"get","x":""#.utf8) + [0x80] + Array(#""}"#.utf8),  // stray continuation byte
        Array(#"{"op":"get","x":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8),  // overlong '/'
        Array(#"{"op":"get","x":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),  // UTF-16 surrogate
        Array(#"{"op":"get","x":""#.utf8) + [0xE2, 0x82] + Array(#""}"#.utf8),  // truncated sequence
        Array(#"{"op":"get","x":""#.utf8) + [0xF4, 0x90, 0x80, 0x80] + Array(#""}"#.utf8),  // above U+10FFFF
        Array(#"{"op":"constrain","id":"u"#.utf8) + [0xFF] + Array(#"","allow":["bottom-up"]}"#.utf8),  // 0xFF in an id
        [0xFE, 0xFF, 0x00, 0x7B, 0x00, 0x7D],  // a UTF-16 BOM and "{}" in UTF-16
    ]

    /// `noiseLines` ending with a newline.
    static func garbage(count: Int, seed: UInt64) -> [UInt8] {
        noiseLines(count: count, seed: seed) + [0x0A]
    }

    @Test("garbage, 1 MiB lines without a newline, invalid UTF-8 and half-written lines, 200 of each from 800 interleaved clients: each gets its defined answer, nothing leaks")
    func hostileStreams() throws {
        let daemon = try DaemonHarness(config: Self.config(clients: 1100))
        let watched = try WellBehaved(daemon, subscribers: 3)
        #expect(try watched.controller.request(Self.constrain("c", ["all-but-upside-down"])).type == "ok")
        try watched.drainSubscribers()
        let baseline = try Self.baseline(daemon, watched)

        let waves = 4
        let perWave = 200  // 50 of each kind, interleaved, connected at once
        var counts = [Int](repeating: 0, count: Hostility.allCases.count)
        var failures: [String] = []
        var index = 0
        for wave in 0..<waves {
            let clients = try (0..<perWave).map { _ in try daemon.connect(readHello: false) }
            let kinds = (0..<perWave).map { Hostility(rawValue: ($0 + wave) % 4)! }
            let ids = (0..<perWave).map { index + $0 }
            index += perWave
            let hellos = try Self.collect(clients) { _, _ in true }
            guard hellos.allSatisfy({ $0.messages.first?.type == "hello" }) else {
                Issue.record("wave \(wave): not every client was greeted")
                break
            }
            // Everything goes out at once, interleaved: each client's bytes are
            // pushed as the socket takes them, round robin.
            var payloads: [[UInt8]] = []
            var garbageLines = [Int](repeating: 0, count: perWave)
            for (i, kind) in kinds.enumerated() {
                let seq = ids[i]
                switch kind {
                case .garbage:
                    let noise = Self.garbage(count: 8192, seed: UInt64(seq))
                    garbageLines[i] = noise.filter { $0 == 0x0A }.count
                    payloads.append(noise + Array(#"{"op":"get","seq":\#(seq)}"#.utf8) + [0x0A])
                case .hugeLine:
                    payloads.append([UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20))
                case .invalidUTF8:
                    payloads.append(Self.invalidUTF8Lines.flatMap { $0 + [0x0A] } + Array(#"{"op":"get","seq":\#(seq)}"#.utf8) + [0x0A])
                case .halfLine:
                    let whole = Self.constrain("h\(seq)", seq % 2 == 0 ? ["left-up"] : ["bottom-up"])
                    let half = seq % 3 == 0 ? #"{"op":"lock","orientation":"ri"# : #"{"op":"constrain","id":"x","allow":["norm"#
                    payloads.append(Array((whole + "\n" + half).utf8))
                }
            }
            let outcome = try Self.pump(clients, payloads, timeout: 20)
            for (i, kind) in kinds.enumerated() where kind == .halfLine {
                #expect(outcome.sent[i] == payloads[i].count, "half-line client \(ids[i]) could not send its bytes")
                clients[i].close()
            }
            for (i, kind) in kinds.enumerated() where kind == .hugeLine {
                #expect(outcome.peerGone[i], "the daemon read all 1 MiB of client \(ids[i]) without closing it")
                #expect(outcome.sent[i] < payloads[i].count, "client \(ids[i]) wrote its whole 1 MiB line")
            }

            // The answers: garbage and invalid UTF-8 get one bad-json per line
            // and stay usable; the huge lines get too-long and are closed.
            let readers = kinds.indices.filter { kinds[$0] != .halfLine }
            let inboxes = try Self.collect(readers.map { clients[$0] }, timeout: 20) { r, message in
                message.seq == Int64(ids[readers[r]])
            }
            for (r, inbox) in inboxes.enumerated() {
                let i = readers[r]
                let kind = kinds[i]
                let messages = inbox.messages
                let errors = messages.filter { $0.type == "error" }
                switch kind {
                case .garbage, .invalidUTF8:
                    let expectedErrors = kind == .garbage ? garbageLines[i] : Self.invalidUTF8Lines.count
                    let ok = inbox.done && !inbox.closed && errors.count == expectedErrors
                        && errors.allSatisfy { $0.code == "bad-json" && !$0.hasSeq } && messages.count == expectedErrors + 1
                        && messages.last?.type == "state"
                    if !ok {
                        failures.append("\(kind) client \(ids[i]): \(errors.count) errors for \(expectedErrors) lines, done \(inbox.done), closed \(inbox.closed), last \(messages.last.map(\.raw) ?? "none")")
                    }
                case .hugeLine:
                    let ok = inbox.closed && messages.count == 1 && messages[0].code == "too-long" && !messages[0].hasSeq
                    if !ok { failures.append("huge-line client \(ids[i]): \(messages.map(\.raw)), closed \(inbox.closed)") }
                case .halfLine: break
                }
                counts[kind.rawValue] += 1
            }
            counts[Hostility.halfLine.rawValue] += kinds.filter { $0 == .halfLine }.count
            for client in clients { client.close() }
            try watched.drainSubscribers()
        }
        let failed = failures.count
        #expect(failed == 0, "hostile clients that did not get their defined answer; first: \(failures.prefix(3))")
        #expect(counts == [200, 200, 200, 200], "clients of each kind: \(counts)")
        let tooLongLogged = Self.logged("sent a line longer than 4096 bytes", daemon, since: baseline)
        #expect(tooLongLogged == 200, "each too-long disconnect is logged: \(tooLongLogged) of 200")
        #expect(daemon.isRunning)

        let peakRSS = ProcessStats.peakRSSKiB(daemon.pid) ?? -1
        let figures = try Self.checkRecovery(daemon, watched, baseline, constrainingTo: "right-up")
        print(
            "abuse/hostile: 200 each of garbage, 1 MiB lines, invalid UTF-8, half lines (800 clients, 200 at once); "
                + "fds \(baseline.fds) → \(figures.fds); RSS \(figures.rssText), peak (VmHWM) \(peakRSS) KiB")
        try daemon.stopCleanly()
    }

    // MARK: - 3. A subscriber that never reads

    @Test("a subscriber that never reads through 10,000 changes: the daemon's memory stays bounded, the others see every change, and it ends on the latest state")
    func neverReadingSubscriberAtScale() throws {
        let changes = 10_000
        let (daemon, watched, baseline) = try Self.start(subscribers: 3)
        let stalled = try daemon.subscriber()

        // Toggle as fast as the replies come back; the readers are drained after
        // each reply, so they never lag and must get every single change.
        var seen = [[Message]](repeating: [], count: watched.subscribers.count)
        var peakRSS = baseline.rssKiB
        var rssSamples: [Int] = []
        let started = ContinuousClock.now
        for change in 0..<changes {
            let reply = try watched.controller.request(Self.constrain("t", change % 2 == 0 ? ["left-up"] : ["right-up"], seq: change))
            guard reply.type == "ok", reply.seq == Int64(change) else {
                Issue.record("change \(change) answered \(reply)")
                break
            }
            for (s, subscriber) in watched.subscribers.enumerated() {
                subscriber.receiveAvailable()
                while let line = subscriber.takeLine() { seen[s].append(try Message(line)) }
            }
            if change % 250 == 0, let rss = ProcessStats.rssKiB(daemon.pid) {
                rssSamples.append(rss)
                peakRSS = max(peakRSS, rss)
            }
        }
        let elapsed = Self.milliseconds(ContinuousClock.now - started)
        let stalledUnread = stalled.unreadBytes
        let final = try daemon.freshState()
        #expect(final.allowed == (changes % 2 == 0 ? ["right-up"] : ["left-up"]), "\(final)")
        for (s, subscriber) in watched.subscribers.enumerated() where seen[s].last?.tMs != final.tMs {
            let rest = try subscriber.read(until: { $0.tMs == final.tMs }, timeout: 10)
            seen[s] += rest.skipped + [rest.match]
        }
        for (s, states) in seen.enumerated() {
            let expected = (0..<changes).map { $0 % 2 == 0 ? ["left-up"] : ["right-up"] }
            #expect(states.count == changes, "subscriber \(s) got \(states.count) states for \(changes) changes")
            #expect(states.map { $0.allowed ?? [] } == expected, "subscriber \(s) missed or reordered a change")
            let times = states.compactMap(\.tMs)
            #expect(times == times.sorted(), "subscriber \(s): t_ms went backwards")
            #expect(states.last?.content == final.content && states.last?.tMs == final.tMs, "subscriber \(s) ended on \(states.last?.raw ?? "nothing")")
        }
        // Bounded: an unbounded queue for the stalled client would hold every
        // state line (~270 bytes × 10,000 ≈ 2.6 MiB, doubled by array growth);
        // the daemon keeps at most one partial line and an "owed" flag.
        let growth = peakRSS - baseline.rssKiB
        #expect(Self.sanitized || growth < Self.rssToleranceKiB, "RSS grew by \(growth) KiB while a subscriber did not read (samples \(rssSamples))")

        // It reads at last: what the kernel held, then the latest state, then nothing more.
        let drained = try stalled.read(until: { $0.type == "state" && $0.tMs == final.tMs }, timeout: 10)
        let states = drained.skipped + [drained.match]
        #expect(states.allSatisfy { $0.type == "state" && !$0.hasSeq }, "only pushed states were queued")
        #expect(drained.match.content == final.content, "\(drained.match) is not the latest \(final)")
        let times = states.compactMap(\.tMs)
        #expect(times == times.sorted() && Set(times).count == times.count, "states out of order or repeated")
        #expect(try stalled.request(#"{"op":"get","seq":5}"#).seq == 5, "a state came after the latest one")
        stalled.close()

        let figures = try Self.checkRecovery(daemon, watched, baseline, constrainingTo: "bottom-up", id: "t")
        print(
            "abuse/stalled: \(changes) changes in \(Self.fixed(elapsed, 0)) ms (\(Self.fixed(elapsed * 1000 / Double(changes), 1)) µs each); "
                + "the stalled subscriber had \(stalledUnread) bytes unread and read \(states.count) states, the last the latest; "
                + "3 readers got all \(changes); RSS growth during the changes \(growth) KiB (peak \(peakRSS) KiB); "
                + "fds \(baseline.fds) → \(figures.fds); RSS \(figures.rssText)")
        try daemon.stopCleanly()
    }

    // MARK: - 4. Flooders that never read

    /// What the flooding threads did, shared with the test's thread.
    struct FloodCounts: WorkerCounts {
        var stop = false
        var flooders = 0
        var disconnected = 0
        var notDisconnected = 0
        var bytes = 0
        var connectFailures = 0
    }
    typealias FloodLog = WorkerLog<FloodCounts>

    /// Connects, writes `get` requests without ever reading, until the daemon
    /// hangs up; then the next flooder. Runs on its own thread until `log.stop`.
    static func flood(path: String, log: FloodLog) {
        let burst = Array(String(repeating: #"{"op":"get"}"# + "\n", count: 400).utf8)
        while !log.stopped {
            guard let fd = try? DaemonHarness.connectSocket(path) else {
                log.counts.withLock { $0.connectFailures += 1 }
                continue
            }
            log.counts.withLock { $0.flooders += 1 }
            var sent = 0
            var gone = false
            let deadline = ContinuousClock.now + .seconds(5)
            while !gone, ContinuousClock.now < deadline, !log.stopped {
                let n = burst.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
                if n > 0 {
                    sent += n
                } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                    var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&entry, 1, 10)
                } else {
                    gone = true  // EPIPE or ECONNRESET: the daemon hung up
                }
            }
            let total = sent
            log.counts.withLock {
                $0.bytes += total
                if gone { $0.disconnected += 1 } else if !$0.stop { $0.notDisconnected += 1 }
            }
            close(fd)
        }
    }

    @Test("clients flooding requests without reading replies are disconnected and logged, while a well-behaved client's gets stay fast")
    func floodersAreDisconnected() throws {
        let (daemon, watched, baseline) = try Self.start(clients: 1100, subscribers: 3)
        let prober = try daemon.connect()

        let log = FloodLog()
        let threads = 2
        let finished = DispatchSemaphore(value: 0)
        let path = daemon.socketPath
        for _ in 0..<threads {
            DispatchQueue.global().async {
                Self.flood(path: path, log: log)
                finished.signal()
            }
        }
        // Measure while they flood: a get, and every 20th request a constraint
        // change that the subscribers must see.
        var latencies: [Double] = []
        var changes = 0
        let until = ContinuousClock.now + .seconds(3)
        var request = 0
        while ContinuousClock.now < until {
            request += 1
            if request % 20 == 0 {
                changes += 1
                #expect(try prober.request(Self.constrain("p", changes % 2 == 0 ? ["left-up"] : ["right-up"], seq: request)).seq == Int64(request))
            } else {
                let sent = ContinuousClock.now
                let reply = try prober.request(#"{"op":"get","seq":\#(request)}"#)
                latencies.append(Self.milliseconds(ContinuousClock.now - sent))
                guard reply.type == "state", reply.seq == Int64(request) else {
                    Issue.record("get answered \(reply)")
                    break
                }
            }
            try watched.drainSubscribers()
        }
        log.counts.withLock { $0.stop = true }
        for _ in 0..<threads {
            #expect(finished.wait(timeout: .now() + 10) == .success, "a flooding thread did not stop")
        }
        let counts = log.counts.withLock { $0 }
        #expect(counts.disconnected >= 10, "only \(counts.disconnected) flooders were disconnected in 3 s")
        #expect(counts.notDisconnected == 0, "\(counts.notDisconnected) flooders wrote for 5 s without being disconnected")
        #expect(counts.connectFailures == 0, "\(counts.connectFailures) flooders could not connect")
        // Every disconnect is logged with its reason (the flooders the test
        // stopped itself may or may not have been cut off first).
        let logged = ProcessStats.waitFor(timeout: 5, {
            Self.logged("bytes of replies unread", daemon, since: baseline)
        }, until: { $0 >= counts.disconnected }).value ?? 0
        #expect(logged >= counts.disconnected && logged <= counts.flooders, "\(logged) 'replies unread' log lines for \(counts.disconnected) disconnects of \(counts.flooders) flooders")

        let p50 = Self.quantile(latencies, 0.5)
        let p99 = Self.quantile(latencies, 0.99)
        let worst = latencies.max() ?? .nan
        // Fair turns on a level-triggered loop: a get waits at most for the
        // flooders' current read batches (16 chunks of 16 KiB at most, cut off
        // once 64 KiB of replies are queued). The figures measured are in
        // docs/robustness.md, Abuse suite; 250 ms leaves room for a busy CI
        // machine (the figure is reported either way), and is far below
        // what a loop that serves one client to exhaustion, or never cuts a
        // flooder off, would show (seconds, or a timeout).
        #expect(p99 < Slowdown.scaled(250), "p99 get latency under the flood: \(p99) ms (budget \(Slowdown.scaled(250)) ms)")
        prober.close()

        let peakRSS = ProcessStats.peakRSSKiB(daemon.pid) ?? -1
        let figures = try Self.checkRecovery(daemon, watched, baseline, constrainingTo: "bottom-up")
        print(
            "abuse/flood: \(counts.disconnected) flooders (\(threads) threads) disconnected in 3 s after \(Self.fixed(Double(counts.bytes) / 1_048_576, 1)) MiB of requests, \(logged) log lines; "
                + "well-behaved get latency over \(latencies.count) gets: p50 \(Self.fixed(p50, 2)) ms, p99 \(Self.fixed(p99, 2)) ms, max \(Self.fixed(worst, 2)) ms; "
                + "\(changes) changes meanwhile; fds \(baseline.fds) → \(figures.fds); RSS \(figures.rssText), peak (VmHWM) \(peakRSS) KiB")
        try daemon.stopCleanly()
    }

    // MARK: - 5. Churn

    /// How a churning client leaves.
    enum Departure: Int, CaseIterable {
        /// Subscribes, sends its constraint and closes at once with SO_LINGER 0,
        /// everything it was sent unread.
        case abort
        /// Waits for the ok of both of its constraints, then closes.
        case afterOK
        /// Sends its constraint and half a line, then closes.
        case midLine
        /// Sends its constraint, shuts down its write side, reads until the daemon closes.
        case halfClose
    }

    static let churnMasks: [[String]] = [
        ["left-up"], ["landscape"], ["normal", "right-up"], ["all-but-upside-down"], ["portrait"], ["bottom-up"], ["right-up"],
    ]

    /// Closes with SO_LINGER {on, 0}: an abortive close. On AF_UNIX there is no
    /// RST segment; what the daemon sees is ECONNRESET on a socket whose peer
    /// left with unread data, which this client always has (hello, ok).
    static func abort(_ client: Client) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        client.close()
    }

    @Test("500 clients at a time connecting, constraining and vanishing for 5 s: no constraint leaks, fds and RSS return to baseline")
    func churn() throws {
        let (daemon, watched, baseline) = try Self.start(clients: 1100, subscribers: 3)

        let perWave = 500
        var waves = 0
        var total = 0
        var midChurnChecks = 0
        var failures: [String] = []
        var peakFDs = baseline.fds
        let until = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < until {
            let clients = try (0..<perWave).map { _ in try daemon.connect(readHello: false) }
            peakFDs = max(peakFDs, ProcessStats.fdCount(daemon.pid) ?? 0)
            let departures = (0..<perWave).map { Departure(rawValue: ($0 + waves) % 4)! }
            for (i, client) in clients.enumerated() {
                let mask = Self.churnMasks[(i + waves) % Self.churnMasks.count]
                var bytes = Self.constrain("w\(waves)", mask, seq: i) + "\n"
                switch departures[i] {
                case .abort: bytes = #"{"op":"subscribe"}"# + "\n" + bytes
                case .afterOK: bytes += Self.constrain("second", ["all"], seq: -i - 1) + "\n"
                case .midLine: bytes += #"{"op":"release","id":"w"#
                case .halfClose: break
                }
                try client.sendRaw(Array(bytes.utf8))
                switch departures[i] {
                case .abort: Self.abort(client)
                case .midLine: client.close()
                case .halfClose: shutdown(client.fd, Int32(SHUT_WR))
                case .afterOK: break
                }
            }
            // The ones that wait: both oks (after the hello), or everything until the daemon closes.
            let waiting = clients.indices.filter { departures[$0] == .afterOK || departures[$0] == .halfClose }
            let inboxes = try Self.collect(waiting.map { clients[$0] }, timeout: 20) { w, message in
                departures[waiting[w]] == .afterOK && message.seq == Int64(-waiting[w] - 1)
            }
            for (w, inbox) in inboxes.enumerated() {
                let i = waiting[w]
                let types = inbox.messages.map { $0.type ?? "?" }
                switch departures[i] {
                case .afterOK:
                    if !(inbox.done && types == ["hello", "ok", "ok"]) { failures.append("after-ok client \(i) of wave \(waves): \(types)") }
                case .halfClose:
                    if !(inbox.closed && types == ["hello", "ok"] && inbox.messages[1].seq == Int64(i)) {
                        failures.append("half-closed client \(i) of wave \(waves): \(types), closed \(inbox.closed)")
                    }
                default: break
                }
            }
            for (i, client) in clients.enumerated() where departures[i] == .afterOK {
                // Half of them abortively.
                if i % 8 == 1 { Self.abort(client) } else { client.close() }
            }
            for client in clients { client.close() }
            total += perWave
            waves += 1
            try watched.drainSubscribers()
            // Mid-churn the daemon still answers at once.
            if waves % 4 == 0 {
                #expect(try watched.controller.request(#"{"op":"get","seq":\#(waves)}"#).seq == Int64(waves))
                midChurnChecks += 1
            }
        }
        let failed = failures.count
        #expect(failed == 0, "churning clients that got unexpected replies; first: \(failures.prefix(3))")

        // No constraint outlives its client: once all are gone, the allowed set is all again.
        let fdsBack = ProcessStats.waitFor(timeout: 10, { ProcessStats.fdCount(daemon.pid) }, until: { $0 == baseline.fds })
        #expect(fdsBack.met, "fds \(fdsBack.value ?? -1) after the churn, baseline \(baseline.fds): \(ProcessStats.fdKinds(daemon.pid))")
        let settled = try watched.controller.request(#"{"op":"get","seq":1}"#)
        #expect(settled.allowed == DaemonHarness.all, "a constraint leaked: \(settled)")
        // Before any further change, each subscriber's last state is the current one.
        var stale: [String] = []
        for (index, subscriber) in watched.subscribers.enumerated() {
            let seen = try Self.lastPush(subscriber, after: subscriber.lastState, seq: 800_000 + Int64(index) * 2)
            if seen.last?.content != settled.content || seen.last?.tMs != settled.tMs {
                stale.append("subscriber \(index) ended on \(seen.last?.raw ?? "nothing"), current \(settled.raw)")
            }
        }
        // A drop's consequences follow the publish loop (SocketServer.drop defers onClose).
        let staleCount = stale.count
        #expect(staleCount == 0, "subscribers ended on a stale state after the churn: \(stale.prefix(3))")

        let peakRSS = ProcessStats.peakRSSKiB(daemon.pid) ?? -1
        let figures = try Self.checkRecovery(
            daemon, watched, baseline, final: #"{"op":"lock","orientation":"bottom-up"}"#
        ) { $0.allowed == DaemonHarness.all && $0.orientation == "bottom-up" && $0.locked == "bottom-up" }
        print(
            "abuse/churn: \(total) clients in \(waves) waves of \(perWave) over 5 s (a quarter each: abort with SO_LINGER 0, close after ok, close mid-line, half-close); "
                + "fds \(baseline.fds) → peak \(peakFDs) → \(figures.fds); RSS \(figures.rssText), peak (VmHWM) \(peakRSS) KiB")
        try daemon.stopCleanly()
    }

    // MARK: - 6. A subscriber that vanishes while a change is published

    @Test("a subscriber holding a constraint vanishes while a change is being published: every other subscriber still ends on the latest state")
    func subscriberVanishingMidPublish() throws {
        // A peer that went away is logged at info level only (an ordinary disconnect).
        let (daemon, watched, baseline) = try Self.start(["--log-level", "info"], subscribers: 20)
        /// Everyone has seen the state the controller reads now.
        func settle() throws {
            let now = try watched.controller.request(#"{"op":"get","seq":3}"#)
            for subscriber in watched.subscribers where subscriber.lastState?.tMs != now.tMs {
                _ = try subscriber.read(until: { $0.type == "state" && $0.tMs == now.tMs })
            }
        }
        var fillers: [Client] = []
        var stale: [String] = []
        var roundsTriggered = 0
        for round in 0..<6 {
            // One more connection each round: the app gets another fd, and so
            // another place in the daemon's table of clients.
            fillers.append(try daemon.connect())
            if round > 0 { #expect(try watched.controller.request(#"{"op":"release","id":"c"}"#).type == "ok") }
            try settle()
            // An app that subscribes and holds a constraint.
            let app = try daemon.subscriber()
            #expect(try app.request(Self.constrain("app", ["all-but-upside-down"])).type == "ok")
            try settle()

            // The controller's change and the app's hang-up wait for the daemon
            // in this order (SIGSTOP makes the race certain instead of likely):
            // the change is published while the app is still registered, so the
            // write to the app fails (EPIPE) in the middle of the publishing
            // loop, and the app's constraint goes with it.
            daemon.send(signal: SIGSTOP)
            let stopped = ProcessStats.waitFor(timeout: 5, { ProcessStats.runState(daemon.pid) }, until: { $0 == "T" || $0 == "t" })
            #expect(stopped.met, "orientd did not stop: state \(stopped.value.map { String($0) } ?? "?")")
            try watched.controller.send(Self.constrain("c", ["left-up", "bottom-up"]))
            app.close()
            daemon.send(signal: SIGCONT)
            #expect(try watched.controller.read().type == "ok")
            let fresh = try daemon.freshState()
            // Without the app: the controller's constraint alone.
            #expect(fresh.allowed == ["left-up", "bottom-up"], "round \(round): \(fresh)")
            if Self.logged("write failed", daemon, since: baseline) > roundsTriggered { roundsTriggered += 1 }
            for (index, subscriber) in watched.subscribers.enumerated() {
                let seen = try Self.lastPush(subscriber, after: subscriber.lastState, seq: Int64(round * 100 + index * 2))
                let times = seen.pushes.compactMap(\.tMs)
                if seen.last?.content != fresh.content || seen.last?.tMs != fresh.tMs || times != times.sorted() {
                    stale.append("round \(round), subscriber \(index): \(seen.pushes.map { "\($0.allowed ?? []) at \($0.tMs ?? -1)" }) (latest \(fresh.allowed ?? []) at \(fresh.tMs ?? -1))")
                }
            }
        }
        #expect(roundsTriggered > 0, "the app's hang-up was never seen as a failed write; the race was not reproduced")
        // A peer that hung up is an ordinary disconnect: never a notice (Ctrl-C on `orientctl watch`).
        let noisy = daemon.stderr.split(separator: "\n").filter { $0.contains("Broken pipe") && !$0.hasPrefix("orientd: info: ") }
        #expect(noisy.isEmpty, "a hang-up logged above info level: \(noisy.prefix(3))")
        // No reentrant publish: the subscribers not yet visited never get an older line after a newer one.
        let staleCount = stale.count
        #expect(staleCount == 0, "subscriber-rounds that ended on a stale state; first: \(stale.prefix(3))")
        for filler in fillers { filler.close() }

        let figures = try Self.checkRecovery(daemon, watched, baseline, constrainingTo: "right-up")
        print(
            "abuse/vanish-mid-publish: 6 rounds, 20 subscribers; the publish hit the vanished app in \(roundsTriggered); "
                + "\(stale.count) subscriber-rounds ended on a stale state; fds \(baseline.fds) → \(figures.fds); RSS \(figures.rssText)")
        try daemon.stopCleanly()
    }

    // MARK: - Well-behaved clients

    /// The clients that behave: a controller that sets the state (never
    /// subscribed, so its next line is always its reply) and subscribers that
    /// must see every final state.
    final class WellBehaved {
        let controller: Client
        let subscribers: [Client]
        var count: Int { 1 + subscribers.count }

        init(_ daemon: DaemonHarness, subscribers count: Int) throws {
            controller = try daemon.connect()
            subscribers = try (0..<count).map { _ in try daemon.subscriber() }
        }

        /// Reads whatever the subscribers have been sent, without waiting; each
        /// must still be connected.
        func drainSubscribers() throws {
            for (index, subscriber) in subscribers.enumerated() {
                subscriber.receiveAvailable()
                while let line = subscriber.takeLine() { subscriber.remember(try Message(line)) }
                if subscriber.closed { throw DaemonHarnessError.peerGone("subscriber \(index) was disconnected") }
            }
        }
    }

    /// The last state pushed to `subscriber` by the time the daemon has answered
    /// two `get`s in a row (a state owed to a slow subscriber goes out once its
    /// queue drains, so before the second answer), and every push read on the
    /// way. `earlier` is the last push read before.
    static func lastPush(_ subscriber: Client, after earlier: Message?, seq: Int64) throws -> (last: Message?, pushes: [Message]) {
        var pushes: [Message] = []
        for s in [seq, seq + 1] {
            try subscriber.send(#"{"op":"get","seq":\#(s)}"#)
            let reply = try subscriber.read(until: { $0.seq == s }, timeout: 10)
            pushes += reply.skipped.filter { $0.type == "state" && !$0.hasSeq }
        }
        return (pushes.last ?? earlier, pushes)
    }

    // MARK: - Baseline and recovery

    struct Baseline {
        var fds: Int
        var rssKiB: Int
        var fdKinds: [String: Int]
        /// Bytes of the daemon's stderr before the test's abuse began.
        var logOffset: Int
    }

    /// How many times `text` occurs in what the daemon logged since the baseline
    /// (the warm-up's own refusals and disconnects are not counted).
    static func logged(_ text: String, _ daemon: DaemonHarness, since baseline: Baseline) -> Int {
        let log = String(decoding: daemon.stderr.utf8.dropFirst(baseline.logOffset), as: UTF8.self)
        return log.components(separatedBy: text).count - 1
    }

    /// Walks the code paths the abuse takes once at small scale, then waits until
    /// the daemon's fd count is steady (every warm-up client reaped) and reads
    /// the baseline.
    static func baseline(_ daemon: DaemonHarness, _ watched: WellBehaved) throws -> Baseline {
        try warmUp(daemon)
        // Steady: the same count before and after a round trip that the daemon
        // can only answer after it has handled every hang-up already pending.
        var previous = -1
        let steady = ProcessStats.waitFor(timeout: 10, { () -> Int? in
            _ = try? watched.controller.request(#"{"op":"get","seq":0}"#)
            return ProcessStats.fdCount(daemon.pid)
        }, until: { count in
            defer { previous = count }
            return count == previous
        })
        let fds = try #require(steady.value, "no fd count for pid \(daemon.pid)")
        #expect(steady.met, "the daemon's fd count did not settle before the test")
        let rss = try #require(ProcessStats.rssKiB(daemon.pid))
        try watched.drainSubscribers()
        return Baseline(fds: fds, rssKiB: rss, fdKinds: ProcessStats.fdKinds(daemon.pid), logOffset: daemon.stderr.utf8.count)
    }

    /// One of each thing the tests do, at small scale, by clients that then leave.
    static func warmUp(_ daemon: DaemonHarness) throws {
        for round in 0..<20 {
            let client = try daemon.connect()
            #expect(try client.request(#"{"op":"get","seq":1}"#).type == "state")
            #expect(try client.request(#"{"op":"subscribe","seq":2}"#).type == "state")
            #expect(try client.request(Self.constrain("w", ["landscape"], seq: 3)).type == "ok")
            _ = try client.read(until: { $0.type == "state" })
            try client.sendRaw(Self.garbage(count: 600, seed: UInt64(1000 + round)) + Self.invalidUTF8Lines.flatMap { $0 + [0x0A] })
            try client.send(#"{"op":"release","id":"w","seq":4}"#)
            _ = try client.read(until: { $0.seq == 4 })
            client.close()
        }
        let long = try daemon.connect()
        try long.sendRaw([UInt8](repeating: UInt8(ascii: "x"), count: 8192))
        #expect(try long.readUntilClosed().count == 1)
        let halfClosed = try daemon.connect()
        try halfClosed.send(Self.constrain("h", ["bottom-up"]))
        shutdown(halfClosed.fd, Int32(SHUT_WR))
        _ = try halfClosed.readUntilClosed()
        // One flood, cut off by the reply bound.
        let flooder = try daemon.connect()
        let burst = Array(String(repeating: #"{"op":"get"}"# + "\n", count: 400).utf8)
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, let n = flooder.sendAvailable(burst) {
            if n == 0 {
                var entry = pollfd(fd: flooder.fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 10)
            }
        }
        flooder.close()
    }

    /// What `checkRecovery` measured.
    struct Recovery {
        var fds: Int
        var rssKiB: Int
        var baselineRSSKiB: Int
        var rssText: String { "\(baselineRSSKiB) → \(rssKiB) KiB (\(rssKiB - baselineRSSKiB >= 0 ? "+" : "")\(rssKiB - baselineRSSKiB))" }
    }

    /// The end of every test, once the abusive clients are closed: waits for the
    /// daemon to have reaped them (fds back to the baseline), has the controller
    /// send `final`, then checks (a) a fresh client's state satisfies `expected`,
    /// (b) every subscriber ends on exactly that state, (c) fds are back to the
    /// baseline exactly and RSS within `rssToleranceKiB`.
    /// `checkRecovery` ending with the controller constraining (`id`) to one
    /// orientation, which a fresh client must then read, unlocked.
    static func checkRecovery(
        _ daemon: DaemonHarness, _ watched: WellBehaved, _ baseline: Baseline, constrainingTo orientation: String,
        id: String = "c", sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Recovery {
        try checkRecovery(daemon, watched, baseline, final: constrain(id, [orientation]), sourceLocation: sourceLocation) {
            $0.allowed == [orientation] && $0.orientation == orientation && $0.hasNullLock
        }
    }

    static func checkRecovery(
        _ daemon: DaemonHarness, _ watched: WellBehaved, _ baseline: Baseline, final: String,
        sourceLocation: SourceLocation = #_sourceLocation, expected: (Message) -> Bool
    ) throws -> Recovery {
        #expect(daemon.isRunning, "orientd died: \(daemon.stderr.suffix(2000))", sourceLocation: sourceLocation)
        // After a thousand clients the loop may still be closing their fds:
        // how long that takes is CPU speed alone (Slowdown).
        let reaped = ProcessStats.waitFor(timeout: Slowdown.scaled(10), { ProcessStats.fdCount(daemon.pid) }, until: { $0 == baseline.fds })
        #expect(
            reaped.met, "fds \(reaped.value ?? -1) once the abusive clients were gone, baseline \(baseline.fds): \(ProcessStats.fdKinds(daemon.pid)) vs \(baseline.fdKinds)",
            sourceLocation: sourceLocation)

        // (a) The controller's last word is what a fresh client reads.
        let reply = try watched.controller.request(final, timeout: Slowdown.scaled(5))
        #expect(reply.type == "ok", "the controller's final request answered \(reply)", sourceLocation: sourceLocation)
        let fresh = try daemon.freshState()
        #expect(expected(fresh), "a fresh client got \(fresh)", sourceLocation: sourceLocation)
        #expect(fresh.sensor == "absent" && fresh.physical == "undefined", "\(fresh)", sourceLocation: sourceLocation)
        let again = try watched.controller.request(#"{"op":"get","seq":11}"#)
        #expect(again.content == fresh.content && again.tMs == fresh.tMs, "the state moved by itself: \(again)", sourceLocation: sourceLocation)

        // (b) Every subscriber ends on it: same content, same t_ms.
        for (index, subscriber) in watched.subscribers.enumerated() {
            let final = try subscriber.read(until: { $0.type == "state" && $0.tMs == fresh.tMs }, timeout: Slowdown.scaled(10))
            #expect(final.match.content == fresh.content, "subscriber \(index) got \(final.match)", sourceLocation: sourceLocation)
            let after = try Self.lastPush(subscriber, after: final.match, seq: 900_000 + Int64(index) * 2)
            #expect(
                after.pushes.isEmpty, "subscriber \(index) was sent more after the final state: \(after.pushes)",
                sourceLocation: sourceLocation)
        }

        // (c) The fresh client is gone too: fds exactly, RSS within the tolerance.
        let fds = ProcessStats.waitFor(timeout: Slowdown.scaled(10), { ProcessStats.fdCount(daemon.pid) }, until: { $0 == baseline.fds })
        #expect(
            fds.met, "fds \(fds.value ?? -1), baseline \(baseline.fds): \(ProcessStats.fdKinds(daemon.pid)) vs \(baseline.fdKinds)",
            sourceLocation: sourceLocation)
        let rss = ProcessStats.waitFor(timeout: 2, { ProcessStats.rssKiB(daemon.pid) }, until: { $0 <= baseline.rssKiB + rssToleranceKiB })
        #expect(
            sanitized || rss.met, "RSS \(rss.value ?? -1) KiB, baseline \(baseline.rssKiB) KiB (tolerance \(rssToleranceKiB) KiB)",
            sourceLocation: sourceLocation)
        return Recovery(fds: fds.value ?? -1, rssKiB: rss.value ?? -1, baselineRSSKiB: baseline.rssKiB)
    }

    // MARK: - Many sockets at once

    /// What one client of `collect` received.
    struct Inbox {
        var messages: [Message] = []
        /// `done` held for a message (the last one in `messages`).
        var done = false
        /// The server closed the connection before `done` held.
        var closed = false
    }

    /// Reads from all `clients` at once (poll) until, for each, `done(index,
    /// message)` holds for a message or the server closes the connection.
    /// Throws at the deadline (`timeout` × Slowdown: serving hundreds of
    /// clients is CPU speed alone), naming how many are still waiting.
    static func collect(_ clients: [Client], timeout budget: Double = 10, done: (Int, Message) -> Bool) throws -> [Inbox] {
        let timeout = Slowdown.scaled(budget)
        let deadline = ContinuousClock.now + .seconds(timeout)
        var inboxes = [Inbox](repeating: Inbox(), count: clients.count)
        func drain(_ index: Int) throws {
            while !inboxes[index].done {
                guard let line = clients[index].takeLine() else {
                    if clients[index].closed { inboxes[index].closed = true }
                    return
                }
                let message = try Message(line)
                clients[index].remember(message)
                inboxes[index].messages.append(message)
                if done(index, message) { inboxes[index].done = true }
            }
        }
        for index in clients.indices { try drain(index) }
        while true {
            let waiting = clients.indices.filter { !inboxes[$0].done && !inboxes[$0].closed }
            if waiting.isEmpty { return inboxes }
            let ready = DaemonHarness.pollReadable(waiting.map { clients[$0] }, deadline: deadline)
            guard !ready.isEmpty else {
                throw DaemonHarnessError.timedOut("\(waiting.count) of \(clients.count) clients still waiting after \(timeout) s")
            }
            for r in ready {
                clients[waiting[r]].receiveAvailable()
                try drain(waiting[r])
            }
        }
    }

    /// Writes each payload to its client as the sockets take them, round robin,
    /// until each is written or its peer hung up. Returns the bytes each sent.
    /// The deadline is `timeout` × Slowdown, as `collect`'s.
    static func pump(_ clients: [Client], _ payloads: [[UInt8]], timeout: Double) throws -> (sent: [Int], peerGone: [Bool]) {
        let deadline = ContinuousClock.now + .seconds(Slowdown.scaled(timeout))
        var sent = [Int](repeating: 0, count: clients.count)
        var gone = [Bool](repeating: false, count: clients.count)
        while true {
            let pending = clients.indices.filter { !gone[$0] && sent[$0] < payloads[$0].count }
            if pending.isEmpty { return (sent, gone) }
            var progress = false
            for i in pending {
                let n = payloads[i].withUnsafeBytes { raw in
                    Glibc.send(clients[i].fd, raw.baseAddress! + sent[i], min(65536, raw.count - sent[i]), Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
                if n > 0 {
                    sent[i] += n
                    progress = true
                } else if n < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
                    gone[i] = true
                    progress = true
                }
            }
            if progress { continue }
            guard ContinuousClock.now < deadline else {
                throw DaemonHarnessError.timedOut("\(pending.count) clients could not write their bytes within \(timeout) s")
            }
            var entries = pending.map { pollfd(fd: clients[$0].fd, events: Int16(POLLOUT), revents: 0) }
            _ = poll(&entries, nfds_t(entries.count), 10)
        }
    }
}
