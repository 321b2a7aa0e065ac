public import OrientProtocol

/// A snapshot of the classifier's inner state, for plots (`Classifier.diagnostics`).
public struct ClassifierDiagnostics: Sendable, Equatable {
    /// The orientation every raw reading has proposed since `rawCandidateSince`, or nil.
    public var rawCandidate: Orientation?
    public var rawCandidateSince: Double
    /// The filtered (slow) path's pending candidate, or nil.
    public var filteredCandidate: Orientation?
    /// No commit before this time (acceleration, flat and swing hold-offs).
    public var holdUntil: Double
    /// The overhead latch.
    public var overheadLatched: Bool
    /// The glance hold that applies now, ms.
    public var glanceHoldMs: Double
}
