import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol

/// Light and proximity on the socket (`watch-sensors`), replayed from a trace's
/// optional columns, through the real daemon and `orientctl`.
@Suite("Light and proximity sensors", .serialized, .timeLimit(.minutes(Slowdown.minutes(1))))
struct SensorTests {
    typealias Message = DaemonHarness.Message

    static let callTrace = DaemonHarness.trace("call-and-dark-room.trace")

    /// The sensor messages `client` reads until `done` says enough (or the deadline).
    static func readings(
        _ client: DaemonHarness.Client, timeout: Double = 15, until done: ([Message]) -> Bool
    ) throws -> [Message] {
        var seen: [Message] = []
        let deadline = ContinuousClock.now + .seconds(timeout)
        while !done(seen), ContinuousClock.now < deadline {
            let message = try client.read(timeout: max(0.1, DaemonHarness.seconds(deadline - ContinuousClock.now)))
            if message.type == "sensor" { seen.append(message) }
        }
        return seen
    }

    static func near(_ messages: [Message]) -> [Bool] {
        messages.filter { $0.string("sensor") == "proximity" }.compactMap { $0.object["near"] as? Bool }
    }

    static func levels(_ messages: [Message]) -> [Double] {
        messages.filter { $0.string("sensor") == "light" }.compactMap { $0.number("level") }
    }

    @Test("watch-sensors answers with the readings now, then pushes near, far and the light falling to 5 lux")
    func watchOverTheSocket() throws {
        let daemon = try DaemonHarness(["--mock", Self.callTrace, "--speed", "4"])
        let client = try daemon.connect()
        let reply = try client.request(#"{"op":"watch-sensors","seq":1,"sensors":["light","proximity"]}"#)
        #expect(reply.type == "ok" && reply.seq == 1, "\(reply)")
        let listed = try #require(reply.object["sensors"] as? [[String: Any]], "\(reply)")
        #expect(listed.map { $0["sensor"] as? String } == ["light", "proximity"], "\(reply)")
        #expect(listed[0]["present"] as? Bool == true && (listed[0]["level"] as? NSNumber)?.doubleValue == 300, "\(reply)")
        #expect(listed[0]["unit"] as? String == "lux", "\(reply)")
        #expect(listed[1]["near"] as? Bool == false, "\(reply)")

        let pushed = try Self.readings(client) { Self.levels($0).last == 5 }
        #expect(Self.near(pushed) == [true, false], "\(pushed)")
        let levels = Self.levels(pushed)
        #expect(levels.last == 5, "\(pushed)")
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 > $1 }, "the light does not fall: \(levels)")
        #expect(pushed.allSatisfy { !$0.hasSeq && $0.object["present"] as? Bool == true }, "\(pushed)")
        let times = pushed.compactMap(\.tMs)
        #expect(times == times.sorted(), "times go back: \(times)")
        try daemon.stopCleanly()
    }

    @Test("a client watches only what it asked for, and [] stops the pushes")
    func onlyWhatWasAsked() throws {
        let daemon = try DaemonHarness(["--mock", Self.callTrace, "--speed", "4"])
        let light = try daemon.connect()
        let proximity = try daemon.connect()
        #expect(try light.request(#"{"op":"watch-sensors","sensors":["light"]}"#).type == "ok")
        let reply = try proximity.request(#"{"op":"watch-sensors","sensors":["proximity"]}"#)
        #expect((reply.object["sensors"] as? [Any])?.count == 1, "\(reply)")
        let near = try Self.readings(proximity) { Self.near($0).count == 2 }
        #expect(near.allSatisfy { $0.string("sensor") == "proximity" }, "\(near)")
        let stop = try proximity.request(#"{"op":"watch-sensors","seq":9,"sensors":[]}"#)
        #expect(stop.raw == #"{"type":"ok","seq":9,"sensors":[]}"#)
        let lights = try Self.readings(light) { Self.levels($0).last == 5 }
        #expect(lights.allSatisfy { $0.string("sensor") == "light" }, "\(lights)")
        // After the stop, nothing more came to the proximity client: a get is answered next.
        #expect(try proximity.request(#"{"op":"get","seq":10}"#).type == "state")
        try daemon.stopCleanly()
    }

    @Test("a trace without the columns has no light and no proximity sensor")
    func absentSensors() throws {
        let daemon = try DaemonHarness(["--mock", DaemonHarness.trace("brisk90.trace")])
        let client = try daemon.connect()
        let reply = try client.request(#"{"op":"watch-sensors","sensors":["proximity","light"]}"#)
        #expect(reply.raw.contains(#"{"sensor":"light","present":false,"t_ms":"#), "\(reply)")
        #expect(reply.raw.contains(#"{"sensor":"proximity","present":false,"t_ms":"#), "\(reply)")
        try daemon.stopCleanly()
    }

    @Test("sensors-permission = off refuses watch-sensors with not-permitted naming the key; [] is still answered")
    func refused() throws {
        let daemon = try DaemonHarness(
            ["--mock", Self.callTrace], config: DaemonHarness.defaultConfig + "[daemon]\nsensors-permission = off\n")
        let client = try daemon.connect()
        let refusal = try client.request(#"{"op":"watch-sensors","seq":3,"sensors":["proximity"]}"#)
        #expect(refusal.type == "error" && refusal.code == "not-permitted" && refusal.seq == 3, "\(refusal)")
        #expect(refusal.string("message")?.contains("watch-sensors is off (sensors-permission = off)") == true, "\(refusal)")
        #expect(refusal.string("message")?.contains("set sensors-permission or seat-users in [daemon]") == true, "\(refusal)")
        #expect(try client.request(#"{"op":"watch-sensors","sensors":[]}"#).type == "ok")
        try daemon.stopCleanly()
    }

    @Test("a bad sensors list is bad-argument over the socket, and the connection stays open")
    func badArgument() throws {
        let daemon = try DaemonHarness()
        let client = try daemon.connect()
        let bad = try client.request(#"{"op":"watch-sensors","seq":2,"sensors":["light","light"]}"#)
        #expect(bad.code == "bad-argument" && bad.string("message") == "'sensors' names 'light' twice", "\(bad)")
        let unknown = try client.request(#"{"op":"watch-sensors","seq":3,"sensors":["barometer"]}"#)
        #expect(unknown.string("message") == "unknown sensor 'barometer' in 'sensors' (expected light or proximity)")
        #expect(try client.request(#"{"op":"get","seq":4}"#).type == "state")
        try daemon.stopCleanly()
    }

    @Test("status lists the replay's sensors: the accelerometer, light and proximity")
    func statusListsSensors() throws {
        let daemon = try DaemonHarness(["--mock", Self.callTrace])
        let client = try daemon.connect()
        let status = try client.request(#"{"op":"status","seq":1}"#)
        let sensors = try #require(status.object["sensors"] as? [[String: Any]], "\(status)")
        #expect(sensors.map { $0["kind"] as? String } == ["accelerometer", "light", "proximity"], "\(status)")
        #expect(sensors[1]["sources"] as? [String] == ["light"], "\(status)")
        try daemon.stopCleanly()
    }

    @Test("a watcher that does not read is not sent a backlog: its readings are coalesced and it stays connected")
    func slowWatcherIsCoalesced() throws {
        let daemon = try DaemonHarness(["--mock", Self.callTrace, "--loop", "--speed", "max"])
        let slow = try daemon.connect()
        #expect(try slow.request(#"{"op":"watch-sensors","sensors":["light","proximity"]}"#).type == "ok")
        let fast = try daemon.connect()
        #expect(try fast.request(#"{"op":"watch-sensors","sensors":["light","proximity"]}"#).type == "ok")
        // Far more readings than the slow client's socket buffer and its 64 KiB of
        // queued replies hold, had they been queued.
        var count = 0
        while count < 40_000, try fast.read(timeout: 10).type == "sensor" { count += 1 }
        #expect(count == 40_000)
        #expect(!daemon.stderr.contains("bytes of replies unread"), "\(daemon.stderr)")
        // It is still connected, and once it reads it gets a get's reply after what was sent.
        try slow.send(#"{"op":"get","seq":7}"#)
        var readings = 0
        while let message = Optional(try slow.read(timeout: 10)), message.seq != 7 {
            #expect(message.type == "sensor", "\(message)")
            readings += 1
        }
        #expect(readings < 40_000, "\(readings) readings: not coalesced")
        try daemon.stopCleanly()
    }

    // MARK: orientctl

    @Test("orientctl watch --sensors prints the readings now, then each change, until SIGINT")
    func orientctlWatch() throws {
        let daemon = try DaemonHarness(["--mock", Self.callTrace, "--speed", "4"])
        let watch = try OrientctlProcess(["--socket", daemon.socketPath, "watch", "--sensors"])
        let (match, read) = watch.readLine(timeout: 15) { $0 == "light 5 lux" }
        #expect(match != nil, "read \(read); stderr: \(watch.stderr)")
        #expect(Array(read.prefix(2)) == ["light 300 lux", "proximity far"], "\(read)")
        #expect(read.filter { $0.hasPrefix("proximity") } == ["proximity far", "proximity near", "proximity far"], "\(read)")
        #expect(read.contains("light 213.3 lux"), "\(read)")
        watch.send(signal: SIGINT)
        #expect(watch.waitForExit(timeout: 5) && watch.status == 0, "stderr: \(watch.stderr)")
        try daemon.stopCleanly()
    }

    @Test("orientctl watch --sensors --json prints the sensor messages")
    func orientctlWatchJSON() throws {
        let daemon = try DaemonHarness(["--mock", Self.callTrace, "--speed", "4"])
        let watch = try OrientctlProcess(["--socket", daemon.socketPath, "watch", "--sensors", "--json"])
        let first = try #require(watch.readLine(timeout: 5), "stderr: \(watch.stderr)")
        #expect(first == #"{"type":"sensor","sensor":"light","present":true,"level":300,"unit":"lux","t_ms":0}"#)
        watch.send(signal: SIGTERM)
        #expect(watch.waitForExit(timeout: 5) && watch.status == 0, "stderr: \(watch.stderr)")
        try daemon.stopCleanly()
    }

    @Test("orientctl watch --sensors exits 77 when sensors-permission refuses")
    func orientctlWatchRefused() throws {
        let daemon = try DaemonHarness(config: DaemonHarness.defaultConfig + "[daemon]\nsensors-permission = off\n")
        let run = try runOrientctl(["--socket", daemon.socketPath, "watch", "--sensors"])
        #expect(run.status == 77, "\(run)")
        #expect(run.stderr.contains("sensors-permission"), "\(run)")
        try daemon.stopCleanly()
    }

    @Test("record keeps the light and proximity columns, and the recording replays them")
    func recordRoundTrip() throws {
        let daemon = try DaemonHarness(["--mock", Self.callTrace, "--speed", "4"])
        let file = daemon.workspace.file("call.trace")
        let run = try runOrientctl(["--socket", daemon.socketPath, "record", file, "--duration", "3.6"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run)")
        let recorded = try readTrace(file)
        #expect(recorded.columns == [.light, .proximity])
        #expect(recorded.environment.first?.tMs == 0, "\(recorded.environment.prefix(3))")
        let near = recorded.environment.compactMap(\.proximity)
        #expect(near.first == false && near.contains(true), "\(near)")
        let light = recorded.environment.compactMap(\.light)
        #expect(light.first == 300 && light.contains(5), "\(light)")
        try daemon.stopCleanly()

        // The recording replays through the same path: a client sees the same readings.
        let replay = try DaemonHarness(["--mock", file, "--speed", "4"])
        let client = try replay.connect()
        #expect(try client.request(#"{"op":"watch-sensors","sensors":["light","proximity"]}"#).type == "ok")
        let pushed = try Self.readings(client) { Self.levels($0).last == 5 }
        #expect(Self.near(pushed) == [true, false], "\(pushed)")
        #expect(Self.levels(pushed).last == 5, "\(pushed)")
        try replay.stopCleanly()
    }
}
