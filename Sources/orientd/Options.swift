import OrientDaemon
import OrientProtocol

/// The command line of orientd(8), parsed.
struct Options {
    var mockTrace: String?
    var speed: MockReplay.Speed = .factor(1)
    var loop = false
    var exitAtEnd = false
    var print = false
    var stateDir: String?
    var configPath: String?
    var socketPath: String?
    var checkConfig = false
    var logLevel: LogLevel?
    var help = false
    var version = false
    var dbus = false
    var replace = false

    static let usage = """
        Usage: orientd [--config FILE] [--socket PATH] [--state-dir DIR] [--mock TRACE]
                       [--speed X|max] [--loop] [--exit-at-end] [--print]
                       [--dbus] [--replace] [--log-level LEVEL] [--check-config]
                       [--version] [--help]

        Turns an accelerometer into screen orientation and publishes it on a Unix
        socket (newline-delimited JSON). The manual: man 8 orientd; the protocol:
        protocol.md in orientd's doc directory (orientd(8), FILES).

          --config FILE     configuration file (default /etc/orientd/orientd.conf,
                            used when it exists)
          --socket PATH     listen here (default $ORIENTD_SOCKET, the config's
                            socket, or /run/orientd/orientd.sock)
          --check-config    validate the configuration and exit (0 valid, 78 not)
          --mock TRACE      replay a recorded sensor trace instead of reading hardware
          --speed X|max     trace time per wall time (default 1; max: no waiting,
                            timers on virtual time, the same states)
          --loop            replay the trace again and again
          --exit-at-end     exit 0 after the last sample and any pending deadline
                            (a batch replay: no socket unless --socket or
                            $ORIENTD_SOCKET names one)
          --print           write every published state to stdout as one JSON line
          --state-dir DIR   where the rotation lock is kept (default $STATE_DIRECTORY
                            or /var/lib/orientd)
          --dbus            also serve iio-sensor-proxy's D-Bus API
                            (net.hadess.SensorProxy on the system bus; orientd(8),
                            D-BUS), as [dbus] enable = true
          --replace         take net.hadess.SensorProxy from its owner
                            (iio-sensor-proxy)
          --log-level LEVEL
                            error, warning, notice (default), info or debug
          --version         print the version and exit
          --help            print this help and exit

        Signals: SIGTERM/SIGINT stop cleanly, SIGHUP reloads the configuration
        (a bad file keeps the running configuration).

        Exit codes: 64 usage, 65 bad trace, 66 missing input, 69 unavailable
        (another orientd listens on the socket), 73 cannot create the socket,
        78 bad configuration.

        """

    /// The options `usage` lists, for "did you mean".
    static let names = [
        "--config", "--socket", "--check-config", "--mock", "--speed", "--loop", "--exit-at-end", "--print",
        "--state-dir", "--dbus", "--replace", "--log-level", "--version", "--help",
    ]

    /// Parses `arguments` (without the program name). Throws a usage message.
    init(arguments: [String]) throws(UsageError) {
        var rest = arguments[...]
        func value(_ option: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            guard let next = rest.popFirst() else { throw UsageError("\(option) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inline = String(argument[argument.index(after: eq)...])
            }
            switch name {
            case "--mock": mockTrace = try value(name, inline: inline)
            case "--speed":
                let text = try value(name, inline: inline)
                if text == "max" {
                    speed = .max
                } else if let x = DecimalNumber.parse(text), x > 0 {
                    speed = .factor(x)
                } else {
                    throw UsageError("--speed takes a positive number or 'max', not '\(text.prefix(32))'")
                }
            case "--state-dir": stateDir = try value(name, inline: inline)
            case "--config": configPath = try value(name, inline: inline)
            case "--socket": socketPath = try value(name, inline: inline)
            case "--log-level":
                let text = try value(name, inline: inline)
                guard let level = LogLevel(name: text) else {
                    throw UsageError("--log-level takes error, warning, notice, info or debug, not '\(text.prefix(32))'")
                }
                logLevel = level
            case "--loop", "--exit-at-end", "--print", "--help", "-h", "--version", "--check-config", "--dbus", "--replace":
                guard inline == nil else { throw UsageError("\(name) takes no value") }
                switch name {
                case "--loop": loop = true
                case "--exit-at-end": exitAtEnd = true
                case "--print": print = true
                case "--version": version = true
                case "--check-config": checkConfig = true
                case "--dbus": dbus = true
                case "--replace": replace = true
                default: help = true
                }
            default:
                let message = "unknown argument '\(argument.prefix(64))'"
                throw UsageError(suggestion(for: name, among: Self.names).map { "\(message); did you mean '\($0)'?" } ?? message)
            }
        }
        if mockTrace == nil, loop || exitAtEnd || speed != .factor(1) {
            throw UsageError("--speed, --loop and --exit-at-end need --mock TRACE")
        }
        if loop, exitAtEnd { throw UsageError("--loop and --exit-at-end cannot be combined") }
    }
}

/// A command-line mistake (exit 64).
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
