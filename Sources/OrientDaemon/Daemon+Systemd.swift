import OrientProtocol

/// What systemd sees of the daemon: the STATUS= line `systemctl status` shows,
/// sent when it changes, and the watchdog ping.
extension Daemon {
    /// What `systemctl status` shows: the sensor and the number of subscribers.
    var statusLine: String {
        let subscribers = server?.subscriberCount ?? 0
        let sensorText: String
        if let replay {
            sensorText = "replaying \(options.mockTracePath ?? "a trace") (\(replay.trace.samples.count) samples)"
        } else if let device = sensor?.device {
            sensorText = "\(device.info.sysname) (\(device.info.name ?? "accelerometer")) \(sensor?.status.rawValue ?? "")"
                + (sensor?.capture == HardwareSensor.Capture.none ? "" : ", \(sensor?.capture.rawValue ?? "")")
        } else {
            sensorText = "no accelerometer"
        }
        var line = "\(sensorText); \(subscribers) subscriber\(subscribers == 1 ? "" : "s")"
        if let sensorProxy {
            let claimers = sensorProxy.service.claimers.count
            line += "; \(claimers) D-Bus claimer\(claimers == 1 ? "" : "s")"
        }
        return line + "; \(state.orientation.rawValue)"
    }

    /// Sends STATUS= when the line changed (never more than the changes themselves).
    func updateStatus() {
        let line = statusLine
        guard line != lastStatus else { return }
        lastStatus = line
        Systemd.notify("STATUS=\(line)")
    }

    /// Pings the watchdog from the event loop at half the interval systemd asked for,
    /// so a wedged loop is restarted. Only when systemd enabled the watchdog.
    func startWatchdog() {
        guard let interval = Systemd.watchdogIntervalMs() else { return }
        func ping() {
            Systemd.notify("WATCHDOG=1")
            loop.schedule(atMs: MonotonicClock.nowMs() + interval / 2) { ping() }
        }
        ping()
    }
}
