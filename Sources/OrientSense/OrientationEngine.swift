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
        guard classifier.process(panel) != nil else { return nil }
        return republish(at: sample.tMs)
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
                guard classifier.process(Sample(tMs: t, vector: mountMatrix.apply(held) * gravity.gain)) != nil else { return nil }
                return republish(at: t)
            }
        }
        guard classifier.tick(atMs: t) != nil else { return nil }
        return republish(at: t)
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
    package mutating func setSensor(_ status: SensorStatus, atMs t: Double) -> StateMessage? {
        sensor = status
        return republish(at: t)
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

    /// Forgets the classifier's filter and hold-offs (sensor re-enabled, resume).
    package mutating func resetClassifier() {
        classifier.reset()
        lastReading = nil
        gravity.restartRest()
    }

    private mutating func republish(at t: Double) -> StateMessage? {
        let resolution = arbiter.resolve(
            physical: classifier.orientation, constraints: constraints, lock: lock, follows: autoRotate.follows(tabletMode))
        // A request's change may carry a later time than the reading that follows
        // it (a timer served late); a subscriber's t_ms only ever grows.
        var next = OrientationEngine.message(resolution, tilt: classifier.tilt, sensor: sensor, tMs: max(t, state.tMs))
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
