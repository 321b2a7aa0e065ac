import Foundation
import OrientClient
import Testing

#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol

/// The OrientClient library against the real daemon (issue 3 item 5): requests,
/// the state stream, constraint handles, reconnection after a restart, and the
/// error when nothing listens. Every wait polls its condition with a deadline.
@Suite("OrientClient against orientd", .timeLimit(.minutes(Slowdown.minutes(1))))
struct ClientLibraryTests {
    typealias Message = DaemonHarness.Message

    static let landscape = ["left-up", "right-up"]
    static let all = DaemonHarness.all

    /// Quick reconnection, so a restart is noticed within a fraction of a second.
    static var fastOptions: OrientClient.Options {
        var options = OrientClient.Options()
        options.requestTimeout = .seconds(3)
        options.initialReconnectDelay = .milliseconds(20)
        options.maximumReconnectDelay = .milliseconds(200)
        return options
    }

    /// Polls a fresh raw client's `get` until `predicate` holds; returns the last
    /// state, matching or not, at the deadline. Sleeps between polls with
    /// `Task.sleep`, so the library's tasks keep running meanwhile.
    static func eventually(
        _ daemon: DaemonHarness, timeout: Double = 10, _ predicate: (Message) -> Bool
    ) async throws -> Message {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let state = try daemon.freshState()
            if predicate(state) || ContinuousClock.now >= deadline { return state }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The content (everything but `seq` and `t_ms`) of a library state, comparable with `Message.content`.
    static func content(_ state: StateMessage) throws -> String {
        try Message(state.json()).content
    }

    // MARK: Requests

    @Test("get() returns the daemon's state")
    func getReturnsState() async throws {
        let daemon = try DaemonHarness()
        let client = OrientClient(socketPath: daemon.socketPath, options: Self.fastOptions)
        let first = try await client.get()
        #expect(first.orientation == .normal && first.allowed == .all && first.locked == nil && first.sensor == .absent)
        #expect(try Self.content(first) == daemon.freshState().content)

        let other = try daemon.connect()
        #expect(try other.request(#"{"op":"constrain","id":"app","allow":["landscape"]}"#).type == "ok")
        #expect(try other.request(#"{"op":"lock","orientation":"right-up"}"#).type == "ok")
        let second = try await client.get()
        #expect(second.orientation == .rightUp && second.locked == .rightUp, "\(second.json())")
        #expect(second.allowed == [.leftUp, .rightUp] && second.layout == .landscape && second.axis == .horizontal)
        #expect(try Self.content(second) == daemon.freshState().content)
        try daemon.stopCleanly()
    }

    @Test("lock() and unlock() set and clear the daemon's lock")
    func lockAndUnlock() async throws {
        let daemon = try DaemonHarness()
        let client = OrientClient(socketPath: daemon.socketPath, options: Self.fastOptions)
        try await client.lock(.orientation(.bottomUp))
        var state = try daemon.freshState()
        #expect(state.locked == "bottom-up" && state.orientation == "bottom-up", "\(state)")
        try await client.unlock()
        #expect(try daemon.freshState().hasNullLock)
        try await client.lock()
        state = try daemon.freshState()
        #expect(state.locked == "bottom-up", "lock(.current) should lock the current orientation: \(state)")
        try daemon.stopCleanly()
    }

    // MARK: The state stream

    @Test("states() yields the current state, then a change made by another client")
    func statesStream() async throws {
        let daemon = try DaemonHarness()
        let client = OrientClient(socketPath: daemon.socketPath, options: Self.fastOptions)
        let recorder = StreamRecorder(client.states())
        let first = try #require(await recorder.element(at: 0), "no state from states()")
        #expect(first.allowed == .all && first.orientation == .normal && first.locked == nil, "\(first.json())")

        let other = try daemon.connect()
        #expect(try other.request(#"{"op":"constrain","id":"app","allow":["right-up"]}"#).type == "ok")
        let second = try #require(await recorder.element(at: 1), "the change did not reach states()")
        #expect(second.allowed == [.rightUp] && second.orientation == .rightUp, "\(second.json())")
        #expect(second.tMs >= first.tMs)

        other.close()  // the constraint vanishes with its connection
        let third = try #require(await recorder.element(at: 2), "the release did not reach states()")
        #expect(third.allowed == .all, "\(third.json())")
        #expect(try Self.content(third) == daemon.freshState().content)
        try daemon.stopCleanly()
    }

    // MARK: Constraint handles

    @Test("a ConstraintHandle changes the allowed set, and release() restores it")
    func handleRelease() async throws {
        let daemon = try DaemonHarness()
        let client = OrientClient(socketPath: daemon.socketPath, options: Self.fastOptions)
        let handle = try await client.constrain(id: "player", allow: ["landscape"])
        #expect(handle.id == "player" && handle.allow == ["landscape"] && !handle.isReleased)
        let held = try daemon.freshState()
        #expect(held.allowed == Self.landscape && held.orientation == "left-up", "\(held)")
        #expect(try await client.get().allowed == [.leftUp, .rightUp])

        try await handle.release()
        #expect(handle.isReleased)
        #expect(try daemon.freshState().allowed == Self.all)
        try await handle.release()  // twice does nothing
        #expect(try daemon.freshState().allowed == Self.all)
        try daemon.stopCleanly()
    }

    @Test("constraints of one client intersect; an OrientationMask works as well as names")
    func handlesIntersect() async throws {
        let daemon = try DaemonHarness()
        let client = OrientClient(socketPath: daemon.socketPath, options: Self.fastOptions)
        let wide = try await client.constrain(id: "wide", allow: ["landscape"])
        let right = try await client.constrain(id: "right", allow: [.normal, .rightUp] as OrientationMask)
        #expect(try daemon.freshState().allowed == ["right-up"])
        try await right.release()
        #expect(try daemon.freshState().allowed == Self.landscape)
        try await wide.release()
        #expect(try daemon.freshState().allowed == Self.all)
        try daemon.stopCleanly()
    }

    @Test("dropping the last reference to a ConstraintHandle releases its constraint")
    func handleDeinit() async throws {
        let daemon = try DaemonHarness()
        let client = OrientClient(socketPath: daemon.socketPath, options: Self.fastOptions)
        try await Self.holdBriefly(client, daemon)
        // The handle is gone; its deinit sent the release without waiting.
        let after = try await Self.eventually(daemon) { $0.allowed == Self.all }
        #expect(after.allowed == Self.all, "the dropped handle's constraint is still held: \(after)")
        // The client is still connected and usable.
        #expect(try await client.get().allowed == .all)
        try daemon.stopCleanly()
    }

    /// Registers a constraint, checks it is in force, and drops the handle on return.
    private static func holdBriefly(_ client: OrientClient, _ daemon: DaemonHarness) async throws {
        let handle = try await client.constrain(id: "view", allow: ["landscape"])
        #expect(try daemon.freshState().allowed == landscape)
        withExtendedLifetime(handle) {}
    }

    @Test("a newer constrain with the same id takes over: releasing the older handle then does nothing")
    func handleSuperseded() async throws {
        let daemon = try DaemonHarness()
        let client = OrientClient(socketPath: daemon.socketPath, options: Self.fastOptions)
        let older = try await client.constrain(id: "player", allow: ["landscape"])
        let newer = try await client.constrain(id: "player", allow: ["right-up"])
        #expect(try daemon.freshState().allowed == ["right-up"])
        try await older.release()
        #expect(try daemon.freshState().allowed == ["right-up"], "releasing the superseded handle released the newer one")
        try await newer.release()
        #expect(try daemon.freshState().allowed == Self.all)
        try daemon.stopCleanly()
    }

    // MARK: Lifetime

    @Test("a state stream keeps its client alive: the stream goes on after the client is dropped")
    func streamKeepsClient() async throws {
        let daemon = try DaemonHarness()
        let recorder = StreamRecorder(Self.statesOfDroppedClient(daemon.socketPath))
        let first = try #require(await recorder.element(at: 0), "no state from states()")
        #expect(first.allowed == .all)
        let other = try daemon.connect()
        #expect(try other.request(#"{"op":"constrain","id":"app","allow":["bottom-up"]}"#).type == "ok")
        let second = await recorder.element(at: 1)
        #expect(second?.allowed == [.bottomUp], "the stream stopped with its client: \(second?.json() ?? "nothing")")
        try daemon.stopCleanly()
    }

    private static func statesOfDroppedClient(_ path: String) -> AsyncStream<StateMessage> {
        OrientClient(socketPath: path, options: fastOptions).states()
    }

    @Test("dropping the last reference to a client closes its connection")
    func clientDeinitCloses() async throws {
        let daemon = try DaemonHarness(["--log-level", "info"])
        let name = try await Self.useAndDrop(daemon)
        #expect(
            daemon.waitForStderr(containing: "\(name) disconnected"),
            "the daemon still has the dropped client's connection: \(daemon.stderr)")
        try daemon.stopCleanly()
    }

    /// Makes a request with a new client and drops it; returns the daemon's log
    /// name of its connection (`client N (uid U, pid P)`).
    private static func useAndDrop(_ daemon: DaemonHarness) async throws -> String {
        let client = OrientClient(socketPath: daemon.socketPath, options: fastOptions)
        _ = try await client.get()
        // The daemon logs a connection when it accepts it, so before it answers;
        // the only connection since the harness's probe is this client's.
        let line = try #require(
            daemon.stderr.split(separator: "\n").last { $0.hasSuffix(" connected") }, "no connection logged: \(daemon.stderr)")
        let name = line.replacingOccurrences(of: "orientd: info: ", with: "").replacingOccurrences(of: " connected", with: "")
        #expect(!daemon.stderr.contains("\(name) disconnected"), "closed while the client was alive")
        withExtendedLifetime(client) {}
        return name
    }

    @Test("an unknown mask name fails with a bad-argument server error and changes nothing")
    func badMask() async throws {
        let daemon = try DaemonHarness()
        let client = OrientClient(socketPath: daemon.socketPath, options: Self.fastOptions)
        do {
            _ = try await client.constrain(id: "x", allow: ["sideways"])
            Issue.record("constrain with an unknown mask name succeeded")
        } catch {
            guard case .server(let refusal) = error else {
                Issue.record("expected a server error, got \(error)")
                return
            }
            #expect(refusal.code.rawValue == "bad-argument", "\(refusal)")
        }
        #expect(try daemon.freshState().allowed == Self.all)
        try daemon.stopCleanly()
    }

    // MARK: Reconnection

    @Test("after a daemon restart the client reconnects, re-registers its constraint and streams the new daemon's states")
    func reconnectAfterRestart() async throws {
        let workspace = try DaemonHarness.Workspace()
        let first = try DaemonHarness(workspace: workspace)
        let client = OrientClient(socketPath: workspace.socketPath, options: Self.fastOptions)
        let recorder = StreamRecorder(client.states())
        #expect(await recorder.first(where: { _ in true }) != nil, "no state from the first daemon")
        let handle = try await client.constrain(id: "player", allow: ["landscape"])
        #expect(await recorder.first(where: { $0.allowed == [.leftUp, .rightUp] }) != nil)
        #expect(try first.freshState().allowed == Self.landscape)

        try first.stopCleanly()
        let second = try DaemonHarness(workspace: workspace)
        let restored = try await Self.eventually(second) { $0.allowed == Self.landscape }
        #expect(restored.allowed == Self.landscape, "the constraint was not re-registered with the new daemon: \(restored)")

        // A change on the new daemon reaches the old stream: it is subscribed there.
        let seen = recorder.count
        #expect(try second.connect().request(#"{"op":"lock","orientation":"right-up"}"#).type == "ok")
        let locked = await recorder.first(from: seen) { $0.locked == .rightUp }
        #expect(locked?.orientation == .rightUp && locked?.allowed == [.leftUp, .rightUp], "\(locked?.json() ?? "nothing")")
        #expect(try await client.get().locked == .rightUp)

        // The re-registered constraint is still the handle's: release() lifts it on the new daemon.
        try await handle.release()
        #expect(try second.freshState().allowed == Self.all)
        try second.stopCleanly()
    }

    @Test("a constraint released while the daemon is down is not registered again when it comes back")
    func releasedWhileDown() async throws {
        let workspace = try DaemonHarness.Workspace()
        let first = try DaemonHarness(workspace: workspace)
        let client = OrientClient(socketPath: workspace.socketPath, options: Self.fastOptions)
        let kept = try await client.constrain(id: "kept", allow: ["landscape"])
        let dropped = try await client.constrain(id: "dropped", allow: ["right-up"])
        #expect(try first.freshState().allowed == ["right-up"])
        try first.stopCleanly()
        try await dropped.release()  // nothing to send: the daemon dropped it with the connection

        let second = try DaemonHarness(workspace: workspace)
        let restored = try await Self.eventually(second) { $0.allowed == Self.landscape }
        #expect(restored.allowed == Self.landscape, "after the restart: \(restored)")
        // Had the released one come back too, the intersection would be right-up.
        #expect(try second.freshState().allowed == Self.landscape)
        withExtendedLifetime(kept) {}
        try second.stopCleanly()
    }

    @Test("states() started while no daemon runs waits, then delivers the state once a daemon starts")
    func streamWaitsForDaemon() async throws {
        let workspace = try DaemonHarness.Workspace()
        let client = OrientClient(socketPath: workspace.socketPath, options: Self.fastOptions)
        let recorder = StreamRecorder(client.states())
        let daemon = try DaemonHarness(workspace: workspace)
        let first = try #require(await recorder.element(at: 0), "no state after the daemon started")
        #expect(try Self.content(first) == daemon.freshState().content)
        try daemon.stopCleanly()
    }

    // MARK: No daemon

    @Test("with no daemon listening, requests fail with .unavailable naming the socket")
    func unavailable() async throws {
        let workspace = try DaemonHarness.Workspace()
        // A long request timeout: failing must not mean waiting it out.
        var options = Self.fastOptions
        options.requestTimeout = .seconds(30)
        let client = OrientClient(socketPath: workspace.socketPath, options: options)
        let started = ContinuousClock.now
        func check(_ error: OrientClientError, _ what: String) {
            guard case .unavailable(let reason) = error else {
                Issue.record("\(what): expected .unavailable, got \(error)")
                return
            }
            #expect(reason.contains(workspace.socketPath), "\(what): \(reason)")
        }
        do {
            let state = try await client.get()
            Issue.record("get() succeeded without a daemon: \(state.json())")
        } catch { check(error, "get") }
        do {
            let handle = try await client.constrain(id: "x", allow: ["landscape"])
            Issue.record("constrain succeeded without a daemon: \(handle.id)")
        } catch { check(error, "constrain") }
        do {
            try await client.lock(.orientation(.leftUp))
            Issue.record("lock succeeded without a daemon")
        } catch { check(error, "lock") }
        do {
            _ = try await client.samples()
            Issue.record("samples succeeded without a daemon")
        } catch { check(error, "samples") }
        // Alone this takes milliseconds. Waiting would take the 30 s request
        // timeout at least; the bound below it leaves room for a run on two
        // cores whose cooperative threads other suites keep busy (15–18 s seen).
        #expect(seconds(ContinuousClock.now - started) < 25, "the requests waited instead of failing at once")
    }
}

/// Consumes an `AsyncStream` on its own task and keeps every element, so a test
/// can wait (with a deadline) for the n-th element or for one that matches.
/// Ending the recorder (deinit) cancels the consuming task, which ends the stream.
final class StreamRecorder<Element: Sendable>: Sendable {
    private final class Storage: Sendable {
        let items = Locked<[Element]>([])
    }

    private let storage: Storage
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let storage = Storage()
        self.storage = storage
        task = Task {
            for await element in stream { storage.items.withLock { $0.append(element) } }
        }
    }

    deinit { task.cancel() }

    var count: Int { storage.items.withLock { $0.count } }

    /// The element at `index`, waiting for it until `timeout`; nil at the deadline.
    func element(at index: Int, timeout: Double = 10) async -> Element? {
        await wait(timeout: timeout) { items in index < items.count ? items[index] : nil }
    }

    /// The first element at or after `start` that satisfies `predicate`, waiting until `timeout`.
    func first(from start: Int = 0, timeout: Double = 10, where predicate: (Element) -> Bool) async -> Element? {
        await wait(timeout: timeout) { items in
            start < items.count ? items[start...].first(where: predicate) : nil
        }
    }

    private func wait(timeout: Double, _ look: ([Element]) -> Element?) async -> Element? {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            if let found = storage.items.withLock({ look($0) }) { return found }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
