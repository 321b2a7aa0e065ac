internal import OrientProtocol
internal import OrientSense
internal import OrientSensors

extension Daemon {
    /// Releases the pages of the daemon's own code and read-only data that
    /// `phase` (start-up, a reload) ran through, unless `[daemon]
    /// release-start-up-pages = false` (ProgramPages, ProgramSegments).
    func releaseStartupPages(_ phase: String) {
        guard config.releaseStartupPages else { return }
        let released = ProgramPages.release()
        let libraries = "\(released.libraryBytes / 1024) KiB of libraries advised"
        if let failure = released.libraryFailure {
            log.info("some of the libraries' pages \(phase) ran through stay mapped: \(failure)")
        }
        if let failure = released.failure {
            log.info("the pages of orientd's own segments \(phase) ran through stay mapped: \(failure) (\(libraries))")
        } else if let before = released.residentBeforeKiB, let after = released.residentAfterKiB {
            log.info("released the pages \(phase) ran through (\(released.advisedBytes / 1024) KiB advised, \(libraries)): resident \(before) → \(after) KiB")
        }
    }

    /// Who listens, as far as it can be told without going through every
    /// client: the subscribers and the D-Bus claims. A change of these (not
    /// a `get`, which comes and goes) opens or closes devices and answers
    /// claims, code that the readings then do not run. A client taking
    /// samples or watching sensors, or leaving while it did, is told by its
    /// request (`releaseWhenListenersSettle()` there).
    struct Listeners: Equatable {
        var subscribers = 0
        var claims = 0
    }

    /// Schedules a release when who listens has changed (`updateDemand()`
    /// calls it whenever that may be; it costs no walk over the clients).
    func noteListeners() {
        let now = listenersNow
        guard now != lastListeners else { return }
        lastListeners = now
        releaseWhenListenersSettle()
    }

    /// The subscribers and the D-Bus claims now.
    var listenersNow: Listeners {
        var now = Listeners(subscribers: server?.subscriberCount ?? 0)
        if let service = sensorProxy?.service {
            now.claims = SensorKind.allCases.reduce(0) { $0 + service.claimers(of: $1).count }
        }
        return now
    }

    /// Whether anyone listens: a subscriber, a claim, a client taking samples
    /// or watching a sensor (a walk over the clients only when the first two
    /// say no, and only on a change of listeners).
    var someoneListens: Bool {
        let now = listenersNow
        if now.subscribers > 0 || now.claims > 0 { return true }
        return server?.connections.contains { !$0.closing && ($0.wantsSamples || !$0.watchedSensors.isEmpty) } ?? false
    }

    /// Releases the pages again once a change of listeners (a claim or its
    /// release, a subscriber coming or going) has settled, `settleMs` after
    /// the last one: a burst of claims, as a session's start brings, costs
    /// one release.
    func releaseWhenListenersSettle() {
        loop.cancel(listenersReleaseTimer)
        listenersReleaseTimer = nil
        // Only while someone listens: a daemon that nobody listens to makes
        // no wakeups, not even this one.
        guard config.releaseStartupPages, someoneListens else { return }
        listenersReleaseTimer = loop.schedule(atMs: MonotonicClock.nowMs() + Self.settleMs) { [unowned self] in
            self.listenersReleaseTimer = nil
            self.releaseStartupPages("the change of listeners")
        }
    }

    /// How long who listens stays unchanged before the pages its change ran through are released.
    static let settleMs = 1000.0
}
