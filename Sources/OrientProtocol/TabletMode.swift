/// Whether a 2-in-1 is folded into a tablet (docs/behaviour.md, Tablet mode):
/// from the kernel's `SW_TABLET_MODE` switch, else from the hinge angle
/// between the display's and the base's accelerometers.
public enum TabletMode: String, Sendable, Hashable, CaseIterable {
    /// Folded into a tablet (or the switch says so).
    case tablet
    /// A laptop: the keyboard in front of the screen.
    case laptop
    /// No source, or none has decided yet.
    case unknown
}

/// When the screen follows the sensor: `[daemon] auto-rotate`.
public enum AutoRotate: String, Sendable, Hashable, CaseIterable {
    /// Whatever the mode.
    case always
    /// Only in tablet mode; otherwise the natural orientation.
    case tabletMode = "tablet-mode"
    /// Never: the natural orientation (constraints and the lock still apply).
    case never

    /// Whether the effective orientation follows the physical one in `mode`.
    /// Under `tablet-mode` an unknown mode does not rotate: the daemon
    /// chooses `tablet-mode` only where a source exists, and until that
    /// source has decided, the machine is taken for the laptop it is by default.
    public func follows(_ mode: TabletMode) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .tabletMode: mode == .tablet
        }
    }
}
