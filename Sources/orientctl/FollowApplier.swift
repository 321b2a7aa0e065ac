import OrientFollow
import OrientProtocol

/// Applies the newest wanted orientation, one command at a time, off the
/// stream's path: `want` returns at once, and while commands run only the
/// latest wish is kept (intermediate orientations are skipped). A failed
/// attempt is retried a few times with backoff, and again whenever a new
/// orientation arrives or the compositor comes back.
actor FollowApplier {
    private let plan: FollowPlan
    private let timeout: Double
    private let log: @Sendable (String) -> Void

    private var wanted: Orientation?
    /// What the panel shows, as far as the last successful application knows.
    private var shown: Orientation?
    /// The orientation before the one being applied (the hook's `previous`).
    private var previous: Orientation = .undefined
    private var output: String?
    private var initial = true
    private var working = false
    private var failures = 0
    /// Counts the compositor's returns: an application that straddles one proves nothing.
    private var generation = 0

    /// Retries after a failure before waiting for the next event.
    static let retries = 3

    init(plan: FollowPlan, output: String?, timeout: Double, log: @escaping @Sendable (String) -> Void) {
        self.plan = plan
        self.output = output
        self.timeout = timeout
        self.log = log
    }

    /// Shows `orientation` as soon as the commands before it are done.
    func want(_ orientation: Orientation) {
        guard orientation != .undefined else { return }
        wanted = orientation
        failures = 0
        start()
    }

    /// The compositor restarted: everything is set again, the output looked up again.
    func compositorReturned() {
        shown = nil
        initial = true
        failures = 0
        generation += 1
        if plan.requestedOutput == nil { output = nil }
        start()
    }

    private func start() {
        guard !working, wanted != nil, wanted != shown else { return }
        working = true
        Task { await work() }
    }

    private func work() async {
        while let target = wanted, target != shown {
            let started = generation
            let applied = await apply(target)
            if CommandRunner.isStopping { break }
            if generation != started { continue }
            if applied {
                shown = target
                previous = target
                initial = false
                failures = 0
                continue
            }
            shown = nil
            failures += 1
            guard wanted == target else { continue }  // a newer orientation goes next
            guard failures <= FollowApplier.retries else {
                log("giving up on \(target.rawValue) until the next orientation or the compositor's return")
                break
            }
            let delay = 500 << (failures - 1)
            log("retrying in \(delay) ms")
            try? await Task.sleep(for: .milliseconds(delay))
        }
        working = false
    }

    /// Runs every command for `target`; true when all of them succeeded.
    private func apply(_ target: Orientation) async -> Bool {
        let environment: [String: String] = [:]
        if output == nil {
            if let query = plan.backend.outputQuery {
                let result = await run(query, environment: environment, label: target.rawValue)
                guard result.succeeded else { return false }
                do {
                    output = try plan.output(fromQuery: result.output)
                } catch {
                    log("\(target.rawValue): \(error)")
                    return false
                }
            } else {
                output = plan.requestedOutput ?? ""
            }
        }
        let output = output ?? ""
        var answers: [String] = []
        for query in plan.backend.queries {
            let result = await run(query, environment: environment, label: target.rawValue)
            answers.append(result.succeeded ? result.output : "")
        }
        let change = OrientationChange(orientation: target, previous: previous, initial: initial)
        let commands: [[String]]
        do {
            commands = try plan.commands(for: change, output: output, answers: answers)
        } catch {
            log("\(target.rawValue): \(error)")
            return false
        }
        let variables = plan.environment(for: change, output: output)
        var succeeded = true
        for command in commands {
            // Keep going after a failure: the rest (the touch input, the hook) still helps.
            if !(await run(command, environment: variables, label: target.rawValue)).succeeded { succeeded = false }
        }
        return succeeded
    }

    private func run(_ argv: [String], environment: [String: String], label: String) async -> CommandResult {
        let result = await CommandRunner.run(argv, environment: environment, timeout: timeout)
        log("\(label): \(commandLine(argv)): \(result.summary)")
        return result
    }
}
