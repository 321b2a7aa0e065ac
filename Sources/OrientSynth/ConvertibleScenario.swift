#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import OrientProtocol

/// The pose of a convertible: its hinge angle and how its base lies.
///
/// - `hinge`: 0° closed, 90° a laptop's upright screen, 180° flat, 360° folded back.
/// - `pitch`: the base turned about the hinge axis, from lying flat face up
///   (positive lifts the edge away from the hinge, as a lap with raised knees does).
/// - `roll`: the hinge axis tilted out of the horizontal (90°: the hinge vertical).
package struct HingePose: Sendable, Equatable {
    package var hinge: Double
    package var pitch: Double
    package var roll: Double

    package init(hinge: Double, pitch: Double = 0, roll: Double = 0) {
        self.hinge = hinge
        self.pitch = pitch
        self.roll = roll
    }
}

/// A synthetic trajectory of a convertible with an accelerometer in the display
/// and one in the base (docs/traces.md, "Convertibles"), sampled into a trace
/// with base columns.
///
/// Readings follow the frames of `HingeAngle` with z reading −g face up (the
/// ChromeOS recordings' convention; the trace says `z_sign: -1`): the base reads
/// `g·Q·down − Q·a`, with `Q` the base's rotation (roll about y, then pitch
/// about x), `down` the world's down and `a` the world linear acceleration
/// of the overlays; the lid reads the same turned by `hinge − 180°` about the
/// hinge (x) axis. Each sensor gets its own white noise from the seed. The same
/// scenario, seed and rate give bitwise-identical samples.
package struct ConvertibleScenario: Sendable {
    struct Segment: Sendable {
        var startMs: Double
        var durationMs: Double
        var from: HingePose
        var to: HingePose
        var endMs: Double { startMs + durationMs }
    }

    /// World linear acceleration: a sinusoid along a world direction, or a
    /// half-sine impulse when `hz` is 0.
    struct Motion: Sendable {
        var fromMs: Double
        var toMs: Double
        var amplitude: Double
        var hz: Double
        var direction: SIMD3<Double>
    }

    package let start: HingePose
    package var seed: UInt64
    package var noiseSigma: Double
    package var summary: String?
    package private(set) var marks: [Scenario.Mark] = []
    private var segments: [Segment] = []
    private var motions: [Motion] = []

    package init(start: HingePose, seed: UInt64 = 1, noiseSigma: Double = 0.05) {
        self.start = start
        self.seed = seed
        self.noiseSigma = noiseSigma
    }

    /// The length of the timeline in ms.
    package var durationMs: Double { segments.last?.endMs ?? 0 }
    /// The pose the timeline ends in.
    package var endPose: HingePose { segments.last?.to ?? start }

    /// Stays in the current pose for `ms`.
    package mutating func hold(_ ms: Double) { move(to: endPose, over: ms) }

    /// Moves to `pose` over `ms`, cosine-eased like a hand.
    package mutating func move(to pose: HingePose, over ms: Double) {
        segments.append(Segment(startMs: durationMs, durationMs: max(0, ms), from: endPose, to: pose))
    }

    /// Names the current end of the timeline, e.g. `tablet-at`.
    package mutating func mark(_ name: String, at ms: Double? = nil) {
        marks.append(Scenario.Mark(name: name, tMs: ms ?? durationMs))
    }

    /// A sinusoidal world acceleration of `amplitude` m/s² at `hz` along `direction` (world, z up).
    package mutating func shake(from: Double, to: Double, amplitude: Double, hz: Double, direction: SIMD3<Double> = SIMD3(0, 0, 1)) {
        motions.append(Motion(fromMs: from, toMs: to, amplitude: amplitude, hz: hz, direction: direction))
    }

    /// A half-sine world acceleration of `peak` m/s² along `direction` from `at` for `ms` (a lift, a jolt).
    package mutating func impulse(at: Double, ms: Double, peak: Double, direction: SIMD3<Double> = SIMD3(0, 0, 1)) {
        motions.append(Motion(fromMs: at, toMs: at + ms, amplitude: peak, hz: 0, direction: direction))
    }

    /// The pose at `tMs` (the start before 0, the end after the timeline).
    package func pose(at tMs: Double) -> HingePose {
        guard let segment = segments.first(where: { tMs < $0.endMs }) else { return endPose }
        let u = segment.durationMs > 0 ? max(0, min(1, (tMs - segment.startMs) / segment.durationMs)) : 1
        let f = (1 - cos(.pi * u)) / 2
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * f }
        return HingePose(
            hinge: mix(segment.from.hinge, segment.to.hinge), pitch: mix(segment.from.pitch, segment.to.pitch),
            roll: mix(segment.from.roll, segment.to.roll))
    }

    /// The noiseless readings (lid, base) at `tMs`, m/s², in the sensor frames (identity matrices).
    package func readings(at tMs: Double) -> (lid: Vector3, base: Vector3) {
        let pose = pose(at: tMs)
        var acceleration = SIMD3<Double>(0, 0, 0)
        for m in motions where tMs >= m.fromMs && tMs < m.toMs {
            let phase = m.hz > 0 ? sin(2 * .pi * m.hz * (tMs - m.fromMs) / 1000) : sin(.pi * (tMs - m.fromMs) / (m.toMs - m.fromMs))
            acceleration += m.amplitude * phase * m.direction
        }
        let world = SIMD3<Double>(0, 0, -standardGravity) - acceleration
        let base = rotateX(rotateY(world, degrees: pose.roll), degrees: pose.pitch)
        let lid = rotateX(base, degrees: pose.hinge - 180)
        return (lid, base)
    }

    /// Samples every 1000/rate ms from 0 to the end: the lid's and the base's at the same times.
    package func samples(rateHz: Double) -> (lid: [Sample], base: [Sample]) {
        var lidNoise = GaussianNoise(seed: seed)
        var baseNoise = GaussianNoise(seed: seed &+ 0x9E37_79B9_7F4A_7C15)
        var lid: [Sample] = [], base: [Sample] = []
        let step = 1000 / rateHz
        var i = 0.0
        while i * step <= durationMs {
            let t = i * step
            let r = readings(at: t)
            lid.append(Sample(tMs: t, vector: r.lid + noiseSigma * lidNoise.nextVector()))
            base.append(Sample(tMs: t, vector: r.base + noiseSigma * baseNoise.nextVector()))
            i += 1
        }
        return (lid, base)
    }

    /// The scenario as a trace with base columns, at `rateHz`.
    package func trace(rateHz: Double = 20, description: String? = nil) -> Trace {
        let (lid, base) = samples(rateHz: rateHz)
        var headers: [(key: String, value: String)] = [(key: "z_sign", value: "-1")]
        if !marks.isEmpty {
            headers.append((key: "marks", value: marks.map { "\($0.name)@\(wholeMs($0.tMs))" }.joined(separator: " ")))
        }
        headers.append((key: "duration_ms", value: wholeMs(durationMs)))
        headers.append((key: "generator", value: "OrientSynth seed \(seed), noise sigma \(noiseSigma) m/s2, two sensors"))
        return Trace(
            rateHz: rateHz, description: description ?? summary, extraHeaders: headers, samples: lid, columns: [.base],
            baseSamples: base)
    }
}

/// `v` in a frame turned by `degrees` about x (a vector's coordinates, not the vector, turn).
private func rotateX(_ v: SIMD3<Double>, degrees: Double) -> SIMD3<Double> {
    let a = degrees * .pi / 180, c = cos(a), s = sin(a)
    return SIMD3(v.x, c * v.y - s * v.z, s * v.y + c * v.z)
}

private func rotateY(_ v: SIMD3<Double>, degrees: Double) -> SIMD3<Double> {
    let a = degrees * .pi / 180, c = cos(a), s = sin(a)
    return SIMD3(c * v.x + s * v.z, v.y, -s * v.x + c * v.z)
}

private func wholeMs(_ ms: Double) -> String {
    ms.rounded() == ms && abs(ms) < 1e12 ? String(Int64(ms)) : String(ms)
}
