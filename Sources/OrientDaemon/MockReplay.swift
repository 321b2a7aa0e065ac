package import OrientSense
package import OrientProtocol

/// Replays a trace through the same pipeline the hardware path uses (mount
/// matrix from the trace header, classifier, arbiter), on the trace's clock.
///
/// The replay is a sequence of steps in trace time: readings, and ticks at the
/// classifier's deadlines. `speed` only decides how long to wait between steps,
/// never which steps happen, so `--speed max` publishes exactly the states of
/// `--speed 1`.
package struct MockReplay: Sendable {
    /// How fast trace time runs against the wall clock.
    package enum Speed: Sendable, Equatable {
        /// `factor` trace milliseconds per wall millisecond (1 = real time).
        case factor(Double)
        /// No waiting at all; timers run on virtual time.
        case max
    }

    /// What the next step of the replay is.
    package enum Step: Sendable, Equatable {
        /// Feed a reading (sensor frame, time already offset for looping).
        case reading(Sample)
        /// A classifier deadline fires.
        case tick(Double)
        /// A line of light and proximity readings (time already offset for looping).
        case environment(EnvironmentSample)
        /// A reading of the base's accelerometer (its sensor frame, time already offset for looping).
        case base(Sample)
        /// The trace is over and nothing is pending.
        case end
    }

    package let trace: Trace
    package let loop: Bool
    private var index = 0
    private var offset: Double = 0
    private var lastTick: Double = -.infinity
    /// The next line of `trace.environment`, and its looping offset.
    private var environmentIndex = 0
    private var environmentOffset: Double = 0
    /// The next of `trace.baseSamples`, and its looping offset.
    private var baseIndex = 0
    private var baseOffset: Double = 0
    private let loopPeriod: Double

    /// A replay of `trace` (which must hold at least one sample), looping when
    /// `loop` is set. The replay is only a cursor over the trace: the engine it
    /// drives is the caller's (`makeEngine`, then `advance(_:)`).
    package init(trace: Trace, loop: Bool = false) {
        self.trace = trace
        self.loop = loop
        let first = trace.samples.first?.tMs ?? 0
        let last = trace.samples.last?.tMs ?? 0
        let count = Double(max(1, trace.samples.count - 1))
        let period = trace.rateHz.map { 1000 / $0 } ?? ((last - first) / count)
        // One pass lasts from the first sample to one period past the last, or to
        // the `duration_ms` a generated trace declares (an on-change trace's
        // trailing silence is part of it).
        let declared = trace.extraHeaders.last { $0.key == "duration_ms" }.flatMap { DecimalNumber.parse($0.value) }
        let pass = (last - first) + (period.isFinite && period > 0 ? period : 50)
        loopPeriod = max(pass, declared ?? 0)
    }

    /// The z sign for this trace: the config's, else the trace's `z_sign` header, else +1 (assumed).
    package func zSign(_ setting: ZSignSetting) -> ZSign {
        ZSign.decide(
            setting: setting, driverName: nil, traceHeader: trace.extraHeaders.first { $0.key == "z_sign" }?.value)
    }

    /// `config` with what the trace header says of the sensor: `on_change`, and
    /// `rate_hz` (clamped to 10…1000 Hz) as the sample rate.
    package func classifierConfig(_ config: ClassifierConfig) -> ClassifierConfig {
        var config = config
        config.onChange = trace.onChange
        if let rate = trace.rateHz, rate.isFinite, rate > 0 { config.sampleRateHz = min(1000, max(10, rate)) }
        return config
    }

    /// The pipeline for this trace: classifier parameters `config` (with the
    /// header's overrides, `classifierConfig`), the header's mount matrix unless
    /// `mountMatrix` overrides it, starting at the trace's first sample.
    package func makeEngine(
        config: ClassifierConfig = ClassifierConfig(), mountMatrix: MountMatrix? = nil, natural: NaturalGeometry = .portrait,
        defaultAllowed: OrientationMask = .all, lock: Orientation? = nil
    ) -> OrientationEngine {
        OrientationEngine(
            classifier: classifierConfig(config), mountMatrix: mountMatrix ?? trace.mountMatrix, natural: natural,
            defaultAllowed: defaultAllowed, lock: lock, sensor: .mock, tMs: trace.samples.first?.tMs ?? 0)
    }

    /// The time of the next step in trace time, or nil at the end; `deadline`
    /// is the engine's `nextDeadline`.
    package func nextStepTime(deadline: Double?) -> Double? {
        switch peek(deadline: deadline) {
        case .reading(let sample): return sample.tMs
        case .tick(let t): return t
        case .environment(let reading): return reading.tMs
        case .base(let sample): return sample.tMs
        case .end: return nil
        }
    }

    /// What `advance(_:)` will do next, given the engine's `nextDeadline`: a
    /// line of light and proximity readings, then a base reading, go before the
    /// display's sample of their time or later, and before a later deadline.
    package func peek(deadline: Double?) -> Step {
        var step = peekAccelerometer(deadline: deadline)
        if baseIndex < trace.baseSamples.count {
            let sample = trace.baseSamples[baseIndex]
            let base = Sample(tMs: sample.tMs + baseOffset, vector: sample.vector)
            if MockReplay.goesBefore(base.tMs, step) { step = .base(base) }
        }
        if environmentIndex < trace.environment.count {
            var reading = trace.environment[environmentIndex]
            reading.tMs += environmentOffset
            if MockReplay.goesBefore(reading.tMs, step) { step = .environment(reading) }
        }
        return step
    }

    /// Whether a reading of another sensor at `t` goes before `step`.
    private static func goesBefore(_ t: Double, _ step: Step) -> Bool {
        switch step {
        case .reading(let sample): t <= sample.tMs
        case .tick(let deadline): t < deadline
        case .base(let sample): t <= sample.tMs
        case .end: true
        case .environment: false
        }
    }

    /// The next step of the accelerometer's samples and the classifier's deadlines.
    private func peekAccelerometer(deadline: Double?) -> Step {
        let nextSample: Sample?
        if index < trace.samples.count {
            let s = trace.samples[index]
            nextSample = Sample(tMs: s.tMs + offset, vector: s.vector)
        } else {
            nextSample = nil
        }
        if let deadline, deadline > lastTick {
            // A deadline due at a reading's time fires first: it belongs to what
            // came before (an on-change sensor's held reading, a hold expiring).
            if let s = nextSample, s.tMs < deadline { return .reading(s) }
            return .tick(deadline)
        }
        if let s = nextSample { return .reading(s) }
        return .end
    }

    /// Performs the next step on `engine`; returns the newly published state, if it changed.
    package mutating func advance(_ engine: inout OrientationEngine) -> StateMessage? {
        switch peek(deadline: engine.nextDeadline) {
        case .reading(let sample):
            index += 1
            if index == trace.samples.count, loop, !trace.samples.isEmpty {
                index = 0
                offset += loopPeriod
            }
            return engine.process(sample)
        case .tick(let t):
            lastTick = t
            return engine.tick(atMs: t)
        case .environment:
            environmentIndex += 1
            if environmentIndex == trace.environment.count, loop {
                environmentIndex = 0
                environmentOffset += loopPeriod
            }
            return nil
        case .base:
            baseIndex += 1
            if baseIndex == trace.baseSamples.count, loop {
                baseIndex = 0
                baseOffset += loopPeriod
            }
            return nil
        case .end:
            return nil
        }
    }
}

/// When a replay's steps are due on the wall clock: trace time runs `speed`
/// times as fast as wall time from the moment the replay started.
struct ReplayPace {
    let speed: MockReplay.Speed
    /// The wall clock (CLOCK_MONOTONIC, ms) and trace time the replay started at.
    let wallStartMs: Double
    let traceStartMs: Double

    /// The wall time a step at trace time `t` is due (now, at `--speed max`).
    func due(_ t: Double) -> Double {
        switch speed {
        case .max: MonotonicClock.nowMs()
        case .factor(let factor): wallStartMs + (t - traceStartMs) / factor
        }
    }

    /// The trace time now, never before `latest` (the last step's time, which
    /// is all `--speed max` has).
    func traceNow(latest: Double) -> Double {
        guard case .factor(let factor) = speed else { return latest }
        return max(latest, traceStartMs + (MonotonicClock.nowMs() - wallStartMs) * factor)
    }
}
