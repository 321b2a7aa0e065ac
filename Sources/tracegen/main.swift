// tracegen: writes synthetic sensor traces (docs/traces.md) from the OrientSynth scenarios.
//
//   tracegen [--rate HZ] [--matrix "M"] [--on-change] [--seed N] NAME OUTFILE
//   tracegen --all DIR
//   tracegen --list
//   tracegen plot TRACE [-o FILE.svg] [--z-sign auto|1|-1]
//
// OUTFILE `-` is standard output. Exit codes follow sysexits: 64 usage, 73 a
// file could not be written.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OrientSynth
import OrientProtocol

let usage = """
    usage: tracegen [--rate HZ] [--matrix "x1, y1, z1; x2, y2, z2; x3, y3, z3"] [--on-change] [--seed N] NAME OUTFILE
           tracegen --all DIR
           tracegen --list
           tracegen plot TRACE [-o FILE.svg] [--z-sign auto|1|-1]

    Writes the synthetic scenario NAME as a trace (OUTFILE '-' is standard output).
    --rate HZ     sample rate (default: the scenario's, 20 Hz for most)
    --matrix M    mount matrix for the header; samples are written in the sensor frame
    --on-change   an on-change sensor: no noise, a sample only when the reading changes
    --seed N      noise seed (default 1)
    --all DIR     writes every scenario as DIR/NAME.trace, plus the extra variants
    --list        prints the scenario names
    plot TRACE    replays TRACE through the classifier and writes an SVG of what it
                  saw and decided (angle, tilt, magnitude, candidates, holds, latch,
                  the published orientation; with base columns, the hinge angle and
                  the tablet mode) to FILE (-o; default standard output)

    """

/// The mount matrix of `demo-rotated-matrix.trace`: x and y swapped and negated,
/// as on the Onda v975 and similar tablets.
let rotatedMatrixText = "0, -1, 0; -1, 0, 0; 0, 0, 1"

func printError(_ message: String) {
    let text = "tracegen: \(message)\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}

func fail(_ message: String, code: Int32) -> Never {
    printError(message)
    exit(code)
}

/// Sample values rounded to 1e-4 m/s² and times to 1e-3 ms, so that files stay
/// small and diffs readable (far below any sensor's resolution).
func compact(_ trace: Trace) -> Trace {
    func rounded(_ sample: Sample) -> Sample {
        Sample(
            tMs: (sample.tMs * 1000).rounded() / 1000,
            vector: (sample.vector * 10_000).rounded(.toNearestOrAwayFromZero) / 10_000)
    }
    var out = trace
    out.samples = trace.samples.map(rounded)
    out.baseSamples = trace.baseSamples.map(rounded)
    return out
}

/// Writes `text` to `path` (`-` is standard output); false with a message on failure.
func writeFile(_ text: String, to path: String) -> Bool {
    let bytes = Array(text.utf8)
    if path == "-" {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                printError("cannot write to standard output: \(String(cString: strerror(errno)))")
                return false
            }
            offset += n
        }
        return true
    }
    guard let file = fopen(path, "wb") else {
        printError("cannot create \(path): \(String(cString: strerror(errno)))")
        return false
    }
    let written = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
    let closed = fclose(file)
    guard written == bytes.count, closed == 0 else {
        printError("cannot write \(path): \(String(cString: strerror(errno)))")
        return false
    }
    return true
}

/// Every bundled trace: the catalog at each scenario's rate, then the variants.
func writeAll(to directory: String) -> Int32 {
    if mkdir(directory, 0o755) != 0 && errno != EEXIST {
        printError("cannot create directory \(directory): \(String(cString: strerror(errno)))")
        return 73
    }
    var jobs: [(file: String, trace: Trace)] = []
    for entry in Scenarios.catalog {
        let scenario = entry.build(1)
        jobs.append((entry.name, scenario.trace(rateHz: scenario.preferredRateHz)))
    }
    // #17: an on-change sensor goes silent after the turn (5 s of stillness).
    var onChange = Scenarios.brisk90Turn()
    onChange.hold(3000)
    jobs.append((
        "brisk90-onchange",
        onChange.trace(
            rateHz: 20, onChange: true,
            description: "on-change sensor: brisk 300 ms turn 0 -> 90, then silent while still")))
    do {
        let matrix = try MountMatrix(parsing: rotatedMatrixText)
        jobs.append((
            "demo-rotated-matrix",
            Scenarios.demo().trace(
                rateHz: 20, mountMatrix: matrix,
                description: "the demo with mount matrix \(rotatedMatrixText): sensor frame differs, panel frame identical")))
        // The poses a user records for `orientctl calibrate` on a tablet whose sensor
        // is mounted per the rotated matrix while no hwdb entry says so (identity in use).
        var poses = Scenarios.calibrationPoses().trace(rateHz: 20, mountMatrix: matrix)
        poses.mountMatrix = .identity
        poses.description =
            "calibration poses of a sensor mounted per \(rotatedMatrixText), recorded with no matrix in use"
        jobs.append(("calibration-poses-rotated", poses))
    } catch {
        printError("internal: \(error)")
        return 70
    }
    // Convertibles: the display's and the base's accelerometers (base columns).
    for entry in Scenarios.convertibleCatalog {
        jobs.append((entry.name, entry.build(1).trace(rateHz: 20)))
    }
    for (name, trace) in jobs {
        let path = directory.hasSuffix("/") ? "\(directory)\(name).trace" : "\(directory)/\(name).trace"
        guard writeFile(compact(trace).serialized(), to: path) else { return 73 }
    }
    return 0
}

func run(_ arguments: [String]) -> Int32 {
    var rate: Double?
    var matrix = MountMatrix.identity
    var onChange = false
    var seed: UInt64 = 1
    var positional: [String] = []
    var index = 0
    func value(of option: String) -> String {
        index += 1
        guard index < arguments.count else { fail("\(option) needs a value\n\(usage)", code: 64) }
        return arguments[index]
    }
    while index < arguments.count {
        let argument = arguments[index]
        switch argument {
        case "-h", "--help":
            print(usage, terminator: "")
            return 0
        case "--list":
            for entry in Scenarios.catalog {
                print("\(entry.name)\t\(entry.build(1).summary ?? "")")
            }
            for entry in Scenarios.convertibleCatalog {
                print("\(entry.name)\t\(entry.build(1).summary ?? "")")
            }
            return 0
        case "--all":
            let directory = value(of: argument)
            guard index == arguments.count - 1 else { fail("--all takes only a directory\n\(usage)", code: 64) }
            return writeAll(to: directory)
        case "--rate":
            let text = value(of: argument)
            guard let hz = DecimalNumber.parse(text), hz > 0 else { fail("--rate: '\(text)' is not a positive number of Hz", code: 64) }
            rate = hz
        case "--matrix":
            let text = value(of: argument)
            do {
                matrix = try MountMatrix(parsing: text)
            } catch {
                fail("--matrix: \(error)", code: 64)
            }
        case "--on-change":
            onChange = true
        case "--seed":
            let text = value(of: argument)
            guard let n = UInt64(text) else { fail("--seed: '\(text)' is not a non-negative integer", code: 64) }
            seed = n
        default:
            if argument.hasPrefix("-") && argument != "-" {
                fail("unknown option \(argument)\n\(usage)", code: 64)
            }
            positional.append(argument)
        }
        index += 1
    }
    guard positional.count == 2 else { fail("expected NAME OUTFILE\n\(usage)", code: 64) }
    if let entry = Scenarios.convertibleNamed(positional[0]) {
        guard matrix.isIdentity, !onChange else { fail("\(entry.name): a convertible takes neither --matrix nor --on-change", code: 64) }
        return writeFile(compact(entry.build(seed).trace(rateHz: rate ?? 20)).serialized(), to: positional[1]) ? 0 : 73
    }
    guard let entry = Scenarios.named(positional[0]) else {
        let names = (Scenarios.catalog.map(\.name) + Scenarios.convertibleCatalog.map(\.name)).joined(separator: ", ")
        fail("unknown scenario '\(positional[0])'; known: \(names)", code: 64)
    }
    let scenario = entry.build(seed)
    let trace = scenario.trace(rateHz: rate ?? scenario.preferredRateHz, mountMatrix: matrix, onChange: onChange)
    return writeFile(compact(trace).serialized(), to: positional[1]) ? 0 : 73
}

let arguments = Array(CommandLine.arguments.dropFirst())
exit(arguments.first == "plot" ? plot(Array(arguments.dropFirst())) : run(arguments))
