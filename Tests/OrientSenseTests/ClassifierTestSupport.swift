import OrientSynth
import Testing

@testable import OrientSense
import OrientProtocol

/// One orientation change the classifier committed.
struct Change: Equatable, CustomStringConvertible {
    var tMs: Double
    var orientation: Orientation
    var description: String { "\(orientation.rawValue)@\(Int(tMs))" }
}

/// What a run of the classifier over a sample stream produced.
struct Run {
    var changes: [Change]
    var events: [ClassifierEvent]
    var classifier: Classifier

    var orientations: [Orientation] { changes.map(\.orientation) }
    /// The changes after the first commit (the startup classification).
    var laterChanges: [Change] { Array(changes.dropFirst()) }

    func firstChange(after tMs: Double) -> Change? { changes.first { $0.tMs > tMs } }
}

/// Drives a classifier the way the daemon does: every reading in time order, and
/// a tick at each deadline that falls before the next reading (and after the last).
func drive(_ samples: [Sample], config: ClassifierConfig = ClassifierConfig(), classifier start: Classifier? = nil) -> Run {
    var classifier = start ?? Classifier(config: config)
    var events: [ClassifierEvent] = []
    var lastTick = -Double.infinity
    func record(_ event: ClassifierEvent?) { if let event { events.append(event) } }
    func ticks(before limit: Double?) {
        while let d = classifier.nextDeadline, d > lastTick, limit.map({ d < $0 }) ?? true {
            lastTick = d
            record(classifier.tick(atMs: d))
        }
    }
    for sample in samples {
        ticks(before: sample.tMs)
        record(classifier.process(sample))
    }
    ticks(before: nil)
    let changes = events.filter(\.orientationChanged).map { Change(tMs: $0.tMs, orientation: $0.orientation) }
    return Run(changes: changes, events: events, classifier: classifier)
}

/// Runs a scenario at `rateHz` (panel frame) through a fresh classifier.
func drive(_ scenario: Scenario, rateHz: Double = 20, config: ClassifierConfig = ClassifierConfig(), onChange: Bool = false) -> Run {
    var config = config
    config.onChange = onChange
    return drive(scenario.samples(rateHz: rateHz, onChange: onChange), config: config)
}

extension Scenario {
    /// The time of a mark the scenario set; fails the test if it is missing.
    func mark(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> Double {
        guard let t = markTime(name) else {
            Issue.record("scenario has no mark '\(name)'", sourceLocation: sourceLocation)
            return 0
        }
        return t
    }

    /// The first time at or after `from` (10 ms steps) when `condition` holds for the pose.
    func firstTime(from: Double = 0, where condition: (Pose) -> Bool) -> Double? {
        var t = from
        while t <= durationMs {
            if condition(pose(at: t)) { return t }
            t += 10
        }
        return nil
    }
}

/// The median of some numbers.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
