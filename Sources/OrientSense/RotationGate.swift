/// Whether the effective orientation follows the sensor, given the
/// `auto-rotate` policy and the tablet mode (SPEC §17).
///
/// ```swift
/// let rotate = RotationGate.follows(config.autoRotate ?? .always, mode: detector.mode)
/// let effective = rotate ? physical : .normal   // constraints and the lock still apply after
/// ```
///
/// | policy | tablet | laptop | unknown |
/// |---|---|---|---|
/// | `always` | yes | yes | yes |
/// | `tablet-mode` | yes | no | **no** |
/// | `never` | no | no | no |
///
/// `unknown` under `tablet-mode` does not rotate. The daemon chooses
/// `tablet-mode` by default only where a source exists, and `always` where none
/// does, so `unknown` under `tablet-mode` means either a source that has not
/// decided yet (the hinge detector before its first clear reading, say while the
/// machine is carried at boot) or a user who asked for `tablet-mode` on a
/// machine that cannot tell. In both, holding the natural orientation is the
/// choice that cannot be wrong for long: a laptop on a desk that turns its
/// screen sideways is the bug this setting exists to prevent (issue 22), while
/// a tablet that waits for its first clear hinge reading loses only that wait.
public enum RotationGate {
    /// True when the effective orientation should follow the sensor: always
    /// under `always`, never under `never`, and under `tablet-mode` only when
    /// `mode` is `tablet`.
    public static func follows(_ policy: AutoRotate, mode: TabletMode) -> Bool {
        switch policy {
        case .always: return true
        case .never: return false
        case .tabletMode: return mode == .tablet
        }
    }
}
