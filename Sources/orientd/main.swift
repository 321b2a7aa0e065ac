#if canImport(Glibc)
import Glibc
#endif
import OrientDaemon
import OrientSense

let version = "0.1.0"

func fail(_ message: String, code: Int32) -> Never {
    writeAll(fd: 2, Array("orientd: \(message)\n".utf8))
    exit(code)
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
    writeAll(fd: 1, Array("orientd \(version)\nlibiio \(LibraryVersions.libiio)\n".utf8))
    exit(0)
}
signal(SIGPIPE, SIG_IGN)
let log = Log(threshold: options.logLevel)
var environment: [String: String] = [:]
for (key, value) in ProcessInfoLite.environment() { environment[key] = value }
let stateDirectory = StateDirectory(path: options.stateDir ?? StateDirectory.defaultPath(environment: environment))
let lock = stateDirectory.loadLock(warn: log.warning)

guard let tracePath = options.mockTrace else {
    fail("no sensor source: reading hardware accelerometers is not available in this version; use --mock TRACE", code: 69)
}

let trace: Trace
do {
    trace = try TraceFile.load(tracePath)
} catch {
    switch error {
    case .unreadable: fail(error.description, code: 66)
    case .malformed: fail(error.description, code: 65)
    }
}
for warning in trace.mountMatrix.warnings { log.warning("\(tracePath): \(warning)") }

let natural = PanelGeometry.probe() ?? .portrait
var replay = MockReplay(trace: trace, natural: natural, lock: lock, loop: options.loop)
let output = LineWriter(fd: 1)
log.info("replaying \(tracePath): \(trace.samples.count) samples, natural geometry \(natural.rawValue)")

if options.print { output.write(replay.engine.state.json()) }
let wallStart = MonotonicClock.nowMs()
let traceStart = trace.samples.first?.tMs ?? 0
while let t = replay.nextStepTime() {
    if case .factor(let factor) = options.speed {
        output.flush()
        MonotonicClock.sleep(untilMs: wallStart + (t - traceStart) / factor)
    }
    if let state = replay.advance(), options.print { output.write(state.json()) }
    if !output.isOpen { exit(0) }
}
output.flush()
if !options.exitAtEnd {
    // The trace is over; keep the last state until told to stop.
    while true { pause() }
}
exit(0)
