/// When the effective orientation follows the sensor (`[daemon] auto-rotate`,
/// docs/configuration.md; SPEC §17).
///
/// Unset in the config (`DaemonConfig.autoRotate` nil), the daemon uses
/// `tabletMode` where a tablet-mode source exists (the `SW_TABLET_MODE` switch
/// or a base accelerometer) and `always` where none does.
public enum AutoRotate: String, Sendable, Hashable, CaseIterable {
    /// Rotation follows the sensor whatever the tablet mode.
    case always
    /// Rotation follows the sensor only in tablet mode (``RotationGate``).
    case tabletMode = "tablet-mode"
    /// The effective orientation stays natural; the physical one is still reported.
    case never
}
