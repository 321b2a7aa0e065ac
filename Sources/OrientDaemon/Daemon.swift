#if canImport(Glibc)
import Glibc
#endif
package import OrientSense
import OrientDevices
import OrientAccess
package import OrientConfig
import OrientSensors
import OrientProtocol
import OrientSensors

/// The daemon: one event loop owning the engine, the socket server, the clients'
/// constraints, the rotation lock and the sensor source (a trace replay, or the
/// hardware accelerometer).
package final class Daemon {
    let options: DaemonOptions
    private(set) var config: DaemonConfig
    let log: Log
    let loop: EventLoop
    private(set) var server: SocketServer?
    /// The D-Bus side (net.hadess.SensorProxy), when enabled.
    private(set) var sensorProxy: SensorProxyBus?
    /// Readings since the sensor last became active (the D-Bus side's first claim waits for one).
    private var readingsSinceActive = 0
    let stateDirectory: StateDirectory
    private let output = LineWriter(fd: 1)
    private(set) var natural: NaturalGeometry
    /// Why `natural` is what it is (`status`): `config`, `drm` or `default`.
    private(set) var naturalReason: String

    private(set) var engine: OrientationEngine
    private(set) var replay: MockReplay?
    private var replayTimer: EventLoop.TimerID?
    private var replayWallStart = 0.0
    private var replayTraceStart = 0.0
    var lockOwner: UInt32?
    /// The pid of the client that set the lock, when one did since the daemon started.
    var lockSetterPID: Int32?
    private var exitCode: Int32 = 0
    /// The STATUS= line last sent to systemd.
    var lastStatus = ""
    /// Who the seat is (root, logind's active session, `seat-users`).
    let seat: SeatOracle
    /// Every lock request's order, and the newest one applied.
    var lockSerial = 0
    var appliedLockSerial = 0
    /// The persisted lock is written at most once a second.
    var lockWriteTimer: EventLoop.TimerID?
    var lastLockWriteMs = -Double.infinity
    /// The light and proximity readings (Daemon+Environment.swift).
    var environment = EnvironmentReadings()

    // The hardware path (no --mock).
    private(set) var sensor: HardwareSensor?
    /// Every hardware sensor (the accelerometer is `sensor`).
    private(set) var hub: SensorHub?
    private var deadlineTimer: EventLoop.TimerID?
    /// The learned g last seen from the engine, the one last warned about, and
    /// the device and calibration it was learned on (Daemon+Gravity.swift).
    var gravityNoted: Double?
    var gravityWarned: Double?
    var gravityDevice: String?
    var gravityCalibration: AxisCalibration?
    /// The hinge angle's tablet mode, and the latest display and base readings
    /// it pairs (panel frames), with the base's low-pass (Daemon+TabletMode.swift).
    var hinge = HingeModeDetector()
    var hingeLid: Vector3?
    var hingeBase: Vector3?
    var baseFiltered: Vector3?
    /// `get` requests waiting for a fresh reading from an idle sensor.
    var pendingGets: [(client: ClientConnection, seq: Int64?)] = []
    var pendingGetTimer: EventLoop.TimerID?

    /// The z sign the classifier uses and why (a status line: "z sign and why").
    package var zSign: ZSign {
        if let replay { return replay.zSign(config.zSign) }
        return ZSign.decide(setting: config.zSign, driverName: sensor?.device?.info.name)
    }

    /// Sets up everything but the socket; `run()` opens it.
    package init(options: DaemonOptions, config: DaemonConfig, log: Log) throws(SystemError) {
        self.options = options
        self.config = config
        self.log = log
        loop = try EventLoop()
        stateDirectory = StateDirectory(path: options.stateDirectory)
        seat = SeatOracle(users: config.seatUsers)
        (natural, naturalReason) = PanelGeometry.natural(config.natural)
        let stored = stateDirectory.loadLockRecord(warn: log.warning)
        lockOwner = stored?.owner
        var classifier = config.classifier
        if let trace = options.mockTrace {
            let replay = MockReplay(trace: trace, loop: options.loop)
            self.replay = replay
            environment = EnvironmentReadings(trace: trace)
            classifier = replay.zSign(config.zSign).applied(to: classifier)
            var engine = replay.makeEngine(
                config: classifier, mountMatrix: config.mountMatrix, natural: natural,
                defaultAllowed: config.defaultAllowedMask(natural: natural), lock: stored?.orientation)
            engine.setLearnsGravity(config.scale == nil)
            self.engine = engine
        } else {
            classifier.onChange = false
            engine = OrientationEngine(
                classifier: classifier, mountMatrix: config.mountMatrix ?? .identity, natural: natural,
                defaultAllowed: config.defaultAllowedMask(natural: natural), lock: stored?.orientation,
                sensor: .absent, tMs: MonotonicClock.nowMs(), learnsGravity: config.scale == nil)
        }
        // Until a tablet-mode source is found (`tabletModeChanged`), the configured policy or `always`.
        _ = engine.setAutoRotate(config.autoRotate ?? .always, atMs: engine.state.tMs)
    }

    /// Listens, serves and replays until SIGTERM/SIGINT (or the end of the trace
    /// with `exitAtEnd`); returns the process exit code.
    package func run() -> Int32 {
        // Signals go to the signalfd before the socket exists: a SIGTERM right
        // after bind(2) would otherwise kill the daemon and leave the socket
        // file behind.
        do {
            try loop.handleSignals([SIGTERM, SIGINT, SIGHUP]) { [unowned self] signal in
                if signal == SIGHUP {
                    self.reload()
                } else {
                    self.log.notice("stopping on signal \(signal)")
                    self.loop.stop()
                }
            }
        } catch {
            log.error(error.description)
            return 71
        }
        if let fd = Systemd.activationSocket() {
            let path = Systemd.socketPath(of: fd) ?? "the socket systemd passed"
            server = SocketServer(listeningFD: fd, path: path, limits: serverLimits, loop: loop, log: log)
            log.notice("listening on \(path) (socket activation); natural geometry \(natural.rawValue)")
        } else if let path = options.socketPath {
            do {
                server = try SocketServer(path: path, limits: serverLimits, loop: loop, log: log)
                log.notice("listening on \(path); natural geometry \(natural.rawValue)")
            } catch {
                guard options.socketOptional else {
                    log.error(error.description + Daemon.socketHint(error))
                    return error.exitCode
                }
                log.warning("\(error.description)\(Daemon.socketHint(error)); replaying without serving clients")
            }
        }
        if let server {
            server.onConnect = { [unowned server, unowned self] client in
                let rate = Double(self.config.limits.changesPerSecond)
                client.changeBudget = TokenBucket(rate: rate, burst: rate)
                server.send(Reply.hello(version: orientdVersion), to: client)
            }
            server.onLine = { [unowned self] client, line in self.handle(line, from: client) }
            server.onClose = { [unowned self] client in self.clientGone(client) }
            server.latestState = { [unowned self] in self.state.json() }
            server.isSeat = { [unowned self] uid in self.seat.isSeat(uid: uid) }
            server.onDrained = { [unowned self] client in self.sendOwedSensors(to: client) }
        }
        logSeat()
        seat.watch(loop: loop) { [unowned self] in
            // A login, logout or user switch: whose constraints count may have changed.
            self.applyConstraints()
        }
        if replay != nil, server == nil, !options.print {
            log.warning("serving nothing: no socket and no --print (add --print to see the states, or --socket PATH to serve clients)")
        }
        resetHinge()
        // A trace with base columns has a source: its policy is in the first state published.
        if replay != nil { _ = engine.setAutoRotate(autoRotatePolicy.policy, atMs: state.tMs) }
        publish(state)
        if replay != nil {
            replayWallStart = MonotonicClock.nowMs()
            replayTraceStart = replay?.trace.samples.first?.tMs ?? 0
            scheduleReplay()
        } else {
            startHardware()
        }
        // The name is requested once the sensors are found, so that a client the
        // bus activated us for reads Has… as they are, not all false (check-kernel
        // saw monitor-sensor print "No accelerometer" and "No ambient light sensor").
        if options.dbus || config.dbus.enabled { startSensorProxy() }
        startWatchdog()
        Systemd.notify("READY=1\nSTATUS=\(statusLine)")
        loop.run()
        Systemd.notify("STOPPING=1")
        output.flush()
        flushLock()
        seat.stopWatching()
        sensorProxy?.close()
        server?.shutdown()
        return exitCode
    }

    var state: StateMessage { engine.state }

    // MARK: Hardware sensor

    private func startHardware() {
        let hub: SensorHub
        do {
            hub = try SensorHub(loop: loop, log: log, config: config)
        } catch {
            log.warning("libudev unavailable (\(error)); publishing sensor \"absent\"")
            return
        }
        self.hub = hub
        sensor = hub.accelerometer
        if let scale = config.scale {
            log.info("[sensor] scale = \(formatNumber(scale)) for every axis (the sysfs scale is not read); g is not learned from the readings")
        }
        hub.accelerometer.onSample = { [unowned self] sample in self.hardwareSample(sample) }
        hub.accelerometer.onChange = { [unowned self] in self.hardwareChanged() }
        for slot in hub.slots.values { slot.onChange = { [unowned self] kind in self.sensorChanged(kind) } }
        hub.tabletSwitch.onChange = { [unowned self] in self.tabletModeChanged() }
        hub.base.onSample = { [unowned self] sample in self.baseSample(sample) }
        hub.base.onChange = { [unowned self] in self.baseChanged() }
        hub.start()
        tabletModeChanged()
    }


    /// Returns the classifier's filtered vector and whether a deadline is
    /// pending: the sensor keeps its full rate while the classifier is deciding.
    private func hardwareSample(_ sample: Sample) -> (filtered: Vector3?, deadlinePending: Bool) {
        broadcastSample(sample)
        readingsSinceActive += 1
        let published = engine.process(sample)
        noteGravity()
        if let published {
            publish(published)
            // A fresh reading changed the state: that answers waiting `get`s (the
            // timer answers them when the fresh readings confirm the old state).
            if !pendingGets.isEmpty, published.physical != .undefined { answerPendingGets() }
        } else if let sensorProxy, sensorProxy.awaitingReading {
            // The reading confirmed the state: that answers a held claim too.
            sensorProxy.update(sensorProxyReading)
        }
        hingeLidSample(sample)
        // The sensor compares it with the reading as read (before a learned g's rescaling).
        return (engine.filteredAsRead, scheduleDeadline())
    }

    private func hardwareChanged() {
        guard let sensor else { return }
        let wasActive = engine.sensor == .active
        engine.mountMatrix = sensor.mountMatrix
        var classifier = sensor.zSign.applied(to: config.classifier)
        classifier.onChange = sensor.isOnChange
        classifier.sampleRateHz = sensor.rateHz
        if classifier != engine.classifier.config { engine.reconfigure(classifier) }
        followCalibration(of: sensor)
        if sensor.status == .active, !wasActive {
            engine.resetClassifier()
            readingsSinceActive = 0
        }
        if let published = engine.setSensor(sensor.status, atMs: MonotonicClock.nowMs()) { publish(published) }
        if sensor.status == .absent { answerPendingGets() }
        scheduleDeadline()
    }

    /// Arms the one timer for the classifier's next deadline (none when idle);
    /// returns whether one is armed.
    @discardableResult
    private func scheduleDeadline() -> Bool {
        loop.cancel(deadlineTimer)
        deadlineTimer = nil
        guard sensor?.status == .active, let deadline = engine.nextDeadline else { return false }
        deadlineTimer = loop.schedule(atMs: deadline) { [unowned self] in
            self.deadlineTimer = nil
            if let published = self.engine.tick(atMs: deadline) { self.publish(published) }
            // An on-change sensor's silence may have taught the engine its g.
            self.noteGravity()
            self.scheduleDeadline()
        }
        return true
    }

    /// Samples only while someone needs them: a subscriber, a recorder, or a `get`
    /// waiting for a fresh reading.
    func updateDemand() {
        guard let sensor else { return }
        defer { updateStatus() }
        let connections = server.map { Array($0.connections) } ?? []
        sensor.wanted = !pendingGets.isEmpty || connections.contains { $0.subscribed || $0.wantsSamples }
            || sensorProxy?.wantsSensor == true
        // Root's recording gets every reading at the sensor's rate, resting or
        // not; anyone else's samples are thinned and never keep the sensor at
        // full rate.
        sensor.fullRate = connections.contains { $0.wantsSamples && $0.sampleThinning == nil }
        hub?.base.wanted = wantsBase
        let socketDemand = environmentDemand
        for (kind, slot) in hub?.slots ?? [:] { slot.wanted = sensorProxy?.wants(kind) == true || socketDemand.contains(kind) }
        if !sensor.wanted {
            loop.cancel(deadlineTimer)
            deadlineTimer = nil
        }
    }

    func answerPendingGets() {
        loop.cancel(pendingGetTimer)
        pendingGetTimer = nil
        let waiting = pendingGets
        pendingGets = []
        for (client, seq) in waiting where !client.closing { server?.send(state.json(seq: seq), to: client) }
        updateDemand()
    }

    private var serverLimits: ServerLimits {
        var limits = ServerLimits()
        limits.clients = config.limits.clients
        limits.lineLength = config.limits.lineLength
        limits.replyBuffer = config.limits.replyBuffer
        limits.clientsPerUID = config.limits.clientsPerUID
        limits.reservedClients = config.limits.reservedClients
        return limits
    }

    /// The sensor clock now: trace time in mock mode, CLOCK_MONOTONIC otherwise.
    var sensorNow: Double {
        guard replay != nil else { return MonotonicClock.nowMs() }
        if case .factor(let factor) = options.speed {
            return max(state.tMs, replayTraceStart + (MonotonicClock.nowMs() - replayWallStart) * factor)
        }
        return state.tMs
    }

    // MARK: Publishing

    private func publish(_ message: StateMessage) {
        defer { updateStatus() }
        let line = message.json()
        if options.print {
            output.write(line)
            // At --speed max, lines go out in large writes; otherwise as they happen.
            if options.speed != .max { output.flush() }
            if !output.isOpen {
                log.info("stdout closed; stopping")
                loop.stop()
            }
        }
        server?.publishState(line)
        sensorProxy?.update(sensorProxyReading)
    }

    // MARK: D-Bus

    private func startSensorProxy() {
        let proxy = SensorProxyBus(
            loop: loop, log: log, settings: SensorProxyBus.Settings(config: config.dbus, replace: options.replaceBusName),
            reading: sensorProxyReading)
        proxy.onDemandChange = { [unowned self] in self.updateDemand() }
        sensorProxy = proxy
        proxy.start()
    }

    /// What the D-Bus side publishes: the effective orientation, once the sensor
    /// has had a reading since it was last started.
    var sensorProxyReading: SensorProxyService.Reading {
        let state = engine.state
        let reading: Bool
        switch state.sensor {
        case .mock: reading = true
        case .active: reading = readingsSinceActive > 0
        case .idle, .absent: reading = false
        }
        return SensorProxyService.Reading(
            hasAccelerometer: state.sensor != .absent, fresh: reading && state.physical != .undefined,
            orientation: state.orientation, tilt: state.tilt, light: environment.light, proximity: environment.proximity,
            compass: compassValue)
    }

    func mutateEngine(_ body: (inout OrientationEngine) -> StateMessage?) {
        if let published = body(&engine) { publish(published) }
    }

    // MARK: Replay

    private func scheduleReplay() {
        output.flush()
        if options.print, !output.isOpen {
            loop.stop()
            return
        }
        guard let t = replay?.nextStepTime(deadline: engine.nextDeadline) else {
            output.flush()
            log.info("trace replayed to its end")
            if options.exitAtEnd { loop.stop() }
            return
        }
        let due: Double
        switch options.speed {
        case .max: due = MonotonicClock.nowMs()
        case .factor(let factor): due = replayWallStart + (t - replayTraceStart) / factor
        }
        replayTimer = loop.schedule(atMs: due) { [unowned self] in self.replaySteps() }
    }

    private func replaySteps() {
        guard var replay else { return }
        // At --speed max, yield to clients every few hundred steps.
        var budget = 512
        let now = MonotonicClock.nowMs()
        while budget > 0, let t = replay.nextStepTime(deadline: engine.nextDeadline) {
            if case .factor(let factor) = options.speed, replayWallStart + (t - replayTraceStart) / factor > now { break }
            let step = replay.peek(deadline: engine.nextDeadline)
            if case .reading(let sample) = step { broadcastSample(sample) }
            if case .environment(let reading) = step { replayEnvironment(reading, unit: replay.trace.lightUnit) }
            if case .base(let sample) = step {
                broadcastSample(sample, base: true)
                hingeBaseReading(replay.trace.baseMountMatrix.apply(sample.vector), atMs: sample.tMs)
            }
            if let published = replay.advance(&engine) { publish(published) }
            if case .reading(let sample) = step { hingeLidSample(sample) }
            noteGravity()
            budget -= 1
        }
        self.replay = replay
        scheduleReplay()
    }

    /// A reading to the clients streaming samples: the display's to each
    /// (thinned for all but root), a 2-in-1 base's (`base-sample`) only to
    /// those that take every sample.
    func broadcastSample(_ sample: Sample, base: Bool = false) {
        guard let server else { return }
        var line: String?
        for client in server.connections where client.wantsSamples {
            if base ? client.sampleThinning != nil : client.sampleThinning?.admit(tMs: sample.tMs) == false { continue }
            let text = line ?? (base ? Reply.baseSample : Reply.sample)(sample.tMs, sample.vector)
            line = text
            server.send(text, to: client)
        }
    }

    // MARK: Configuration

    /// Says who the seat is, and warns about configured names that are no user.
    private func logSeat() {
        for name in seat.unknownNames { log.warning("seat-users: no user named '\(name.prefix(32))' on this system; ignored") }
        log.notice("the seat is \(seat.summary)")
    }

    private func reload() {
        guard let path = options.configPath else { return }
        var loaded: (config: DaemonConfig, warnings: [String]) = (DaemonConfig(), [])
        var info = stat()
        if !options.configOptional || stat(path, &info) == 0 {
            do {
                loaded = try ConfigFile.load(path)
            } catch {
                log.error("SIGHUP: \(error.description); keeping the running configuration")
                return
            }
        }
        for warning in loaded.warnings { log.warning(warning) }
        let new = loaded.config
        if new.socket != config.socket { log.notice("SIGHUP: a new socket path takes effect at restart") }
        config = new
        if options.logLevelOverride == nil { log.threshold = LogLevel(config: new.logLevel) }
        server?.limits = serverLimits
        seat.reconfigure(new.seatUsers)
        logSeat()
        (natural, naturalReason) = PanelGeometry.natural(new.natural)
        let newNatural = natural
        let classifier =
            if let replay { replay.classifierConfig(replay.zSign(new.zSign).applied(to: new.classifier)) }
            else { ZSign.decide(setting: new.zSign, driverName: sensor?.device?.info.name).applied(to: new.classifier) }
        let now = sensorNow
        let sensorMatrix = replay?.trace.mountMatrix ?? .identity
        let defaultAllowed = new.defaultAllowedMask(natural: newNatural)
        mutateEngine { engine in
            engine.reconfigure(classifier)
            engine.setLearnsGravity(new.scale == nil)
            engine.mountMatrix = new.mountMatrix ?? sensorMatrix
            return engine.setPolicy(natural: newNatural, defaultAllowed: defaultAllowed, atMs: now)
        }
        // Turning the learning off (a `scale` now set) forgets the learned g without a word.
        gravityNoted = engine.gravity.learned
        if new.scale != nil { gravityWarned = nil }
        applyConstraints()
        hub?.reconfigure(new)
        resetHinge()
        tabletModeChanged()
        updateDemand()
        sensorProxy?.reconfigure(SensorProxyBus.Settings(config: new.dbus, replace: options.replaceBusName))
        if sensorProxy == nil, new.dbus.enabled { startSensorProxy() }
        log.notice("SIGHUP: configuration reloaded from \(stat(path, &info) == 0 ? path : "defaults (\(path) absent)")")
    }
}

extension Daemon {
    /// A hint for a socket that could not be created by a daemon not running as
    /// root: the default path is root's.
    static func socketHint(_ error: ServerError) -> String {
        guard error.exitCode == 73, geteuid() != 0 else { return "" }
        return " (not running as root: give --socket a path in a directory you can write, e.g. --socket /tmp/orientd.sock)"
    }
}
