#if canImport(Glibc)
import Glibc
#endif
import OrientDaemon
import OrientProtocol
import OrientConfig

func fail(_ message: String, code: Int32) -> Never {
    writeAll(fd: 2, Array("orientd: \(message)\n".utf8))
    exit(code)
}

// The daemon's own Sensor Core process (SensorCoreProcess): not for users.
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == SensorCoreProcess.argument {
    exit(SensorCoreProcess.run())
}
let options: Options
do {
    options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
} catch {
    fail("\(error.message)\nTry 'orientd --help'.", code: 64)
}
if options.help {
    writeAll(fd: 1, Array(Options.usage.utf8))
    exit(0)
}
if options.version {
    writeAll(fd: 1, Array("orientd \(orientdVersion)\n".utf8))
    exit(0)
}
signal(SIGPIPE, SIG_IGN)
// Many clients need many fds: raise the soft limit to the hard one (the
// [limits] clients setting, not the fd limit, decides how many are served).
var fdLimit = rlimit()
if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &fdLimit) == 0, fdLimit.rlim_cur < fdLimit.rlim_max {
    fdLimit.rlim_cur = fdLimit.rlim_max
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &fdLimit)
}
var environment: [String: String] = [:]
for (key, value) in ProcessInfoLite.environment() { environment[key] = value }

// Configuration: a file named with --config must exist; the default one is optional.
var config = DaemonConfig()
var configWarnings: [String] = []
var configPath: String?
var info = stat()
if let path = options.configPath ?? (stat(DaemonConfig.defaultPath, &info) == 0 ? DaemonConfig.defaultPath : nil) {
    do {
        (config, configWarnings) = try ConfigFile.load(path)
        configPath = path
    } catch {
        fail(error.description, code: error.exitCode)
    }
}
let log = Log(threshold: options.logLevel ?? LogLevel(config: config.logLevel), journal: Systemd.stderrIsJournal())
for warning in configWarnings { log.warning(warning) }
if options.checkConfig {
    writeAll(fd: 1, Array("\(configPath ?? "defaults (no configuration file)"): configuration OK\n".utf8))
    exit(0)
}

// The socket: --socket, $ORIENTD_SOCKET, the config's, or the default. A batch
// replay (--mock with --exit-at-end) serves no socket unless one is named.
// No closures in this top-level code: one would be main-actor isolated, and its
// isolation check alone links Swift Concurrency and libdispatch into orientd.
let environmentSocket = environment["ORIENTD_SOCKET"] ?? ""
let namedSocket = options.socketPath ?? (environmentSocket.isEmpty ? nil : environmentSocket)
let batchReplay = options.mockTrace != nil && options.exitAtEnd
let socketPath = namedSocket ?? (batchReplay ? nil : config.socket ?? DaemonConfig.defaultSocketPath)
var daemonOptions = DaemonOptions(
    socketPath: socketPath,
    stateDirectory: options.stateDir ?? StateDirectory.defaultPath(environment: environment))
daemonOptions.speed = options.speed
daemonOptions.loop = options.loop
daemonOptions.exitAtEnd = options.exitAtEnd
daemonOptions.print = options.print
daemonOptions.configPath = configPath ?? DaemonConfig.defaultPath
daemonOptions.configOptional = options.configPath == nil
daemonOptions.logLevelOverride = options.logLevel
daemonOptions.dbus = options.dbus
daemonOptions.replaceBusName = options.replace
// A developer's replay on the default socket goes on without it if it is taken.
daemonOptions.socketOptional = options.mockTrace != nil && namedSocket == nil

if let tracePath = options.mockTrace {
    do {
        let trace = try TraceFile.load(tracePath)
        for warning in trace.mountMatrix.warnings { log.warning("\(tracePath): \(warning)") }
        log.info("replaying \(tracePath): \(trace.samples.count) samples")
        daemonOptions.mockTrace = trace
        daemonOptions.mockTracePath = tracePath
    } catch {
        switch error {
        case .unreadable: fail(error.description, code: 66)
        case .malformed: fail(error.description, code: 65)
        }
    }
}

// One malloc arena for every thread: the pollers' and the udev enumerator's
// threads allocate a little each, and glibc would give each an arena of its
// own that keeps its pages.
setSingleMallocArena()

do {
    let daemon = try Daemon(options: daemonOptions, config: config, log: log)
    exit(daemon.run())
} catch {
    fail(error.description, code: 71)
}
