/// Whether a convertible is being used as a tablet or as a laptop (SPEC §17,
/// docs/behaviour.md, "Tablet mode").
///
/// It comes from the kernel's `SW_TABLET_MODE` switch, else from the hinge
/// angle between the display's and the base's accelerometers
/// (``HingeModeDetector``), else it stays `unknown`.
public enum TabletMode: String, Sendable, Hashable, CaseIterable {
    /// Folded past the tablet threshold (or the switch says so): rotation may
    /// follow the sensor.
    case tablet
    /// Used as a laptop: the effective orientation stays natural under
    /// `auto-rotate = tablet-mode`.
    case laptop
    /// No source has decided yet, or there is none.
    case unknown
}
