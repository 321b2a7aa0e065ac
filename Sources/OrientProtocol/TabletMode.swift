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

    /// Whether the effective orientation follows the physical one in `mode`:
    ///
    /// | policy | tablet | laptop | unknown |
    /// |---|---|---|---|
    /// | `always` | yes | yes | yes |
    /// | `tablet-mode` | yes | no | **no** |
    /// | `never` | no | no | no |
    ///
    /// `unknown` under `tablet-mode` does not rotate. The daemon chooses
    /// `tablet-mode` by default only where a source exists, so this is a
    /// source that has not decided yet (the hinge before its first clear
    /// reading, say while the machine is carried at boot) or a user who asked
    /// for `tablet-mode` on a machine that cannot tell. In both, holding the
    /// natural orientation cannot be wrong for long: a laptop on a desk that
    /// turns its screen sideways is what the setting prevents, while a tablet
    /// that waits for its first clear hinge reading loses only that wait.
    public func follows(_ mode: TabletMode) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .tabletMode: mode == .tablet
        }
    }
}
