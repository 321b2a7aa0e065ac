import Foundation
import Testing

@testable import OrientSense
import OrientProtocol

/// Real recordings in traces/recorded (see its README): replayed with z as
/// recorded and with z negated, with the sign assumed as `z-sign = auto` does.
@Suite("Recorded traces")
struct RecordedTraceTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("traces/recorded")

    static func load(_ path: String) throws -> Trace {
        let url = root.appendingPathComponent(path)
        let data = try #require(FileManager.default.contents(atPath: url.path), "cannot read \(url.path)")
        return try TraceReader.parse([UInt8](data), file: path)
    }

    /// The published orientation changes of a replay (panel frame), z negated if asked.
    static func replay(_ trace: Trace, negate: Bool) -> [Change] {
        var samples = trace.samples.map { Sample(tMs: $0.tMs, vector: trace.mountMatrix.apply($0.vector)) }
        if negate { samples = negatedZ(samples) }
        let header = trace.extraHeaders.first { $0.key == "z_sign" }?.value
        var config = ZSign.decide(setting: .auto, driverName: nil, traceHeader: header).applied(to: ClassifierConfig())
        if let rate = trace.rateHz { config.sampleRateHz = max(10, rate) }
        return drive(samples, config: config).changes
    }

    static let broad = [
        "01_undisturbed_slow_rotation_A", "02_undisturbed_slow_rotation_B", "03_undisturbed_slow_rotation_C",
        "04_undisturbed_slow_rotation_with_breaks_A", "05_undisturbed_slow_rotation_with_breaks_B",
        "06_undisturbed_fast_rotation_A", "07_undisturbed_fast_rotation_B", "08_undisturbed_fast_rotation_with_breaks_A",
        "09_undisturbed_fast_rotation_with_breaks_B", "21_undisturbed_fast_combined",
    ]

    /// (agreeing, scored) label rows: every row whose label is an orientation
    /// that has held for at least 1.5 s.
    static func agreement(_ changes: [Change], labels: String) -> (Int, Int) {
        var agree = 0, scored = 0
        var since = 0.0, previous = ""
        var index = -1
        for line in labels.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("t_ms") {
            let fields = line.split(separator: ",")
            guard fields.count == 6, let t = Double(fields[0]) else { continue }
            let label = String(fields[5])
            if label != previous { (since, previous) = (t, label) }
            while index + 1 < changes.count, changes[index + 1].tMs <= t { index += 1 }
            guard Orientation(rawValue: label)?.quarterTurns != nil, t - since >= 1500 else { continue }
            scored += 1
            if index >= 0, changes[index].orientation.rawValue == label { agree += 1 }
        }
        return (agree, scored)
    }

    @Test("BROAD: orientd agrees with the optical labels held 1.5 s for at least 98.5 %, z as recorded and negated", arguments: [false, true])
    func broadAgreement(negate: Bool) throws {
        var agree = 0, scored = 0
        for name in Self.broad {
            let trace = try Self.load("broad/\(name).trace")
            let labelURL = Self.root.appendingPathComponent("broad/\(name)_labels.csv")
            let labels = try #require(try? String(contentsOf: labelURL, encoding: .utf8))
            let changes = Self.replay(trace, negate: negate)
            let (a, n) = Self.agreement(changes, labels: labels)
            agree += a
            scored += n
            // No recording is left without an orientation once the box is handled.
            #expect(changes.contains { $0.orientation != .undefined }, "\(name)")
        }
        let percent = 100 * Double(agree) / Double(max(1, scored))
        #expect(scored > 2000)
        #expect(percent >= 98.5, "agreement \(percent) % (\(agree)/\(scored)), z negated: \(negate)")
    }

    /// What a person sees in each ChromeOS lid recording (read off its plot,
    /// docs/classifier.md), as the sequence of orientations published.
    static let chromeos: [(String, [Orientation])] = [
        // Folded into a tablet and turned twice through all four orientations,
        // then a quick turn to left-up and back, ending upside down.
        ("chromeos_fullyopen", [.bottomUp, .rightUp, .normal, .leftUp, .bottomUp, .rightUp, .normal, .leftUp, .normal, .leftUp, .normal, .bottomUp]),
        // Hinge vertical: turned through the orientations in the first 19 s,
        // then right-up held to the end, with one brief turn to normal at 45 s.
        ("chromeos_verticalhinge", [.normal, .rightUp, .leftUp, .bottomUp, .leftUp, .normal, .leftUp, .bottomUp, .normal, .rightUp, .normal, .rightUp, .normal]),
    ]

    @Test("ChromeOS: each lid recording gives the turn sequence a person sees, z as recorded and negated", arguments: [false, true])
    func chromeosSequences(negate: Bool) throws {
        for (name, expected) in Self.chromeos {
            let trace = try Self.load("chromeos/\(name).trace")
            let seen = Self.replay(trace, negate: negate).map(\.orientation)
            #expect(seen.starts(with: expected.prefix(1)) && seen.last == expected.last, "\(name) negated \(negate): \(seen)")
            #expect(seen == expected, "\(name) negated \(negate): \(seen)")
        }
    }

    @Test("ChromeOS laptop mode, shaken about: starts and ends normal, and is normal most of the time", arguments: [false, true])
    func chromeosLaptopMode(negate: Bool) throws {
        // The lid really is turned away for seconds at a time (its plot, in
        // docs/classifier.md), and those turns are published; between them and
        // through the shaking it stays normal.
        let trace = try Self.load("chromeos/chromeos_laptopmode.trace")
        let changes = Self.replay(trace, negate: negate)
        #expect(changes.first?.orientation == .normal && changes.last?.orientation == .normal, "\(changes)")
        let end = trace.samples.last?.tMs ?? 0
        var normalMs = 0.0
        for (i, change) in changes.enumerated() where change.orientation == .normal {
            normalMs += (i + 1 < changes.count ? changes[i + 1].tMs : end) - change.tMs
        }
        #expect(normalMs >= 0.6 * end, "normal for \(normalMs) of \(end) ms: \(changes)")
        #expect(changes.count <= 10, "\(changes)")
    }
}
