import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Many, slow and hostile clients (docs/protocol.md: "slow clients never slow the daemon
/// or other clients", §12). States change only on request here (no `--mock`), so
/// every change and its publish time are known to the test.
///
/// Serialized so the fan-out figures are not measured while the other tests of
/// this suite load the machine.
@Suite("Slow and many clients", .serialized)
struct SlowClientTests {
    typealias Client = DaemonHarness.Client
    typealias Message = DaemonHarness.Message

    /// The constraint a controller toggles: two masks that give different states.
    static let toggle = [#"["left-up"]"#, #"["right-up"]"#]

    static func constrain(_ index: Int, seq: Int? = nil) -> String {
        let allow = toggle[index % 2]
        return #"{"op":"constrain","id":"toggle","allow":\#(allow)\#(seq.map { ",\"seq\":\($0)" } ?? "")}"#
    }

    static func milliseconds(_ duration: Duration) -> Double { DaemonHarness.seconds(duration) * 1000 }

    /// Reads from `clients` until each has a state satisfying `done`; returns for
    /// each client the instant the bytes of that state were read off its socket
    /// (taken before any parsing, so the figure is the daemon's, not the JSON
    /// decoder's). Throws at the deadline, naming how many are missing.
    static func awaitStates(
        _ clients: [Client], timeout: Double = 10, done: (Message) -> Bool,
        received: (Int, Message) -> Void = { _, _ in }
    ) throws -> [ContinuousClock.Instant] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var arrivals = [ContinuousClock.Instant?](repeating: nil, count: clients.count)
        var readAt = [ContinuousClock.Instant](repeating: ContinuousClock.now, count: clients.count)
        var pending = clients.count
        func drain(_ index: Int) throws {
            while let line = clients[index].takeLine() {
                let message = try Message(line)
                clients[index].remember(message)
                received(index, message)
                if arrivals[index] == nil, done(message) {
                    arrivals[index] = readAt[index]
                    pending -= 1
                }
            }
        }
        for index in clients.indices { try drain(index) }
        while pending > 0 {
            let waiting = clients.indices.filter { arrivals[$0] == nil }
            let ready = DaemonHarness.pollReadable(waiting.map { clients[$0] }, deadline: deadline)
            guard !ready.isEmpty else {
                throw DaemonHarnessError.timedOut("\(pending) of \(clients.count) clients did not get the state within \(timeout) s")
            }
            // First take the bytes off every ready socket, then parse.
            for r in ready {
                clients[waiting[r]].receiveAvailable()
                readAt[waiting[r]] = ContinuousClock.now
            }
            for r in ready {
                let index = waiting[r]
                try drain(index)
                if clients[index].closed, arrivals[index] == nil {
                    throw DaemonHarnessError.peerGone("client \(index) was disconnected")
                }
            }
        }
        return arrivals.map { $0! }
    }

    @Test("200 concurrent subscribers all receive each change; each ends with the final state")
    func fanOut() throws {
        let subscriberCount = 200
        let changes = 20
        let daemon = try DaemonHarness()
        let controller = try daemon.connect()
        var subscribers: [Client] = []
        for _ in 0..<subscriberCount {
            let client = try daemon.connect()
            try client.send(#"{"op":"subscribe"}"#)
            subscribers.append(client)
        }
        _ = try Self.awaitStates(subscribers) { $0.type == "state" }

        var received = [[Message]](repeating: [], count: subscriberCount)
        var afterRequest: [Double] = []
        var afterOK: [Double] = []
        for change in 0..<changes {
            let expected = change % 2 == 0 ? ["left-up"] : ["right-up"]
            let sent = ContinuousClock.now
            try controller.send(Self.constrain(change, seq: change))
            // The daemon sends the ok just before it publishes the change.
            let ok = try controller.read()
            #expect(ok.type == "ok" && ok.seq == Int64(change), "\(ok)")
            let published = ContinuousClock.now
            let arrivals = try Self.awaitStates(subscribers, done: { $0.allowed == expected }) { index, message in
                received[index].append(message)
            }
            let last = arrivals.max()!
            afterRequest.append(Self.milliseconds(last - sent))
            afterOK.append(Self.milliseconds(last - published))
        }

        // Every subscriber got every change, once, in order, and nothing else.
        let expectedSequence = (0..<changes).map { $0 % 2 == 0 ? ["left-up"] : ["right-up"] }
        for (index, messages) in received.enumerated() {
            #expect(messages.map(\.type) == Array(repeating: "state", count: changes), "subscriber \(index): \(messages)")
            #expect(messages.map { $0.allowed ?? [] } == expectedSequence, "subscriber \(index)")
        }
        let final = try daemon.freshState()
        #expect(subscribers.allSatisfy { $0.lastState?.content == final.content }, "a subscriber ended on a stale state")

        // A burst: changes as fast as the controller can send them, no waiting in between.
        for change in 0..<changes { try controller.send(Self.constrain(change + 1)) }
        for _ in 0..<changes { #expect(try controller.read().type == "ok") }
        let burstFinal = try daemon.freshState()
        #expect(burstFinal.allowed == ["left-up"])
        _ = try Self.awaitStates(subscribers, done: { $0.allowed == ["left-up"] && $0.tMs == burstFinal.tMs })
        #expect(subscribers.allSatisfy { $0.lastState?.raw == burstFinal.raw.replacingOccurrences(of: #","seq":424242"#, with: "") })

        let sortedOK = afterOK.sorted()
        let sortedRequest = afterRequest.sorted()
        let summary = String(
            format: "fanout: %d subscribers, %d changes; last receipt after the change was published (controller's ok): median %.2f ms, max %.2f ms; after the request was sent: median %.2f ms, max %.2f ms",
            subscriberCount, changes, sortedOK[changes / 2], sortedOK.last!, sortedRequest[changes / 2], sortedRequest.last!)
        print(summary)
        try daemon.stopCleanly()
    }

    @Test("a subscriber that never reads does not delay the others, and ends with the latest state when it reads")
    func neverReadingSubscriber() throws {
        let daemon = try DaemonHarness()
        let controller = try daemon.connect()
        let stalled = try daemon.subscriber()
        let readers = try (0..<5).map { _ in try daemon.subscriber() }

        // Change until the stalled client's socket is full: its unread byte count
        // stops growing while the changes go on (the daemon then owes it a state).
        var change = 0
        var unread = -1
        var unchangedFor = 0
        var delays: [Double] = []
        func step() throws {
            let expected = change % 2 == 0 ? ["left-up"] : ["right-up"]
            try controller.send(Self.constrain(change))
            #expect(try controller.read().type == "ok")
            let published = ContinuousClock.now
            // Every reader gets every change, within a deadline (a stall would time out).
            let arrivals = try Self.awaitStates(readers, timeout: 5, done: { $0.allowed == expected })
            delays.append(Self.milliseconds(arrivals.max()! - published))
            change += 1
        }
        while unchangedFor < 50 {
            try step()
            let now = stalled.unreadBytes
            unchangedFor = now == unread ? unchangedFor + 1 : 0
            unread = now
            guard change < 20000 else { throw DaemonHarnessError("the stalled client's socket never filled (\(unread) bytes)") }
        }
        let filledAt = change
        // More changes while it stays full: the others still get each one.
        for _ in 0..<200 { try step() }
        // A last, distinct change.
        #expect(try controller.request(#"{"op":"constrain","id":"toggle","allow":["bottom-up"]}"#).type == "ok")
        let final = try daemon.freshState()
        #expect(final.orientation == "bottom-up")
        _ = try Self.awaitStates(readers, done: { $0.allowed == ["bottom-up"] })

        // Now it reads: everything queued, then the latest state. Whatever was
        // queued, the stream must reach the latest state and stop there.
        let drained = try stalled.read(until: { $0.type == "state" && $0.tMs == final.tMs }, timeout: 10)
        let states = drained.skipped + [drained.match]
        #expect(states.allSatisfy { $0.type == "state" && !$0.hasSeq }, "only pushed states were queued")
        let times = states.compactMap(\.tMs)
        #expect(times == times.sorted() && Set(times).count == times.count, "states arrived out of order or twice")
        #expect(drained.match.content == final.content, "\(drained.match) is not the latest \(final)")
        #expect(states.count < change, "coalescing: fewer states than changes (\(states.count) of \(change + 1))")
        // Nothing after the latest: the next line is the reply to this get.
        let reply = try stalled.request(#"{"op":"get","seq":99}"#)
        #expect(reply.seq == 99, "a state arrived after the latest one: \(reply)")
        // It is still connected and subscribed: the next change reaches it at once.
        #expect(try controller.request(#"{"op":"release","id":"toggle"}"#).type == "ok")
        #expect(try stalled.read().allowed == DaemonHarness.all)

        let sorted = delays.sorted()
        print(String(
            format: "slow subscriber: socket full after %d changes (%d bytes unread); %d changes in all; 5 reading subscribers got each one within median %.2f ms, max %.2f ms; the stalled one read %d states, the last one the latest",
            filledAt, unread, change + 1, sorted[sorted.count / 2], sorted.last!, states.count))
        try daemon.stopCleanly()
    }

    @Test("a client that floods requests without reading its replies is disconnected and logged; the daemon stays healthy")
    func floodingClientIsDisconnected() throws {
        let daemon = try DaemonHarness()
        let watcher = try daemon.subscriber()
        let flooder = try daemon.connect()
        let burst = Array(String(repeating: #"{"op":"get"}"# + "\n", count: 200).utf8)
        let deadline = ContinuousClock.now + .seconds(10)
        var sent = 0
        var disconnected = false
        while ContinuousClock.now < deadline {
            guard let n = flooder.sendAvailable(burst) else {
                disconnected = true
                break
            }
            sent += n
            if n == 0 {
                // The socket is full: wait (briefly, never reading) until it takes
                // more or the daemon hangs up; the next send then fails with EPIPE.
                var entry = pollfd(fd: flooder.fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 10)
            }
        }
        #expect(disconnected, "the flooder was not disconnected after \(sent) bytes of requests")
        #expect(
            daemon.waitForStderr(containing: "bytes of replies unread"),
            "the daemon logs why it disconnected the client: \(daemon.stderr)")

        // Healthy: the watcher still gets changes, a fresh client is served.
        let controller = try daemon.connect()
        #expect(try controller.request(#"{"op":"constrain","id":"a","allow":["right-up"]}"#).type == "ok")
        #expect(try watcher.read().allowed == ["right-up"])
        #expect(try daemon.freshState().allowed == ["right-up"])
        print("flood: disconnected after \(sent) bytes of unanswered requests")
        try daemon.stopCleanly()
    }
}
