import OrientClient
import OrientProtocol

/// What `orientctl record` receives: an accelerometer sample or a light or
/// proximity reading.
enum RecordedEvent: Sendable {
    case sample(Sample)
    case reading(SensorMessage)
    /// A reading of a 2-in-1's base accelerometer (sensor frame).
    case base(Sample)
}

/// Writes what `record` receives as a trace (docs/traces.md, "Recorded
/// traces"): the header with the first sample, times from 0, and a `light`
/// or `proximity` column for each sensor the daemon had when recording began.
///
/// The samples' times are the sensor's; a reading is written before the first
/// sample of its time or later (so times never go back in the file), and the
/// readings the daemon had when recording began at the first sample's time.
/// A base accelerometer's samples (when the header has base columns) are
/// lines of their own, `t,,,,bx,by,bz`, ordered with the display's the same way.
struct TraceRecorder {
    let header: Trace
    let output: RecordingFile
    /// How many readings of the `watch-sensors` reply to wait for before the
    /// header is written (0 when the daemon has no sensors for this client).
    let expectedReadings: Int

    private var initial: [EnvironmentSensor: SensorMessage] = [:]
    private var waitingSamples: [Sample] = []
    private var columns: [TraceColumn] = []
    private var headerWritten = false
    private var clockOffset = 0.0
    private var lastSample = -Double.infinity
    private var pendingReadings: [EnvironmentSample] = []
    /// Base samples not written yet (sensor clock).
    private var pendingBase: [Sample] = []
    private var count = 0
    /// The time of the last line written (rebased): no line goes before it.
    private var lastWritten = 0.0

    init(header: Trace, output: RecordingFile, expectedReadings: Int) {
        self.header = header
        self.output = output
        self.expectedReadings = expectedReadings
    }

    /// Takes one event; the outcome when the recording must end.
    mutating func take(_ event: RecordedEvent) -> RecordCommand.Outcome? {
        switch event {
        case .reading(let reading):
            guard headerWritten else {
                initial[reading.sensor] = reading
                return initial.count >= expectedReadings ? writeWaiting() : nil
            }
            guard let sample = environmentSample(reading) else { return nil }
            pendingReadings.append(sample)
            return nil
        case .base(let sample):
            guard header.columns.contains(.base) else { return nil }
            pendingBase.append(sample)
            return nil
        case .sample(let sample):
            if sample.tMs < lastSample {
                Output.error("the sample clock went back from \(lastSample) to \(sample.tMs) ms (orientd restarted?); stopping")
                return finish(status: ExitStatus.unavailable)
            }
            lastSample = sample.tMs
            guard headerWritten || initial.count >= expectedReadings || waitingSamples.count >= 256 else {
                waitingSamples.append(sample)
                return nil
            }
            waitingSamples.append(sample)
            return writeWaiting()
        }
    }

    /// The end of the recording: what was held back is written.
    mutating func finish(status: Int32 = ExitStatus.success) -> RecordCommand.Outcome {
        if let failed = writeWaiting() { return failed }
        if headerWritten, !write(pendingReadings) || !writeBase(pendingBase) { return .finished(ExitStatus.ioError, samples: count) }
        pendingReadings = []
        pendingBase = []
        return .finished(status, samples: count)
    }

    /// Writes the header (once) and the samples held back.
    private mutating func writeWaiting() -> RecordCommand.Outcome? {
        guard let first = waitingSamples.first else { return nil }
        if !headerWritten {
            clockOffset = first.tMs
            var trace = header
            for sensor in EnvironmentSensor.allCases where initial[sensor]?.present == true {
                trace.columns.append(sensor == .light ? .light : .proximity)
            }
            if case .light(_, .vendor)? = initial[.light]?.reading { trace.lightUnit = .vendor }
            columns = trace.columns
            trace.extraHeaders += [
                (key: "clock_offset_ms", value: jsonNumber(clockOffset)),
                (key: "recorded-by", value: "orientctl record"),
            ]
            guard output.write(trace.serialized()) else {
                Output.error("cannot write \(output.name): \(systemError())")
                return .finished(ExitStatus.ioError, samples: 0)
            }
            headerWritten = true
            // The readings at the start are the trace's first.
            for sensor in EnvironmentSensor.allCases {
                guard var reading = initial[sensor] else { continue }
                reading.tMs = max(reading.tMs, first.tMs)
                if let sample = environmentSample(reading) { pendingReadings.append(sample) }
            }
        }
        let samples = waitingSamples
        waitingSamples = []
        for sample in samples {
            let due = pendingReadings.prefix { $0.tMs <= rebased(sample.tMs) }
            guard write(Array(due)) else { return .finished(ExitStatus.ioError, samples: count) }
            pendingReadings.removeFirst(due.count)
            let dueBase = pendingBase.prefix { $0.tMs <= sample.tMs }
            guard writeBase(Array(dueBase)) else { return .finished(ExitStatus.ioError, samples: count) }
            pendingBase.removeFirst(dueBase.count)
            lastWritten = max(lastWritten, rebased(sample.tMs))
            guard output.write(Sample(tMs: rebased(sample.tMs), vector: sample.vector).traceLine) else {
                Output.error("cannot write \(output.name): \(systemError())")
                return .finished(ExitStatus.ioError, samples: count)
            }
            count += 1
        }
        return nil
    }

    /// A reading as a trace line's readings, on the recording's clock; nil
    /// when it gives nothing a column holds.
    private func environmentSample(_ reading: SensorMessage) -> EnvironmentSample? {
        let time = max(rebased(reading.tMs), 0)
        switch reading.reading {
        case .light(let level, _)? where columns.contains(.light): return EnvironmentSample(tMs: time, light: level)
        case .proximity(let near)? where columns.contains(.proximity): return EnvironmentSample(tMs: time, proximity: near)
        default: return nil
        }
    }

    private func rebased(_ tMs: Double) -> Double { ((tMs - clockOffset) * 1000).rounded() / 1000 }

    /// Writes base samples as `writeReadings` writes readings: at their time, or
    /// at the last line's when that is later.
    private mutating func writeBase(_ samples: [Sample]) -> Bool {
        for sample in samples {
            let time = max(max(rebased(sample.tMs), 0), lastWritten)
            lastWritten = time
            guard output.write(Sample(tMs: time, vector: sample.vector).baseTraceLine(columns: columns)) else {
                Output.error("cannot write \(output.name): \(systemError())")
                return false
            }
        }
        return true
    }

    /// Writes readings, each at its time or, when a later sample is already
    /// written (samples can come late from a buffer), at that sample's.
    private mutating func write(_ readings: [EnvironmentSample]) -> Bool {
        for var reading in readings {
            reading.tMs = max(reading.tMs, lastWritten)
            lastWritten = reading.tMs
            guard output.write(reading.traceLine(columns: columns)) else {
                Output.error("cannot write \(output.name): \(systemError())")
                return false
            }
        }
        return true
    }
}
