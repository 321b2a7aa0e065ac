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
}
