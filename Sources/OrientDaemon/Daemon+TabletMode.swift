import OrientProtocol
import OrientSense

/// Tablet mode (docs/behaviour.md, Tablet mode): where it comes from, the
/// auto-rotate policy it sets, and what `status` says about both.
extension Daemon {
    /// The source in use: the kernel's switch first, then the hinge angle
    /// (a base accelerometer, or a trace's base columns), then none.
    var tabletModeSource: DaemonStatus.TabletModeStatus.Source {
        if let replay { return replay.trace.baseSamples.isEmpty ? .none : .hinge }
        if hub?.tabletSwitch.chosen != nil { return .switch }
        // A base accelerometer that is not the one pinned for the display.
        if let base = hub?.base.device, base.info.syspath != sensor?.device?.info.syspath { return .hinge }
        return .none
    }

    /// The mode the source gives now.
    var tabletModeNow: TabletMode {
        switch tabletModeSource {
        case .switch: hub?.tabletSwitch.mode ?? .unknown
        case .hinge: hinge.mode
        case .none: .unknown
        }
    }

    /// Whether the base accelerometer should be read: while the display's is,
    /// where the hinge is the source and the policy needs the mode, or a
    /// recorder takes every sample (root's `samples`).
    var wantsBase: Bool {
        guard sensor?.wanted == true, tabletModeSource == .hinge else { return false }
        return autoRotatePolicy.policy == .tabletMode || baseRecorders || publishesTabletSwitch
    }

    /// Clients that get the base's samples: those that get every sample (root's).
    private var baseRecorders: Bool {
        server?.connections.contains { $0.wantsSamples && $0.sampleThinning == nil } ?? false
    }

    /// The base's mount matrix for a `samples` reply, when there is a base to record.
    var baseMountMatrixForSamples: MountMatrix? {
        guard tabletModeSource == .hinge else { return nil }
        if let replay { return replay.trace.baseMountMatrix }
        return hub?.base.mountMatrix
    }

    // MARK: The hinge

    /// A display reading (sensor frame): paired with the base's latest.
    func hingeLidSample(_ sample: Sample) {
        guard tabletModeSource == .hinge else { return }
        // The angle's sense depends on the z sign, decided with the display's device.
        if hinge.config.zSign != zSign.applied(to: HingeConfig()).zSign { resetHinge() }
        let lid = engine.mountMatrix.apply(sample.vector) * engine.gravity.gain
        if hinge.lidReading(lid, atMs: sample.tMs) { hingeModeChanged() }
    }

    /// A base reading after its mount matrix: paired with the display's latest.
    func hingeBaseReading(_ base: Vector3, atMs t: Double) {
        if hinge.baseReading(base, atMs: t) { hingeModeChanged() }
    }

    private func hingeModeChanged() {
        log.info("tablet mode: \(hinge.mode.rawValue) (hinge at \(hinge.angle.map { formatNumber(($0 * 10).rounded() / 10) } ?? "?")°)")
        tabletModeChanged()
    }

    /// A reading of the base accelerometer (m/s², its sensor frame). Returns
    /// its low-pass in the panel frame, so its polled path slows down at rest
    /// as the display's does; it never holds a classifier deadline.
    func baseSample(_ sample: Sample) -> (filtered: Vector3?, deadlinePending: Bool) {
        broadcastSample(sample, base: true)
        let reading = (hub?.base.mountMatrix ?? .identity).apply(sample.vector)
        let filtered = hinge.filterBase(reading)
        hingeBaseReading(reading, atMs: sample.tMs)
        return (filtered, false)
    }

    /// The base accelerometer appeared, went, or started or stopped reading:
    /// without its readings the hinge decides nothing (the mode starts again
    /// from unknown when it reads again).
    func baseChanged() {
        if hub?.base.status != .active { resetHinge() }
        tabletModeChanged()
    }

    /// Forgets the hinge's readings and decision (the base stopped, a reload).
    func resetHinge() {
        hinge = HingePairing(config: zSign.applied(to: HingeConfig()))
    }

    /// The policy in force: the config's, else `tablet-mode` where a source
    /// exists and `always` where none does.
    var autoRotatePolicy: (policy: AutoRotate, reason: String) {
        if let configured = config.autoRotate { return (configured, "configured") }
        return tabletModeSource == .none
            ? (.always, "default: no tablet-mode switch and no base accelerometer")
            : (.tabletMode, "default: the machine has a tablet-mode source")
    }

    /// Publishes a change of the mode, the policy or the source, and reads
    /// what the published switch now needs (a kernel switch that came or
    /// went, a base, uinput's problem).
    func tabletModeChanged() {
        let (policy, _) = autoRotatePolicy
        let mode = tabletModeNow
        let now = sensorNow
        mutateEngine { engine in
            let a = engine.setAutoRotate(policy, atMs: now)
            let b = engine.setTabletMode(mode, atMs: now)
            return b ?? a
        }
        updatePublishedSwitch()
        updateDemand()
    }

    // MARK: The switch for the desktop

    /// Whether the hinge's decision is to be published as orientd's own
    /// switch: configured, on hardware, and no kernel switch.
    private var publishedSwitchWanted: Bool {
        config.tabletModeSwitch && publishedSwitch != nil && tabletModeSource != .switch
    }

    /// Whether the switch keeps both accelerometers read: it is wanted, the
    /// hinge is the source, and uinput has not failed (libinput listens as
    /// a client would; a failed device is tried again at the next decision).
    var publishesTabletSwitch: Bool {
        publishedSwitchWanted && tabletModeSource == .hinge && publishedSwitch?.problem == nil
    }

    /// Finds out, before any decision, whether /dev/uinput can be opened:
    /// where it cannot, the switch is a problem at once and keeps no
    /// accelerometer read (at start and at SIGHUP).
    func checkPublishedSwitch() {
        guard let published = publishedSwitch, config.tabletModeSwitch, published.device == nil else { return }
        do throws(TabletSwitchError) {
            try UInputTabletSwitch.checkAccess()
            published.checked(nil)
        } catch {
            published.checked(error.message)
        }
    }

    /// Shows the decision on the switch, says what changed, and keeps the
    /// release of a held state scheduled.
    func updatePublishedSwitch() {
        guard let published = publishedSwitch else { return }
        let before = (node: published.device?.node, state: published.state, problem: published.problem)
        let now = MonotonicClock.nowMs()
        published.update(wanted: publishedSwitchWanted, hinge: tabletModeSource == .hinge ? hinge.mode : nil, atMs: now)
        published.releaseIfDue(atMs: now)
        let node = published.device.map { $0.node ?? "a uinput device" }
        if let problem = published.problem, problem != before.problem {
            log.warning("tablet mode: cannot publish the hinge's decision as a SW_TABLET_MODE switch: \(problem)")
        } else if node != nil, before.node == nil || before.state != published.state {
            log.notice("tablet mode: \(node ?? "?") (\(PublishedTabletSwitch.name)) shows \(published.state == true ? "tablet (1)" : "laptop (0)")")
        } else if node == nil, before.node != nil {
            log.notice("tablet mode: \(before.node ?? "the uinput device") (\(PublishedTabletSwitch.name)) removed")
        }
        loop.cancel(publishedSwitchTimer)
        publishedSwitchTimer = nil
        if let at = published.releaseAtMs {
            publishedSwitchTimer = loop.schedule(atMs: at) { [unowned self] in
                self.publishedSwitchTimer = nil
                self.updatePublishedSwitch()
            }
        }
    }

    /// What `status` says of the switch: its node, or why there is none.
    private var publishedSwitchStatus: (node: String?, reason: String) {
        guard let published = publishedSwitch else { return (nil, "a trace replay publishes none") }
        if !config.tabletModeSwitch { return (nil, "[daemon] tablet-mode-switch = off") }
        if let device = published.device {
            let shows = published.state == true ? "tablet (1)" : "laptop (0)"
            let held = published.releaseAtMs.map { at in
                "; the base is gone: released to laptop in \(Int(((at - MonotonicClock.nowMs()) / 1000).rounded(.up))) s unless it returns"
            } ?? ""
            return (device.node ?? "a uinput device", "\(PublishedTabletSwitch.name), shows \(shows), the hinge's decision\(held)")
        }
        switch tabletModeSource {
        case .switch: return (nil, "the kernel has a tablet-mode switch")
        case .none: return (nil, "no hinge angle: no base accelerometer")
        case .hinge: return (nil, published.problem ?? "the hinge has not decided yet")
        }
    }

    /// A switch that cannot be made where the hinge is the source, for `status`'s problems.
    var publishedSwitchProblem: DaemonStatus.Problem? {
        guard let problem = publishedSwitch?.problem, config.tabletModeSwitch, tabletModeSource == .hinge else { return nil }
        return DaemonStatus.Problem(
            problem: "the hinge's tablet mode is not published as a SW_TABLET_MODE switch: \(problem)",
            fix: "load uinput (modprobe uinput) and let the orientd group open /dev/uinput (61-orientd.rules), or set [daemon] tablet-mode-switch = off")
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
        case .hinge:
            if replay != nil {
                reason = "the hinge angle between the trace's display and base columns"
            } else {
                let base = hub?.base.device?.info
                device = base?.sysname
                reason = "the hinge angle between \(sensor?.device?.info.sysname ?? "the display's accelerometer") and "
                    + "\(base?.sysname ?? "?") (\(base?.name ?? "unnamed"), in the base)"
                    + (wantsBase || hub?.base.status == .active ? "" : "; read only under auto-rotate = tablet-mode, while the display's is")
            }
        case .none:
            reason = replay != nil ? "a trace without base columns" : "no tablet-mode switch and no base accelerometer found"
        }
        let published = publishedSwitchStatus
        return DaemonStatus.TabletModeStatus(
            mode: engine.tabletMode, source: source, device: device, reason: reason,
            hingeAngle: source == .hinge ? hinge.angle : nil, autoRotate: policy, autoRotateReason: policyReason,
            uinputSwitch: published.node, uinputSwitchReason: published.reason)
    }
}
