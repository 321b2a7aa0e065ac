import OrientProtocol
import OrientSense

/// Tablet mode (docs/behaviour.md, Tablet mode): where it comes from, the
/// auto-rotate policy it sets, and what `status` says about both.
extension Daemon {
    /// The source in use: the kernel's switch first, then none.
    var tabletModeSource: DaemonStatus.TabletModeStatus.Source {
        if hub?.tabletSwitch.chosen != nil { return .switch }
        return .none
    }

    /// The mode the source gives now.
    var tabletModeNow: TabletMode {
        switch tabletModeSource {
        case .switch: hub?.tabletSwitch.mode ?? .unknown
        case .hinge, .none: .unknown
        }
    }

    /// The policy in force: the config's, else `tablet-mode` where a source
    /// exists and `always` where none does.
    var autoRotatePolicy: (policy: AutoRotate, reason: String) {
        if let configured = config.autoRotate { return (configured, "configured") }
        return tabletModeSource == .none
            ? (.always, "default: no tablet-mode switch and no base accelerometer")
            : (.tabletMode, "default: the machine has a tablet-mode source")
    }

    /// Publishes a change of the mode or the policy.
    func tabletModeChanged() {
        let (policy, _) = autoRotatePolicy
        let mode = tabletModeNow
        let now = sensorNow
        mutateEngine { engine in
            let a = engine.setAutoRotate(policy, atMs: now)
            let b = engine.setTabletMode(mode, atMs: now)
            return b ?? a
        }
    }

    /// What `status` reports.
    var tabletModeStatus: DaemonStatus.TabletModeStatus {
        let (policy, policyReason) = autoRotatePolicy
        let source = tabletModeSource
        var device: String?
        let reason: String
        switch source {
        case .switch:
            let chosen = hub?.tabletSwitch.chosen
            device = chosen?.sysname
            let name = chosen?.attributes["name"].map { $0.trimmingWhitespace() } ?? "unnamed"
            reason = "SW_TABLET_MODE on \(chosen?.devnode ?? device ?? "?") (\(name))"
        case .hinge, .none:
            reason = replay != nil ? "a trace without base columns" : "no tablet-mode switch and no base accelerometer found"
        }
        return DaemonStatus.TabletModeStatus(
            mode: engine.tabletMode, source: source, device: device, reason: reason,
            autoRotate: policy, autoRotateReason: policyReason)
    }
}
