#if canImport(Glibc)
import Glibc
#endif
package import OrientSense
import OrientDevices
import OrientAccess
package import OrientConfig
import OrientSensors
import OrientProtocol

/// The daemon: one event loop, the engine (with the arbiter), and the
/// components it wires to them, each owning its state: the socket server and
/// its clients (`SocketServer`, `PendingGets`), the rotation lock
/// (`RotationLock`), the sensors (`SensorHub`; `GravityNotes` for the learned
/// g), tablet mode (the hub's switch, `HingePairing`), the D-Bus side
/// (`SensorProxyBus`), the seat (`SeatOracle`) and a trace replay
/// (`MockReplay`, `ReplayPace`). The `Daemon+…` files are its concepts: the
/// requests, who may do what, the environment sensors, tablet mode, status,
/// systemd, reload and the replay.
package final class Daemon {
    let options: DaemonOptions
    var config: DaemonConfig
    let log: Log
    let loop: EventLoop
    private(set) var server: SocketServer?
    /// The D-Bus side (net.hadess.SensorProxy), when enabled.
    private(set) var sensorProxy: SensorProxyBus?
    /// The accelerometer's losses (`HardwareSensor.losses`) whose readings the engine has forgotten.
    private var lossesForgotten = 0
    let output = LineWriter(fd: 1)
    var natural: NaturalGeometry
    /// Why `natural` is what it is (`status`): `config`, `drm` or `default`.
    var naturalReason: String

    var engine: OrientationEngine
    var replay: MockReplay?
    /// When the replay's steps are due, once it has started.
    var replayPace: ReplayPace?
    /// Who set the rotation lock, and its copy on disk.
    let lock: RotationLock
    /// The STATUS= line last sent to systemd.
    var lastStatus = ""
    /// Who the seat is (root, logind's active session, `seat-users`).
    let seat: SeatOracle
    /// The light and proximity readings (Daemon+Environment.swift).
    var environment = EnvironmentReadings()

    // The hardware path (no --mock).
    private(set) var sensor: HardwareSensor?
    /// Every hardware sensor (the accelerometer is `sensor`).
    private(set) var hub: SensorHub?
    private var deadlineTimer: EventLoop.TimerID?
    /// What the log has said about the learned g (Daemon+Gravity.swift).
    var gravityNotes = GravityNotes()
    /// The hinge angle's tablet mode (Daemon+TabletMode.swift).
    var hinge = HingePairing(config: HingeConfig())
    /// The hinge's decision as a uinput `SW_TABLET_MODE` switch, on hardware
    /// (Daemon+TabletMode.swift), and when its held state is released.
    private(set) var publishedSwitch: PublishedTabletSwitch?
    var publishedSwitchTimer: EventLoop.TimerID?
    /// `get` requests waiting for a fresh reading from an idle sensor.
    let pendingGets: PendingGets

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
        var stalls = ThrottledLog(level: .notice)
        loop.onStall = { [log] ms, what in stalls.write("the event loop was held \(Int(ms)) ms by a \(what) callback", to: log) }
        seat = SeatOracle(users: config.seatUsers)
        (natural, naturalReason) = PanelGeometry.natural(config.natural)
        lock = RotationLock(stateDirectory: StateDirectory(path: options.stateDirectory), loop: loop, log: log)
        pendingGets = PendingGets(loop: loop)
        var classifier = config.classifier
        if let trace = options.mockTrace {
            let replay = MockReplay(trace: trace, loop: options.loop)
            self.replay = replay
            environment = EnvironmentReadings(trace: trace)
            classifier = replay.zSign(config.zSign).applied(to: classifier)
            var engine = replay.makeEngine(
                config: classifier, mountMatrix: config.mountMatrix, natural: natural,
                defaultAllowed: config.defaultAllowedMask(natural: natural), lock: lock.stored)
            engine.setLearnsGravity(config.scale == nil)
            self.engine = engine
        } else {
            classifier.onChange = false
            engine = OrientationEngine(
                classifier: classifier, mountMatrix: config.mountMatrix ?? .identity, natural: natural,
                defaultAllowed: config.defaultAllowedMask(natural: natural), lock: lock.stored,
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
            replayPace = ReplayPace(
                speed: options.speed, wallStartMs: MonotonicClock.nowMs(), traceStartMs: replay?.trace.samples.first?.tMs ?? 0)
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
        lock.flush()
        seat.stopWatching()
        sensorProxy?.close()
        server?.shutdown()
        return 0
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
        publishedSwitch = PublishedTabletSwitch { () throws(TabletSwitchError) -> any TabletSwitchDevice in try UInputTabletSwitch() }
        if let scale = config.scale {
            log.info("[sensor] scale = \(formatNumber(scale)) for every axis (the sysfs scale is not read); g is not learned from the readings")
        }
        hub.accelerometer.onSample = { [unowned self] sample in self.hardwareSample(sample) }
        hub.accelerometer.onChange = { [unowned self] in self.hardwareChanged() }
        for slot in hub.slots.values { slot.onChange = { [unowned self] kind in self.sensorChanged(kind) } }
        hub.tabletSwitch.onChange = { [unowned self] in self.tabletModeChanged() }
        hub.base.onSample = { [unowned self] sample in self.baseSample(sample) }
        hub.base.onChange = { [unowned self] in self.baseChanged() }
        checkPublishedSwitch()
        hub.start()
        tabletModeChanged()
        if let problem = publishedSwitchProblem { log.warning(problem.problem) }
    }


    /// Returns the classifier's filtered vector and whether a deadline is
    /// pending: the sensor keeps its full rate while the classifier is deciding.
    private func hardwareSample(_ sample: Sample) -> (filtered: Vector3?, deadlinePending: Bool) {
        broadcastSample(sample)
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
        let opened = sensor.status == .active && engine.sensor != .active && !engine.awaitingReadings
        if opened || sensor.losses != lossesForgotten {
            // Opened, or the device lost: what it said before is not published
            // again as what it says now.
            lossesForgotten = sensor.losses
            engine.forgetReadings()
        }
        engine.mountMatrix = sensor.mountMatrix
        var classifier = sensor.zSign.applied(to: config.classifier)
        classifier.onChange = sensor.isOnChange
        classifier.sampleRateHz = sensor.rateHz
        if classifier != engine.classifier.config { engine.reconfigure(classifier) }
        followCalibration(of: sensor)
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
            || sensorProxy?.wantsSensor == true || publishesTabletSwitch
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
        for (client, seq) in pendingGets.takeAll() where !client.closing { server?.send(state.json(seq: seq), to: client) }
        updateDemand()
    }

    var serverLimits: ServerLimits {
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
        return replayPace?.traceNow(latest: state.tMs) ?? state.tMs
    }

    // MARK: Publishing

    func publish(_ message: StateMessage) {
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

    func startSensorProxy() {
        let proxy = SensorProxyBus(
            loop: loop, log: log, settings: SensorProxyBus.Settings(config: config.dbus, replace: options.replaceBusName),
            reading: sensorProxyReading)
        proxy.onDemandChange = { [unowned self] in self.updateDemand() }
        sensorProxy = proxy
        proxy.start()
    }

    /// What the D-Bus side publishes: the effective orientation, once the
    /// sensor's readings since it was last started have decided it.
    var sensorProxyReading: SensorProxyService.Reading {
        let state = engine.state
        // `active` is published once the readings decide (`OrientationEngine.setSensor`).
        let reading = state.sensor == .active || state.sensor == .mock
        return SensorProxyService.Reading(
            hasAccelerometer: state.sensor != .absent, fresh: reading && state.physical != .undefined,
            orientation: state.orientation, tilt: state.tilt, light: environment.light, proximity: environment.proximity,
            compass: compassValue)
    }

    func mutateEngine(_ body: (inout OrientationEngine) -> StateMessage?) {
        if let published = body(&engine) { publish(published) }
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
}
