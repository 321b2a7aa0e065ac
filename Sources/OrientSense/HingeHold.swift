/// Why the hinge detector kept its last decision on a reading
/// (``HingeModeDetector/hold``), for logs, status and plots.
public enum HingeHold: String, Sendable, Hashable, CaseIterable {
    /// A component was not finite, a reading was zero, or the time was not finite.
    case unusable
    /// The machine moved hard: a magnitude off g by more than the tolerance,
    /// or within the motion hold after one.
    case moving
    /// The hinge is near vertical: the angle cannot be known.
    case hingeVertical = "hinge-vertical"
    /// Near 0° or 360°, where closed and folded flat back read alike.
    case folded
}
