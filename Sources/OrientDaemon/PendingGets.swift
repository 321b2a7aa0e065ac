import OrientProtocol

/// `get` requests waiting for a fresh reading from an idle sensor: answered
/// when a reading changes the state, when the sensor goes, or half a second
/// after the first of them, whichever comes first.
///
/// Owned by the event loop's thread.
final class PendingGets {
    /// How long a `get` waits for the sensor to confirm or change the state, ms.
    static let waitMs = 500.0

    private let loop: EventLoop
    private var waiting: [(client: ClientConnection, seq: Int64?)] = []
    private var timer: EventLoop.TimerID?

    init(loop: EventLoop) {
        self.loop = loop
    }

    var isEmpty: Bool { waiting.isEmpty }

    /// Holds `client`'s `get`.
    func add(_ client: ClientConnection, seq: Int64?) {
        waiting.append((client, seq))
    }

    /// Unless already waiting, `due` answers every waiting `get` ``waitMs``
    /// from now: called once the sensor has been opened for them, so that the
    /// time opening it took does not count against the wait.
    func wait(due: @escaping () -> Void) {
        guard timer == nil, !waiting.isEmpty else { return }
        timer = loop.schedule(atMs: MonotonicClock.nowMs() + Self.waitMs) { [unowned self] in
            self.timer = nil
            due()
        }
    }

    /// Every waiting `get`, now to be answered; none waits after.
    func takeAll() -> [(client: ClientConnection, seq: Int64?)] {
        loop.cancel(timer)
        timer = nil
        defer { waiting = [] }
        return waiting
    }

    /// Forgets a client that went.
    func remove(_ client: ClientConnection) {
        waiting.removeAll { $0.client === client }
    }
}
