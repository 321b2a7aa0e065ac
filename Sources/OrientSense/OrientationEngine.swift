package import OrientProtocol

/// The whole pure pipeline from a sensor-frame reading to a published state:
/// mount matrix → (learned g) → classifier → arbiter. The mock replay and the hardware
/// sources drive the same engine, so both publish the same states for the same
/// readings.
///
/// Not thread-safe by design: one event loop owns it.
package struct OrientationEngine: Sendable {
    /// Maps sensor-frame readings into the panel frame.
    package var mountMatrix: MountMatrix
    /// The classifier (physical orientation and tilt).
    package private(set) var classifier: Classifier
    /// The arbiter (constraints, lock → effective orientation).
    package private(set) var arbiter: Arbiter
    /// The active constraints (one mask per registered constraint).
    package private(set) var constraints: [OrientationMask] = []
    /// The user's rotation lock.
    package private(set) var lock: Orientation?
    /// The sensor status published in `state`.
    package private(set) var sensor: SensorStatus
    /// The sensor was opened and its readings have not yet decided anything:
    /// `active` waits for them.
    private var activation: Activation?

    private struct Activation {
        /// When the first reading came, nil before it.
        var firstReadingMs: Double?
    }
    /// Tablet or laptop, from the daemon's tablet-mode source.
    package private(set) var tabletMode: TabletMode = .unknown
    /// When the effective orientation follows the physical one.
    package private(set) var autoRotate: AutoRotate = .always
    /// The last published state.
    package private(set) var state: StateMessage
    /// What the readings at rest say g is: when a wrong or missing scale puts
    /// it far from 1 g, readings are rescaled by its `gain` before the classifier.
    package private(set) var gravity: GravityEstimate
    /// The latest reading (sensor frame), held for an on-change sensor's ticks.
    private var lastReading: Vector3?

    /// An engine in the startup state; `state` is already resolved (physical `undefined`).
    package init(
        classifier config: ClassifierConfig = ClassifierConfig(), mountMatrix: MountMatrix = .identity,
        natural: NaturalGeometry = .portrait, defaultAllowed: OrientationMask = .all,
        lock: Orientation? = nil, sensor: SensorStatus, tMs: Double = 0, learnsGravity: Bool = true
    ) {
        self.mountMatrix = mountMatrix
        self.classifier = Classifier(config: config)
        gravity = GravityEstimate(OrientationEngine.gravitySettings(config), enabled: learnsGravity)
        let lock = lock == .undefined ? nil : lock
        var arbiter = Arbiter(defaultAllowed: defaultAllowed, natural: natural)
        let resolution = arbiter.resolve(physical: .undefined, constraints: [OrientationMask](), lock: lock)
        self.arbiter = arbiter
        self.lock = lock
        self.sensor = sensor
        state = OrientationEngine.message(resolution, tilt: .undefined, sensor: sensor, tMs: tMs)
    }

    /// Feeds one reading in the sensor frame; returns the new state when its content changed.
    package mutating func process(_ sample: Sample) -> StateMessage? {
        // A new g changes every reading's size: the filter starts again from this one.
        let gain = gravity.gain
        _ = gravity.observe(sample.vector, atMs: sample.tMs)
        if gravity.gain != gain { classifier.reset() }
        lastReading = sample.vector
        let panel = Sample(tMs: sample.tMs, vector: mountMatrix.apply(sample.vector) * gravity.gain)
        return afterReading(changed: classifier.process(panel) != nil, atMs: sample.tMs)
    }

    /// The state after a reading (or a tick) changed the classifier or not.
    /// While the sensor's readings are awaited nothing is published until they
    /// decide (`activated`): then the state with them, as `active`.
    private mutating func afterReading(changed: Bool, atMs t: Double) -> StateMessage? {
        if activation != nil {
            guard activated(atMs: t) else { return nil }
        } else if !changed {
            return nil
        }
        return republish(at: t)
    }

    /// How long readings may leave the orientation undecided before the
    /// sensor is published `active` with it `undefined` (a device shaken as it
    /// comes back), ms. A flat device is published at once.
    package static let activationLimitMs = 1000.0

    /// Whether the readings since the sensor was opened now decide its state:
    /// the orientation, a face-up or face-down tilt, or the limit passed.
    private mutating func activated(atMs t: Double) -> Bool {
        guard let pending = activation, classifier.filtered != nil else { return false }
        let first = pending.firstReadingMs ?? t
        let flat = classifier.tilt == .faceUp || classifier.tilt == .faceDown
        guard classifier.orientation != .undefined || flat || t - first >= OrientationEngine.activationLimitMs else {
            activation?.firstReadingMs = first
            return false
        }
        activation = nil
        sensor = .active
        return true
    }

    /// A timer fired at `nextDeadline`; returns the new state when its content changed.
    /// On an on-change sensor the silence since the last reading continues a
    /// rest (`GravityEstimate.observeHeld`); a g learned from it restarts the
    /// filter from the held reading.
    package mutating func tick(atMs t: Double) -> StateMessage? {
        if classifier.config.onChange, let held = lastReading {
            let gain = gravity.gain
            _ = gravity.observeHeld(atMs: t)
            if gravity.gain != gain {
                classifier.reset()
                return afterReading(changed: classifier.process(Sample(tMs: t, vector: mountMatrix.apply(held) * gravity.gain)) != nil, atMs: t)
            }
        }
        return afterReading(changed: classifier.tick(atMs: t) != nil, atMs: t)
    }

    /// When to call `tick` next (sensor clock, ms), or nil when no timer is needed.
    package var nextDeadline: Double? {
        guard classifier.config.onChange, lastReading != nil, let rest = gravity.heldRestDeadline else { return classifier.nextDeadline }
        return min(classifier.nextDeadline ?? rest, rest)
    }

    /// The classifier's low-pass-filtered vector (panel frame), nil before the
    /// first reading; read without copying the classifier.
    package var filtered: Vector3? { classifier.filtered }

    /// `filtered` in the units the readings arrive in (panel frame, before
    /// the learned g's rescaling), to compare with a reading.
    package var filteredAsRead: Vector3? { classifier.filtered.map { $0 / gravity.gain } }

    /// Replaces the constraints; returns the new state when its content changed.
    package mutating func setConstraints(_ masks: [OrientationMask], atMs t: Double) -> StateMessage? {
        constraints = masks
        return republish(at: t)
    }

    /// Sets or clears the rotation lock; returns the new state when its content changed.
    package mutating func setLock(_ orientation: Orientation?, atMs t: Double) -> StateMessage? {
        lock = orientation == .undefined ? nil : orientation
        return republish(at: t)
    }

    /// Sets the sensor status; returns the new state when its content changed.
    /// `active` is published with the device's readings, not before: until
    /// they decide the orientation (`process`), the state keeps the status it
    /// had, so nothing from before is published as live.
    package mutating func setSensor(_ status: SensorStatus, atMs t: Double) -> StateMessage? {
        if status == .active, sensor != .active {
            if activation == nil { activation = Activation() }
            return nil
        }
        activation = nil
        sensor = status
        return republish(at: t)
    }

    /// Opened, its readings awaited before it is published `active`.
    package var awaitingReadings: Bool { activation != nil }

    /// The sensor is opened again, or its device was lost (removed, unbound,
    /// gone across a resume): what it said is forgotten, and the classifier
    /// starts again from the next readings, with the startup's quick first
    /// commit. The published state keeps its physical orientation until the
    /// next state is published (the status that follows a loss: then
    /// `undefined`; or the new readings' decision, `setSensor`).
    package mutating func forgetReadings() {
        classifier.restart()
        lastReading = nil
        gravity.restartRest()
    }

    /// Sets the tablet mode; returns the new state when its content changed.
    /// Into tablet mode the effective orientation becomes the physical one at
    /// once: the classifier kept deciding while the screen stood still.
    package mutating func setTabletMode(_ mode: TabletMode, atMs t: Double) -> StateMessage? {
        tabletMode = mode
        return republish(at: t)
    }

    /// Sets the auto-rotate policy; returns the new state when its content changed.
    package mutating func setAutoRotate(_ policy: AutoRotate, atMs t: Double) -> StateMessage? {
        autoRotate = policy
        return republish(at: t)
    }

    /// Changes the natural geometry and the default allowed set (a config reload);
    /// returns the new state when its content changed.
    package mutating func setPolicy(natural: NaturalGeometry, defaultAllowed: OrientationMask, atMs t: Double) -> StateMessage? {
        arbiter.natural = natural
        arbiter.defaultAllowed = defaultAllowed
        return republish(at: t)
    }

    /// Replaces the classifier parameters (keeps its orientation and filter).
    package mutating func reconfigure(_ config: ClassifierConfig) {
        classifier.reconfigure(config)
        gravity.reconfigure(OrientationEngine.gravitySettings(config))
    }

    /// Starts or stops learning g from the readings (stopped when the config
    /// gives the scale); stopping forgets what was learned.
    package mutating func setLearnsGravity(_ learns: Bool) {
        let gain = gravity.gain
        gravity.setEnabled(learns)
        if gravity.gain != gain { classifier.reset() }
    }

    /// Forgets the learned g (another device, or its calibration changed).
    package mutating func forgetGravity() {
        let gain = gravity.gain
        gravity.forget()
        lastReading = nil
        if gravity.gain != gain { classifier.reset() }
    }

    private static func gravitySettings(_ config: ClassifierConfig) -> GravityEstimate.Settings {
        var settings = GravityEstimate.Settings()
        settings.standardGravity = config.standardGravity
        return settings
    }

    private mutating func republish(at t: Double) -> StateMessage? {
        // While the new readings are awaited, what they say so far is not
        // published (a lock or a constraint changing meanwhile keeps the rest).
        let awaited = activation != nil
        let physical = awaited ? state.physical : classifier.orientation
        let resolution = arbiter.resolve(
            physical: physical, constraints: constraints, lock: lock, follows: autoRotate.follows(tabletMode))
        // A request's change may carry a later time than the reading that follows
        // it (a timer served late); a subscriber's t_ms only ever grows.
        var next = OrientationEngine.message(resolution, tilt: awaited ? state.tilt : classifier.tilt, sensor: sensor, tMs: max(t, state.tMs))
        next.tabletMode = tabletMode
        next.autoRotate = autoRotate
        guard !next.sameContent(as: state) else { return nil }
        state = next
        return next
    }

    private static func message(_ r: Resolution, tilt: Tilt, sensor: SensorStatus, tMs: Double) -> StateMessage {
        StateMessage(
            orientation: r.orientation, physical: r.physical, tilt: tilt, rotation: r.rotation,
            layout: r.layout, axis: r.axis, allowed: r.allowed, locked: r.locked, sensor: sensor, tMs: tMs)
    }
}
