package import OrientProtocol

/// Finds where a device rested in a run of samples, or says why it did not.
///
/// A rest is a stretch of consecutive readings, each within `maximumAngle` of
/// the stretch's mean direction and of about the stretch's magnitude, lasting
/// at least `minimumDurationMs` over at least `minimumSamples` readings. Times
/// are in milliseconds and angles in degrees, so the answer does not depend on
/// the sample rate.
///
/// ```swift
/// let rest = try RestDetector().rest(in: trace.samples)   // throws PoseProblem
/// print(rest.direction)                                     // a unit vector, sensor frame
/// ```
package struct RestDetector: Sendable {
    /// The shortest rest accepted, in ms.
    package var minimumDurationMs: Double
    /// The fewest readings a rest may have.
    package var minimumSamples: Int
    /// Largest angle between a reading and the rest's mean direction, degrees.
    /// Hand tremor and sensor noise stay well inside it; turning does not.
    package var maximumAngle: Double
    /// Largest difference between a reading's magnitude and the rest's, m/s².
    package var magnitudeTolerance: Double
    /// Standard gravity, m/s².
    package var gravity: Double
    /// Largest difference between the rest's magnitude and `gravity`, m/s².
    package var gravityTolerance: Double

    package init(
        minimumDurationMs: Double = 1000, minimumSamples: Int = 5, maximumAngle: Double = 4,
        magnitudeTolerance: Double = 1.0, gravity: Double = 9.80665, gravityTolerance: Double = 2.0
    ) {
        self.minimumDurationMs = minimumDurationMs
        self.minimumSamples = minimumSamples
        self.maximumAngle = maximumAngle
        self.magnitudeTolerance = magnitudeTolerance
        self.gravity = gravity
        self.gravityTolerance = gravityTolerance
    }

    /// The longest rest in `samples` (times non-decreasing, any frame).
    ///
    /// - Throws: `PoseProblem`: too few readings, the device moved, the
    ///   readings are too noisy, or the resting magnitude is not about g.
    package func rest(in samples: [Sample]) throws(PoseProblem) -> Rest {
        let finite = samples.filter { $0.vector.x.isFinite && $0.vector.y.isFinite && $0.vector.z.isFinite && length($0.vector) > 0 }
        let span = (finite.last?.tMs ?? 0) - (finite.first?.tMs ?? 0)
        guard finite.count >= minimumSamples, span >= minimumDurationMs else {
            throw .tooShort(samples: finite.count, durationMs: span, neededMs: minimumDurationMs)
        }
        let runs = self.runs(in: finite)
        guard let best = runs.filter(qualifies).max(by: { $0.durationMs < $1.durationMs }) else {
            throw diagnose(finite)
        }
        try checkGravity(best)
        return best
    }

    /// Whether `run` is long enough to be a rest: `minimumSamples` readings
    /// over `minimumDurationMs`.
    package func qualifies(_ run: Rest) -> Bool {
        run.count >= minimumSamples && run.durationMs >= minimumDurationMs
    }

    /// Throws `notGravity` unless `rest`'s magnitude is g within `gravityTolerance`.
    package func checkGravity(_ rest: Rest) throws(PoseProblem) {
        let magnitude = length(rest.mean)
        guard abs(magnitude - gravity) <= gravityTolerance else {
            throw .notGravity(magnitude: magnitude, expected: gravity)
        }
    }

    /// Whether the last `minimumDurationMs` of `samples` are a rest: what a live
    /// reader waits for. Nil while they are not (yet).
    package func trailingRest(in samples: [Sample]) -> Rest? {
        guard let last = samples.last else { return nil }
        let recent = samples.filter { $0.tMs >= last.tMs - minimumDurationMs * 1.5 }
        guard let run = runs(in: recent).last, qualifies(run), run.endMs == last.tMs
        else { return nil }
        return run
    }

    /// Maximal stretches of readings that stay together, greedily from the start.
    func runs(in samples: [Sample]) -> [Rest] {
        var out: [Rest] = []
        var start = 0
        var sum = Vector3.zero
        var members: [Vector3] = []
        func close(until end: Int) {
            guard !members.isEmpty else { return }
            let mean = sum / Double(members.count)
            let spread = members.map { angleDegrees($0, mean) }.max() ?? 0
            out.append(
                Rest(mean: mean, startMs: samples[start].tMs, endMs: samples[end - 1].tMs, count: members.count,
                    spreadDegrees: spread))
        }
        for (index, sample) in samples.enumerated() {
            let v = sample.vector
            if !members.isEmpty {
                let mean = sum / Double(members.count)
                let fits = angleDegrees(v, mean) <= maximumAngle && abs(length(v) - length(mean)) <= magnitudeTolerance
                if !fits {
                    close(until: index)
                    start = index
                    sum = .zero
                    members = []
                }
            }
            sum += v
            members.append(v)
        }
        close(until: samples.count)
        return out
    }

    /// Why no rest was found: a steady average under scattered readings is
    /// noise; an average that wanders is movement.
    func diagnose(_ samples: [Sample]) -> PoseProblem {
        let overall = samples.reduce(Vector3.zero) { $0 + $1.vector } / Double(samples.count)
        let first = samples[0].tMs, span = max(samples[samples.count - 1].tMs - first, 1e-9)
        var blocks = [Vector3](repeating: .zero, count: 4)
        var counts = [Int](repeating: 0, count: 4)
        for sample in samples {
            let block = min(3, Int((sample.tMs - first) / span * 4))
            blocks[block] += sample.vector
            counts[block] += 1
        }
        let means = zip(blocks, counts).filter { $0.1 > 0 }.map { $0.0 / Double($0.1) }
        var wander = 0.0
        for a in means { for b in means { wander = max(wander, angleDegrees(a, b)) } }
        let scatter = samples.map { angleDegrees($0.vector, overall) }
        let typical = (scatter.map { $0 * $0 }.reduce(0, +) / Double(scatter.count)).squareRoot()
        // Block means of pure noise still differ by about 3σ/√n; movement shows beyond that.
        let smallestBlock = Double(max(1, counts.filter { $0 > 0 }.min() ?? 1))
        if wander <= max(maximumAngle, 3 * typical / smallestBlock.squareRoot()) {
            return .noisy(spreadDegrees: typical, limitDegrees: maximumAngle)
        }
        return .moved(degrees: wander, limitDegrees: maximumAngle)
    }
}

/// Where a device rested: the mean reading and how long it held.
package struct Rest: Sendable, Equatable {
    /// The mean reading over the rest, in the samples' frame and unit.
    package var mean: Vector3
    package var startMs: Double
    package var endMs: Double
    /// How many readings it spans.
    package var count: Int
    /// The largest angle between one of its readings and the mean, degrees.
    package var spreadDegrees: Double

    package init(mean: Vector3, startMs: Double, endMs: Double, count: Int, spreadDegrees: Double) {
        self.mean = mean
        self.startMs = startMs
        self.endMs = endMs
        self.count = count
        self.spreadDegrees = spreadDegrees
    }

    package var durationMs: Double { endMs - startMs }
    /// The mean reading as a unit vector.
    package var direction: Vector3 { mean / length(mean) }
}
