import Foundation

/// Small traces written by the tests themselves, from the frame formula of
/// docs/traces.md: a device at in-plane angle θ and tilt φ reads
///
///     a(θ, φ) = g · (sin θ · cos φ, −cos θ · cos φ, sin φ),   g = 9.80665 m/s²
///
/// so θ 0 is `normal` (0, −g, 0) and θ 90 is `left-up` (+g, 0, 0). The mount
/// matrix is the identity, so the sensor frame is the panel frame.
struct SyntheticTrace {
    static let g = 9.80665

    /// One sample line to write: a time and three fields (numbers or `nan`/`inf` tokens).
    struct Line {
        var tMs: Double
        var fields: [String]
    }

    var rateHz: Double
    var description: String
    var lines: [Line] = []

    /// The reading at in-plane angle `theta` and tilt `phi`, both in degrees.
    static func reading(theta: Double, phi: Double) -> (x: Double, y: Double, z: Double) {
        let t = theta * .pi / 180, p = phi * .pi / 180
        return (g * sin(t) * cos(p), -g * cos(t) * cos(p), g * sin(p))
    }

    /// A trace sampled every 1000/`rateHz` ms from 0 to `durationMs` inclusive,
    /// with the pose `pose(t)` = (θ, φ) in degrees.
    init(rateHz: Double, durationMs: Double, description: String, pose: (Double) -> (theta: Double, phi: Double)) {
        self.rateHz = rateHz
        self.description = description
        let period = 1000 / rateHz
        var i = 0
        while Double(i) * period <= durationMs + 1e-9 {
            let t = Double(i) * period
            let (theta, phi) = pose(t)
            let a = SyntheticTrace.reading(theta: theta, phi: phi)
            lines.append(Line(tMs: t, fields: [number(a.x), number(a.y), number(a.z)]))
            i += 1
        }
    }

    /// The last sample's time minus the first's, ms.
    var durationMs: Double { (lines.last?.tMs ?? 0) - (lines.first?.tMs ?? 0) }

    /// Inserts a raw sample line right after the regular sample at `tMs` (like
    /// a corrupted reading arriving with it).
    mutating func insert(at tMs: Double, _ x: String, _ y: String, _ z: String) {
        let index = lines.lastIndex { $0.tMs <= tMs }.map { $0 + 1 } ?? 0
        lines.insert(Line(tMs: tMs, fields: [x, y, z]), at: index)
    }

    /// The trace file's text (docs/traces.md).
    var text: String {
        var out = "# orientd-trace: 1\n# rate_hz: \(number(rateHz))\n# description: \(description)\n"
        out += "# generator: OrientdIntegrationTests SyntheticTrace\nt_ms,x,y,z\n"
        for line in lines { out += "\(number(line.tMs)),\(line.fields.joined(separator: ","))\n" }
        return out
    }

    /// Hand tremor: ±0.5° at 9 Hz, so a held pose is not bit-for-bit still.
    static func tremor(_ tMs: Double) -> Double { 0.5 * sin(2 * .pi * 9 * tMs / 1000) }

    /// Cosine ease from `from` to `to` between `start` and `end` ms.
    static func ease(_ tMs: Double, from: Double, to: Double, start: Double, end: Double) -> Double {
        if tMs <= start { return from }
        if tMs >= end { return to }
        let u = (tMs - start) / (end - start)
        return from + (to - from) * (1 - cos(.pi * u)) / 2
    }

    /// 1.5 s at 20 Hz: `normal` for 500 ms, a brisk 300 ms turn to `left-up`, held
    /// to the end. φ 10°, with tremor.
    static var briskTurn: SyntheticTrace {
        SyntheticTrace(rateHz: 20, durationMs: 1500, description: "normal, brisk 300 ms turn to left-up at 500 ms, held") { t in
            (ease(t, from: 0, to: 90, start: 500, end: 800) + tremor(t), 10)
        }
    }

    /// 4 s at 20 Hz, steady upright portrait at φ 10° with tremor.
    static var steadyPortrait: SyntheticTrace {
        SyntheticTrace(rateHz: 20, durationMs: 4000, description: "steady portrait") { t in (tremor(t), 10) }
    }
}

/// A number the way a trace writes it: rounded to 1e-4, locale-free.
private func number(_ value: Double) -> String {
    let rounded = (value * 10_000).rounded() / 10_000
    if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
    return "\(rounded)"
}
