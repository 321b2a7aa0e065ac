import OrientCalibration
import OrientClient
import OrientProtocol
import Synchronization

/// The interactive half of `calibrate`: asks for each pose, waits for the
/// device to rest in it, and takes the rest from the daemon's raw samples.
enum LivePoses {
    struct Captured {
        var poses: PoseSet
        /// The matrix the daemon applies now (the samples reply's header).
        var matrix: MountMatrix
    }

    /// How long to wait for a rest after the user says the device is in place,
    /// beyond the rest itself.
    static let patience: Duration = .seconds(10)

    static func capture(_ client: OrientClient, detector: RestDetector) async -> Result<Captured, CommandFailure> {
        let header: Trace
        let stream: AsyncStream<Sample>
        do {
            (header, stream) = try await client.samples()
        } catch {
            if case .server(let refusal) = error, refusal.code == .notPermitted {
                return .failure(
                    CommandFailure(
                        "orientd refused the raw samples calibration reads (\(refusal.message)): run it as root, sudo orientctl calibrate",
                        status: ExitStatus.noPermission))
            }
            return .failure(CommandFailure("", status: ExitStatus.report(error)))
        }
        let log = SampleLog()
        let reader = Task {
            for await sample in stream { log.append(sample) }
        }
        defer { reader.cancel() }

        var rests: [Rest] = []
        for (step, pose) in CalibrationPose.allCases.enumerated() {
            while true {
                Output.line("")
                Output.line("Step \(step + 1) of 3, \(pose.phrase): \(pose.instruction)")
                Output.write("Press Enter when it is in place (q to quit). ", to: 1)
                guard let answer = await Terminal.readLine() else {
                    return .failure(CommandFailure("no answer on standard input; stopping, nothing changed", status: ExitStatus.usage))
                }
                if answer.lowercased() == "q" {
                    return .failure(CommandFailure("stopped; nothing changed", status: ExitStatus.success))
                }
                Output.line("Hold it still...")
                switch await waitForRest(log: log, detector: detector) {
                case .rest(let rest):
                    Output.line("  got it: \(CalibrateCommand.describe(rest))")
                    rests.append(rest)
                case .noSamples:
                    return .failure(
                        CommandFailure(
                            "no samples came from orientd: does it have an accelerometer? (orientctl status says)",
                            status: ExitStatus.unavailable))
                case .problem(let problem):
                    Output.line("  That did not work: \(problem). Try again.")
                    continue
                }
                break
            }
        }
        return .success(Captured(poses: PoseSet(upright: rests[0], leftUp: rests[1], faceUp: rests[2]), matrix: header.mountMatrix))
    }

    private enum Waited {
        case rest(Rest)
        case problem(PoseProblem)
        case noSamples
    }

    /// The first rest that ends after now, or why none came.
    private static func waitForRest(log: SampleLog, detector: RestDetector) async -> Waited {
        let mark = log.count
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int64(detector.minimumDurationMs)) + patience
        while clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(100))
            let recent = log.samples(from: mark)
            if let rest = detector.trailingRest(in: recent) {
                // A rest is also a rest of itself: the full check adds the magnitude test.
                do {
                    return .rest(try detector.rest(in: recent.filter { $0.tMs >= rest.startMs }))
                } catch {
                    return .problem(error)
                }
            }
        }
        let recent = log.samples(from: mark)
        guard !recent.isEmpty else { return .noSamples }
        do {
            return .rest(try detector.rest(in: recent))
        } catch {
            return .problem(error)
        }
    }
}

/// Samples as they arrive, shared between the reader task and the wizard.
final class SampleLog: Sendable {
    private let storage = Mutex<[Sample]>([])

    func append(_ sample: Sample) {
        storage.withLock { $0.append(sample) }
    }

    var count: Int { storage.withLock { $0.count } }

    func samples(from index: Int) -> [Sample] {
        storage.withLock { Array($0[min(index, $0.count)...]) }
    }
}
