package import OrientProtocol

/// What the classifier published after a reading or a tick.
public struct ClassifierEvent: Sendable, Equatable {
    /// How a committed orientation was decided.
    package enum Path: String, Sendable, Equatable {
        /// The low-pass-filtered vector held a candidate for the settle time.
        case settled
        /// The raw vector came to rest at a new orientation (the fast path).
        case steady
    }

    /// Time of the reading or tick, ms on the sensor clock.
    package var tMs: Double
    /// The published (physical) orientation; `undefined` only before the first commit.
    package var orientation: Orientation
    /// The published tilt.
    package var tilt: Tilt
    /// True when `orientation` changed at this step.
    public var orientationChanged: Bool
    /// True when `tilt` changed at this step.
    package var tiltChanged: Bool
    /// How the orientation was committed, when it changed.
    package var path: Path?
}
