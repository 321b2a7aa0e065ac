package import OrientProtocol

/// Everything the command line decides for a daemon run.
package struct DaemonOptions: Sendable {
    /// Where to listen; nil serves no socket (a batch replay).
    package var socketPath: String?
    /// When the socket cannot be set up, warn and go on without it (mock replays
    /// on the default path) instead of exiting.
    package var socketOptional = false
    package var stateDirectory: String
    package var mockTrace: Trace?
    package var mockTracePath: String?
    package var speed: MockReplay.Speed = .factor(1)
    package var loop = false
    package var exitAtEnd = false
    package var print = false
    /// The config file to reload on SIGHUP.
    package var configPath: String?
    /// The file is the default path, which may be absent (then the defaults apply).
    package var configOptional = false
    /// `--log-level` given on the command line (wins over the config).
    package var logLevelOverride: LogLevel?
    /// `--dbus`: serve net.hadess.SensorProxy whatever the config says.
    package var dbus = false
    /// `--replace`: take net.hadess.SensorProxy from its owner.
    package var replaceBusName = false

    package init(socketPath: String?, stateDirectory: String) {
        self.socketPath = socketPath
        self.stateDirectory = stateDirectory
    }
}
