#if canImport(Glibc)
import Glibc
#endif
import OrientCalibration
import OrientClient
import OrientProtocol

/// `orientctl calibrate`: finds the sensor's mount matrix from three poses and
/// prints (or writes) the hwdb entry that fixes it.
///
/// Exit status: 0 done (or nothing to change), 65 the poses cannot be used
/// (moving, noisy, ambiguous, contradicting) or a trace is malformed, 69 no
/// daemon or no accelerometer, 77 not allowed (samples refused, the hwdb file
/// not writable), 74 another write error.
enum CalibrateCommand {
    static func run(_ client: OrientClient, options: CalibrateOptions) async -> Int32 {
        let interactive = !options.nonInteractive
        let detector = RestDetector(minimumDurationMs: options.restSeconds * 1000)

        // What the daemon knows about the sensor. Recorded poses can be read without a daemon.
        var status: DaemonStatus?
        do {
            status = try await client.status()
        } catch {
            switch error {
            case .unavailable where !options.traces.isEmpty, .timedOut where !options.traces.isEmpty:
                Output.error("orientd is not reachable (\(error)); working from the traces alone")
            default:
                return ExitStatus.report(error)
            }
        }
        if let status, status.sensorState == .absent, options.traces.isEmpty {
            Output.error(
                "orientd has no accelerometer, so there is nothing to calibrate (orientctl status says what it found)")
            return ExitStatus.unavailable
        }

        // The poses.
        let poses: PoseSet
        var current = status.map { ($0.mountMatrix.value, $0.mountMatrix.reason) }
        if options.traces.isEmpty {
            if let sensor = status?.sensor {
                Output.line("Calibrating \(sensor.device)\(chipDescription(sensor).map { " (\($0))" } ?? ""): three poses, each held still for \(oneDecimal(options.restSeconds)) s.")
            }
            switch await LivePoses.capture(client, detector: detector) {
            case .success(let captured):
                poses = captured.poses
                if current == nil { current = (captured.matrix, "samples header") }
            case .failure(let failure):
                if !failure.message.isEmpty { Output.error(failure.message) }
                return failure.status
            }
        } else {
            var traces: [Trace] = []
            for path in options.traces {
                switch TraceInput.load(path) {
                case .success(let trace): traces.append(trace)
                case .failure(let failure):
                    Output.error(failure.message)
                    return failure.status
                }
            }
            // The matrix the recording was made under is the one the poses were seen through.
            let recorded = traces[0].mountMatrix
            if current == nil || current?.0 != recorded { current = (recorded, "the trace's header") }
            do {
                if traces.count == 1 {
                    poses = try PoseSet(sequence: traces[0].samples, detector: detector)
                } else {
                    poses = try PoseSet(perPose: traces.map(\.samples), detector: detector)
                }
            } catch {
                Output.error("cannot calibrate: \(error)")
                return ExitStatus.dataError
            }
            for (pose, path) in zip(CalibrationPose.allCases, options.traces.count == 3 ? options.traces : Array(repeating: options.traces[0], count: 3)) {
                let rest = poses[pose]
                Output.line("\(pose.phrase.padded(to: 13)) \(describe(rest)) (\(path), from \(Int(rest.startMs.rounded())) ms)")
            }
        }

        // The fit.
        let fit: MountFit
        do {
            fit = try MountFit(upright: poses.upright.mean, leftUp: poses.leftUp.mean, faceUp: poses.faceUp.mean)
        } catch {
            Output.error("cannot calibrate: \(error)")
            return ExitStatus.dataError
        }
        let (matrix, source) = current ?? (.identity, "identity")

        // The key.
        let identity = SensorIdentity(
            label: status?.sensor.flatMap { readLabel(syspath: $0.syspath) },
            parentModalias: status?.sensor?.modalias, dmiModalias: status?.dmiModalias)
        let key: HwdbMatchKey?
        switch await chooseKey(identity: identity, status: status, options: options, interactive: interactive) {
        case .success(let chosen): key = chosen
        case .failure(let failure):
            Output.error(failure.message)
            return failure.status
        }

        let report = CalibrationReport(
            device: status?.sensor?.device, chip: status?.sensor.flatMap(chipDescription), current: matrix,
            currentSource: source, poses: poses, fit: fit, key: key, machine: machineName(status?.dmiModalias),
            zSign: status?.zSign.value)
        Output.line("")
        Output.line(report.finding)
        Output.line("")
        Output.line(report.comparison)
        Output.line("")
        guard !report.nothingToChange else {
            Output.line("The matrix in use already gives every pose right: nothing to change.")
            return ExitStatus.success
        }
        for caution in report.cautions { Output.line("Note: \(caution)") }
        return await offer(report, options: options, interactive: interactive)
    }

    /// Prints the entry, writes it when asked to, and prints the steps that follow.
    private static func offer(_ report: CalibrationReport, options: CalibrateOptions, interactive: Bool) async -> Int32 {
        let entry = report.entry
        guard report.key != nil else {
            Output.line("The hwdb entry, with the match key still to fill in:")
            Output.line("")
            Output.write(entry.text, to: 1)
            Output.line("")
            Output.line(report.configAlternative)
            if options.write {
                Output.error("not writing \(options.hwdbFile): the entry has no match key (see above)")
                return ExitStatus.dataError
            }
            return ExitStatus.success
        }
        Output.line("The hwdb entry (for \(options.hwdbFile)):")
        Output.line("")
        Output.write(entry.text, to: 1)
        Output.line("")
        var write = options.write
        if !write && interactive {
            if access(directoryOf(options.hwdbFile), W_OK) == 0 {
                Output.write("Write it to \(options.hwdbFile)? [y/N] ", to: 1)
                let answer = await Terminal.readLine()?.lowercased() ?? ""
                write = answer == "y" || answer == "yes"
            } else {
                Output.line("(Run orientctl calibrate as root to let it write \(options.hwdbFile) for you.)")
            }
        }
        var status = ExitStatus.success
        if write {
            switch HwdbFile.add(entry, to: options.hwdbFile) {
            case .success(let replaced):
                Output.line("\(replaced ? "Replaced the matrix of that key in" : "Added it to") \(options.hwdbFile).")
            case .failure(let failure):
                Output.error(failure.message)
                status = failure.status
            }
        } else {
            Output.line("To use it, add it to \(options.hwdbFile) (as root).")
        }
        Output.line(report.loadSteps)
        Output.line("")
        Output.line(report.configAlternative)
        Output.line("")
        Output.line(CalibrationReport.upstream)
        return status
    }

    /// The key to write under: the user's, the only sensible one, or one the user picks.
    private static func chooseKey(
        identity: SensorIdentity, status: DaemonStatus?, options: CalibrateOptions, interactive: Bool
    ) async -> Result<HwdbMatchKey?, CommandFailure> {
        let lookup = identity.lookupString
        if let given = options.matchKey {
            let key = HwdbMatchKey(key: given, scope: "the key given with --match-key")
            if let lookup, !key.matches(lookup) {
                Output.error("warning: --match-key does not match this sensor's lookup string \(lookup)")
            }
            return .success(key)
        }
        guard status?.sensor != nil else {
            Output.line(
                "Note: the sensor's match key is unknown here (no daemon, or it replays a trace). On the device, orientctl status shows the sensor's modalias and the machine's DMI modalias (vendor svn…, product pn…); fill them into the key below as 60-sensor.hwdb writes them, or give the key with --match-key.")
            return .success(nil)
        }
        let choice = HwdbKeyChoice(for: identity)
        for note in choice.notes { Output.line("Note: \(note).") }
        guard let first = choice.keys.first else { return .success(nil) }
        guard choice.needsChoice else { return .success(first) }
        Output.line("Match keys for this sensor (udev looks up \(lookup ?? "?")):")
        for (index, key) in choice.keys.enumerated() {
            Output.line("  \(index + 1). \(key.key)\n     \(key.scope)")
        }
        guard interactive else {
            Output.line("Using 1; give another with --match-key.")
            return .success(first)
        }
        while true {
            Output.write("Which key? [1-\(choice.keys.count), Enter for 1] ", to: 1)
            guard let answer = await Terminal.readLine() else {
                return .failure(CommandFailure("no answer on standard input; stopping", status: ExitStatus.usage))
            }
            if answer.isEmpty { return .success(first) }
            if let number = Int(answer), (1...choice.keys.count).contains(number) {
                return .success(choice.keys[number - 1])
            }
        }
    }

    /// `(x, y, z) m/s² over 1.2 s`.
    static func describe(_ rest: Rest) -> String {
        let v = rest.mean
        func f(_ x: Double) -> String { oneDecimalSigned(x) }
        return "(\(f(v.x)), \(f(v.y)), \(f(v.z))) m/s² over \(oneDecimal(rest.durationMs / 1000)) s"
    }

    /// `bmc150_accel, driver bmc150_accel_i2c`.
    static func chipDescription(_ sensor: DaemonStatus.Sensor) -> String? {
        let parts = [sensor.name, sensor.driver.map { "driver \($0)" }].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// `TOSHIBA WT10-A` from the DMI modalias's vendor and product.
    static func machineName(_ dmi: String?) -> String? {
        guard let dmi else { return nil }
        let fields = dmi.split(separator: ":")
        let vendor = fields.first { $0.hasPrefix("svn") }?.dropFirst(3)
        let product = fields.first { $0.hasPrefix("pn") }?.dropFirst(2)
        let name = [vendor, product].compactMap { $0 }.map(String.init).filter { !$0.isEmpty }.joined(separator: " ")
        return name.isEmpty ? nil : name
    }

    /// The IIO device's `label`, read where the wizard runs (the daemon's status
    /// does not carry it); nil when absent or empty.
    static func readLabel(syspath: String) -> String? {
        guard let text = readSmallFile(syspath + "/label")?.trimmingCharacters(in: " \n\t\0"), !text.isEmpty else { return nil }
        return text
    }

    static func directoryOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// A command that cannot go on: what to print and the exit status.
struct CommandFailure: Error {
    let message: String
    let status: Int32
    init(_ message: String, status: Int32) {
        self.message = message
        self.status = status
    }
}

/// One decimal with its sign: `-9.8`, `0.1`, `0`.
func oneDecimalSigned(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    if tenths == 0 { return "0" }
    return String(tenths / 10)
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let first = s.first, set.contains(first) { s.removeFirst() }
        while let last = s.last, set.contains(last) { s.removeLast() }
        return String(s)
    }
}
