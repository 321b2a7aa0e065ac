package import OrientProtocol

/// A synthetic trajectory of a handheld device, sampled into accelerometer
/// readings (docs/traces.md, How the generator models a trajectory).
///
/// A scenario is a timeline of poses (holds and moves, back to back from t = 0)
/// plus overlays on absolute times: linear acceleration (impulses, vibration,
/// walking bounce), angular tremor, free fall, extra noise, corrupted samples
/// and gaps. The reading in the panel frame at time t is
///
///     a(t) = s(t)·g·(sin θ·cos φ, −cos θ·cos φ, sin φ) + l(t) + n(t)
///
/// with g = 9.80665 m/s², θ and φ the pose (tremor included), s the free-fall
/// scale (1 otherwise), l the sum of the linear-acceleration overlays and n
/// white Gaussian noise per axis from a seeded generator. The same scenario, seed
/// and rate always give bitwise identical samples.
///
/// ```swift
/// var s = Scenario(start: Pose(theta: 0, phi: 10))
/// s.hold(1500)
/// s.move(to: Pose(theta: 90, phi: 10), over: 300)
/// s.hold(2000)
/// let trace = s.trace(rateHz: 20)
/// ```
package struct Scenario: Sendable {
    /// The threshold of an on-change sensor, m/s²: a sample is emitted only when
    /// the reading moved further than this from the last emitted one.
    package static let onChangeThreshold = 0.05

    /// A named instant of the timeline, for tests and trace headers (e.g. `turn-end`).
    package struct Mark: Sendable, Equatable {
        package var name: String
        /// Milliseconds from the start.
        package var tMs: Double
    }

    /// One leg of the pose timeline. `from.theta` and `to.theta` are literal (not
    /// reduced modulo 360), so 0 → 180 goes through 90.
    struct Segment: Sendable {
        var startMs: Double
        var durationMs: Double
        var from: Pose
        var to: Pose
        var easing: Easing
        var endMs: Double { startMs + durationMs }
    }

    /// The pose at t = 0.
    package let start: Pose
    /// Seed of the noise generator.
    package var seed: UInt64
    /// Per-axis standard deviation of the white noise everywhere, m/s².
    package var noiseSigma: Double
    /// One line saying what the scenario shows; the trace `description` by default.
    package var summary: String?
    /// The rate its bundled trace is written at, Hz (20 unless the scenario needs more).
    package var preferredRateHz: Double = 20
    /// Named instants, in the order they were added.
    package private(set) var marks: [Mark] = []
    /// What the hand does from each instant on (`phase`): a mark whose name is words.
    package private(set) var phases: [Mark] = []
    /// Light and proximity readings, in time order (the trace's optional columns).
    package private(set) var environment: [EnvironmentSample] = []

    private var segments: [Segment] = []
    private var overlays: [Overlay] = []
    private var noiseWindows: [NoiseWindow] = []
    private var inserted: [Sample] = []
    private var gaps: [Range<Double>] = []

    /// Starts a scenario at rest in `start` at t = 0.
    /// - Parameters:
    ///   - seed: seeds the noise; the same seed and rate give identical samples.
    ///   - noiseSigma: per-axis white noise σ in m/s² (0.05 is a quiet MEMS part).
    package init(start: Pose, seed: UInt64 = 1, noiseSigma: Double = 0.05) {
        self.start = start
        self.seed = seed
        self.noiseSigma = noiseSigma
    }

    // MARK: - The pose timeline

    /// The length of the pose timeline in ms (the end of the last hold or move).
    package var durationMs: Double {
        segments.last?.endMs ?? 0
    }

    /// The pose the timeline ends in (θ literal, not reduced modulo 360).
    package var endPose: Pose {
        segments.last?.to ?? start
    }

    /// Stays in the current pose for `ms` milliseconds.
    package mutating func hold(_ ms: Double) {
        append(to: endPose, over: ms, easing: .linear)
    }

    /// Moves to `pose` over `ms` milliseconds; θ takes the short way round
    /// (exactly 180° goes through +90). Use `move(toTheta:phi:over:easing:)` for
    /// a literal path.
    package mutating func move(to pose: Pose, over ms: Double, easing: Easing = .smooth) {
        var delta = normalizedDegrees(pose.theta - endPose.theta)
        if delta > 180 { delta -= 360 }
        append(to: Pose(theta: endPose.theta + delta, phi: pose.phi), over: ms, easing: easing)
    }

    /// Moves θ literally to `toTheta` (0 → 180 passes 90; 0 → 360 passes 270, no
    /// wrap) and the tilt to `phi`, over `ms` milliseconds.
    package mutating func move(toTheta: Double, phi: Double, over ms: Double, easing: Easing = .smooth) {
        append(to: Pose(theta: toTheta, phi: phi), over: ms, easing: easing)
    }

    /// Names the current end of the timeline (or `ms`), e.g. `turn-end`.
    package mutating func mark(_ name: String, at ms: Double? = nil) {
        marks.append(Mark(name: name, tMs: ms ?? durationMs))
    }

    /// Says what the hand does from `ms` (default: the end of the timeline so
    /// far) until the next phase, in words a person reads (`make run` shows
    /// them beside each change): the `phases` header.
    package mutating func phase(_ words: String, at ms: Double? = nil) {
        phases.append(Mark(name: words, tMs: ms ?? durationMs))
    }

    /// The time of the first mark called `name`, if any.
    /// A light level (lux) read at `ms` (default: the end of the timeline so far).
    package mutating func light(_ lux: Double, at ms: Double? = nil) {
        addReading(EnvironmentSample(tMs: ms ?? durationMs, light: lux))
    }

    /// A proximity reading, near or far, at `ms` (default: the end of the timeline so far).
    package mutating func proximity(near: Bool, at ms: Double? = nil) {
        addReading(EnvironmentSample(tMs: ms ?? durationMs, proximity: near))
    }

    /// Adds `reading` in time order; readings of one instant share a line.
    private mutating func addReading(_ reading: EnvironmentSample) {
        if let same = environment.firstIndex(where: { $0.tMs == reading.tMs }) {
            environment[same].light = reading.light ?? environment[same].light
            environment[same].proximity = reading.proximity ?? environment[same].proximity
            return
        }
        let index = environment.firstIndex { $0.tMs > reading.tMs } ?? environment.endIndex
        environment.insert(reading, at: index)
    }

    package func markTime(_ name: String) -> Double? {
        marks.first { $0.name == name }?.tMs
    }

    private mutating func append(to pose: Pose, over ms: Double, easing: Easing) {
        let duration = ms.isFinite ? max(ms, 0) : 0
        segments.append(Segment(startMs: durationMs, durationMs: duration, from: endPose, to: pose, easing: easing))
    }

    // MARK: - Overlays

    /// Adds a half-sine pulse of linear acceleration `peak` (m/s², device frame)
    /// starting at `ms` and lasting `duration` ms: a jolt, a tap, a landing.
    package mutating func addImpulse(at ms: Double, duration: Double, peak: Vector3) {
        overlays.append(.impulse(atMs: ms, durationMs: duration, peak: peak))
    }

    /// Adds sinusoidal linear acceleration `amplitude`·sin(2πf(t − from) + phase)
    /// (m/s², device frame) in [from, to): shaking, sway, vibration.
    package mutating func addOscillation(
        from: Double, to: Double, frequencyHz: Double, amplitude: Vector3, phase: Double = 0
    ) {
        overlays.append(.oscillation(fromMs: from, toMs: to, frequencyHz: frequencyHz, amplitude: amplitude, phase: phase))
    }

    /// Adds sinusoidal linear acceleration of `amplitude` m/s² along world-up in
    /// [from, to), rotated into the device frame by the pose: the bounce of walking.
    package mutating func addWorldOscillation(from: Double, to: Double, frequencyHz: Double, amplitude: Double) {
        overlays.append(.worldOscillation(fromMs: from, toMs: to, frequencyHz: frequencyHz, amplitude: amplitude))
    }

    /// Adds an angular tremor of ±`degrees` on θ (and ±`phiDegrees` on φ) at
    /// `frequencyHz` in [from, to). Tremors add up: use two for a drift and a shake.
    package mutating func addTremor(from: Double, to: Double, degrees: Double, frequencyHz: Double, phiDegrees: Double = 0) {
        overlays.append(.tremor(fromMs: from, toMs: to, thetaDegrees: degrees, phiDegrees: phiDegrees, frequencyHz: frequencyHz))
    }

    /// Scales the gravity part in [from, to) so that |a| ≈ `residual` m/s²: the
    /// device is falling (other overlays still apply).
    package mutating func freeFall(from: Double, to: Double, residual: Double = 0.3) {
        overlays.append(.freeFall(fromMs: from, toMs: to, residual: residual))
    }

    /// Inserts one raw panel-frame sample at `ms`, as is (no noise, no overlays):
    /// corrupted data such as NaN, a zero vector or a garbage spike. It follows a
    /// regular sample at the same time.
    package mutating func insert(_ vector: Vector3, at ms: Double) {
        inserted.append(Sample(tMs: ms, vector: vector))
    }

    /// Removes every sample, regular or inserted, in [from, to): a suspend, a
    /// stalled driver.
    package mutating func gap(from: Double, to: Double) {
        guard from < to else { return }
        gaps.append(from..<to)
    }

    /// Adds per-axis white noise of σ = `sigma` m/s² in [from, to), on top of
    /// (in quadrature with) the scenario's `noiseSigma`.
    package mutating func setNoise(sigma: Double, from: Double, to: Double) {
        setNoise(sigma: Vector3(repeating: sigma), from: from, to: to)
    }

    /// Adds per-axis white noise with a σ per axis (e.g. only x and y) in [from, to).
    package mutating func setNoise(sigma: Vector3, from: Double, to: Double) {
        noiseWindows.append(NoiseWindow(fromMs: from, toMs: to, sigma: sigma))
    }

    // MARK: - Evaluation

    /// The pose at `ms` (tremor included, θ reduced to [0, 360)). Before the start
    /// it is the start pose; after the end, the end pose.
    package func pose(at ms: Double) -> Pose {
        var pose = plannedPose(at: ms)
        for overlay in overlays {
            let offset = overlay.poseOffset(at: ms)
            pose.theta += offset.theta
            pose.phi += offset.phi
        }
        return pose.normalized
    }

    /// The reading at `ms` without noise, in the panel frame, m/s².
    package func cleanReading(at ms: Double) -> Vector3 {
        let direction = pose(at: ms).gravityDirection
        var scale = 1.0
        var linear = Vector3.zero
        for overlay in overlays {
            scale *= overlay.gravityScale(at: ms)
            linear += overlay.acceleration(at: ms, gravityDirection: direction)
        }
        return direction * (standardGravity * scale) + linear
    }

    /// Per-axis noise σ at `ms`, m/s².
    func noiseSigma(at ms: Double) -> Vector3 {
        var variance = Vector3(repeating: noiseSigma * noiseSigma)
        for window in noiseWindows where ms >= window.fromMs && ms < window.toMs {
            variance += window.sigma * window.sigma
        }
        return Vector3(variance.x.squareRoot(), variance.y.squareRoot(), variance.z.squareRoot())
    }

    /// The planned pose at `ms`, without tremor, θ literal.
    private func plannedPose(at ms: Double) -> Pose {
        guard let first = segments.first, ms >= first.startMs else { return start }
        // The last segment starting at or before `ms`; zero-length moves are jumps.
        var low = 0
        var high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].startMs <= ms { low = mid } else { high = mid - 1 }
        }
        let segment = segments[low]
        guard segment.durationMs > 0, ms < segment.endMs else { return segment.to }
        let f = segment.easing.fraction((ms - segment.startMs) / segment.durationMs)
        return Pose(
            theta: segment.from.theta + (segment.to.theta - segment.from.theta) * f,
            phi: segment.from.phi + (segment.to.phi - segment.from.phi) * f)
    }

    /// Samples the scenario in the panel frame (after the mount matrix): regular
    /// samples every 1000/`rateHz` ms from t = 0 to `durationMs`, then inserted
    /// samples merged in time order, minus gaps.
    ///
    /// With `onChange`, no noise is added and a regular sample is emitted only when
    /// its reading moved more than `onChangeThreshold` from the last emitted
    /// sample (inserted samples are always emitted). Returns no samples for a
    /// rate that is not positive and finite.
    package func samples(rateHz: Double, onChange: Bool = false) -> [Sample] {
        guard rateHz > 0, rateHz.isFinite else { return [] }
        let count = Int((durationMs * rateHz / 1000 + 1e-9).rounded(.down)) + 1
        var noise = GaussianNoise(seed: seed)
        var regular: [Sample] = []
        regular.reserveCapacity(count)
        for index in 0..<count {
            let t = Double(index) * 1000 / rateHz
            // Draw for every sample, even in a gap, so gaps and windows do not
            // shift the noise of later samples.
            let deviate = noise.nextVector()
            var vector = cleanReading(at: t)
            if !onChange {
                vector += deviate * noiseSigma(at: t)
            }
            regular.append(Sample(tMs: t, vector: vector))
        }
        let extra = inserted.enumerated().sorted { a, b in
            a.element.tMs != b.element.tMs ? a.element.tMs < b.element.tMs : a.offset < b.offset
        }.map(\.element)

        var merged: [Sample] = []
        merged.reserveCapacity(regular.count + extra.count)
        var lastEmitted: Vector3?
        var i = 0
        var j = 0
        while i < regular.count || j < extra.count {
            let takeRegular = j == extra.count || (i < regular.count && regular[i].tMs <= extra[j].tMs)
            let sample = takeRegular ? regular[i] : extra[j]
            if takeRegular { i += 1 } else { j += 1 }
            if gaps.contains(where: { $0.contains(sample.tMs) }) { continue }
            if onChange && takeRegular, let last = lastEmitted {
                let d = sample.vector - last
                // `!(x <= t)` so that a NaN last value always counts as a change.
                guard !((d * d).sum().squareRoot() <= Scenario.onChangeThreshold) else { continue }
            }
            lastEmitted = sample.vector
            merged.append(sample)
        }
        return merged
    }

    /// The scenario as a trace (docs/traces.md): samples in the **sensor frame**, such
    /// that `mountMatrix.apply(sensorVector)` gives the panel-frame reading back
    /// (the inverse matrix, scaled to keep the magnitude when the matrix is not
    /// orthonormal, since `apply` rescales then). Extra headers: `marks`
    /// (`name@ms …`), `phases` (`ms words; …`), `duration_ms` (the timeline's length, silence included) and `generator`.
    /// - Parameters:
    ///   - onChange: an on-change sensor: no noise, samples only on change.
    ///   - description: the `description` header; `summary` when nil.
    package func trace(
        rateHz: Double, mountMatrix: MountMatrix = .identity, onChange: Bool = false, description: String? = nil
    ) -> Trace {
        let toSensor = PanelToSensor(mountMatrix)
        let sensorSamples = samples(rateHz: rateHz, onChange: onChange).map {
            Sample(tMs: $0.tMs, vector: toSensor($0.vector))
        }
        var headers: [(key: String, value: String)] = []
        if !marks.isEmpty {
            headers.append((key: "marks", value: marks.map { "\($0.name)@\(formatMs($0.tMs))" }.joined(separator: " ")))
        }
        if !phases.isEmpty {
            headers.append((key: "phases", value: phases.map { "\(formatMs($0.tMs)) \($0.name)" }.joined(separator: "; ")))
        }
        headers.append((key: "duration_ms", value: formatMs(durationMs)))
        let sigma = onChange ? "0 (on-change)" : formatMs(noiseSigma)
        headers.append((key: "generator", value: "OrientSynth seed \(seed), noise sigma \(sigma) m/s2"))
        var columns: [TraceColumn] = []
        if environment.contains(where: { $0.light != nil }) { columns.append(.light) }
        if environment.contains(where: { $0.proximity != nil }) { columns.append(.proximity) }
        return Trace(
            version: 1, mountMatrix: mountMatrix, rateHz: rateHz, onChange: onChange,
            description: description ?? summary, extraHeaders: headers, samples: sensorSamples,
            columns: columns, environment: environment)
    }
}

/// A number without a trailing `.0` when whole.
private func formatMs(_ ms: Double) -> String {
    if ms.rounded() == ms, abs(ms) < 1e12 { return String(Int64(ms)) }
    return String(ms)
}
