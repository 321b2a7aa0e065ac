import OrientProtocol

/// `orientd --mock TRACE`: the trace's steps fed through the engine as a
/// sensor's would be, paced by `ReplayPace` (MockReplay.swift).
extension Daemon {
    func scheduleReplay() {
        output.flush()
        if options.print, !output.isOpen {
            loop.stop()
            return
        }
        guard let replayPace else { return }
        guard let t = replay?.nextStepTime(deadline: engine.nextDeadline) else {
            output.flush()
            log.info("trace replayed to its end")
            if options.exitAtEnd { loop.stop() }
            return
        }
        _ = loop.schedule(atMs: replayPace.due(t)) { [unowned self] in self.replaySteps() }
    }

    func replaySteps() {
        guard var replay, let replayPace else { return }
        // At --speed max, yield to clients every few hundred steps.
        var budget = 512
        let now = MonotonicClock.nowMs()
        while budget > 0, let t = replay.nextStepTime(deadline: engine.nextDeadline) {
            if options.speed != .max, replayPace.due(t) > now { break }
            let step = replay.peek(deadline: engine.nextDeadline)
            if case .reading(let sample) = step { broadcastSample(sample) }
            if case .environment(let reading) = step { replayEnvironment(reading, unit: replay.trace.lightUnit) }
            if case .base(let sample) = step {
                broadcastSample(sample, base: true)
                hingeBaseReading(replay.trace.baseMountMatrix.apply(sample.vector), atMs: sample.tMs)
            }
            if let published = replay.advance(&engine) { publish(published) }
            if case .reading(let sample) = step { hingeLidSample(sample) }
            noteGravity()
            budget -= 1
        }
        self.replay = replay
        scheduleReplay()
    }
}
