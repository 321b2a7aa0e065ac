internal import OrientProtocol
internal import OrientSense

extension Daemon {
    /// Releases the pages of the daemon's own code and read-only data that
    /// `phase` (start-up, a reload) ran through, unless `[daemon]
    /// release-start-up-pages = false` (ProgramPages, ProgramSegments).
    func releaseStartupPages(_ phase: String) {
        guard config.releaseStartupPages else { return }
        let released = ProgramPages.release()
        if let failure = released.failure {
            log.info("the pages \(phase) ran through stay mapped: \(failure)")
        } else if let before = released.residentBeforeKiB, let after = released.residentAfterKiB {
            log.info("released the pages \(phase) ran through (\(released.advisedBytes / 1024) KiB advised): resident \(before) → \(after) KiB")
        }
    }

    /// Releases them again once a change of demand (a claim or its release, a
    /// subscriber coming or going) has settled, `demandSettleMs` after the
    /// last one: opening a device and answering a claim run code that the
    /// readings then do not, and a burst of claims, as a session's start
    /// brings, costs one release.
    func releaseWhenDemandSettles() {
        guard config.releaseStartupPages else { return }
        loop.cancel(demandReleaseTimer)
        demandReleaseTimer = loop.schedule(atMs: MonotonicClock.nowMs() + Self.demandSettleMs) { [unowned self] in
            self.demandReleaseTimer = nil
            self.releaseStartupPages("the change of demand")
        }
    }

    /// How long demand stays unchanged before the pages its change ran through are released.
    static let demandSettleMs = 1000.0
}
