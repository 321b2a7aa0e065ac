import OrientProtocol

/// Runs `read` now and then every `intervalMs` on the loop's timer until
/// stopped: the polled drivers' clock. One timer armed at a time; nothing
/// runs after `stop()`.
final class Poller {
    private let loop: EventLoop
    private let intervalMs: Double
    private var timer: EventLoop.TimerID?
    private var read: () -> Void = {}
    private var running = false

    init(loop: EventLoop, intervalMs: Double) {
        self.loop = loop
        self.intervalMs = intervalMs
    }

    /// Starts polling: the first reading is taken on the loop, right away
    /// (never inside the caller).
    func start(_ read: @escaping () -> Void) {
        self.read = read
        running = true
        schedule(atMs: MonotonicClock.nowMs())
    }

    private func schedule(atMs t: Double) {
        timer = loop.schedule(atMs: t) { [weak self] in
            guard let self, self.running else { return }
            self.timer = nil
            let started = MonotonicClock.nowMs()
            self.read()
            if self.running { self.schedule(atMs: started + self.intervalMs) }
        }
    }

    /// Stops polling.
    func stop() {
        running = false
        loop.cancel(timer)
        timer = nil
        read = {}
    }
}
