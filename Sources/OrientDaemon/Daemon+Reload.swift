#if canImport(Glibc)
import Glibc
#endif
import OrientConfig
import OrientProtocol
import OrientSense

/// SIGHUP: the configuration read again and applied to every component, and
/// what the log says about the seat it names.
extension Daemon {
    /// Says who the seat is, and warns about configured names that are no user.
    func logSeat() {
        for name in seat.unknownNames { log.warning("seat-users: no user named '\(name.prefix(32))' on this system; ignored") }
        // Who the seat is is no news on a normal start (root, and logind's session when it runs).
        log.info("the seat is \(seat.summary)")
    }

    func reload() {
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
        gravityNotes.reloaded(learned: engine.gravity.learned, learns: new.scale == nil)
        applyConstraints()
        hub?.reconfigure(new)
        resetHinge()
        checkPublishedSwitch()
        tabletModeChanged()
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
