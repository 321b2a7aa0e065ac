#if canImport(Glibc)
import Glibc
#endif
import OrientClient
import OrientFollow
import OrientProtocol

/// `orientctl follow`: shows every effective orientation on the panel (and
/// its touch and pen input) through the compositor's own commands, logging
/// each command with its exit status on standard error, until SIGINT/SIGTERM.
enum FollowCommand {
    static func run(_ client: OrientClient, options: FollowOptions) async -> Int32 {
        let environment = environmentVariables()
        let plan: FollowPlan
        do {
            plan = try FollowPlan(options: options, environment: environment)
        } catch {
            Output.error("follow: \(error)")
            return ExitStatus.usage
        }
        let log: @Sendable (String) -> Void = { Output.write("orientctl follow: \($0)\n", to: 2) }
        let signals = SignalPipe.stream([SIGINT, SIGTERM])
        log("backend \(plan.backend.kind.rawValue)" + (plan.hook.map { ", exec '\($0.source)'" } ?? ""))

        // A wrong --output (or no panel at all) is an error now, while the
        // user is looking; a compositor that is not there yet is waited for.
        var output: String?
        if let query = plan.backend.outputQuery {
            let result = await CommandRunner.run(query, environment: [:], timeout: options.timeout)
            if result.succeeded {
                do {
                    output = try plan.output(fromQuery: result.output)
                } catch {
                    Output.error("follow: \(error)")
                    return ExitStatus.usage
                }
                log("output \(output ?? "")")
            } else {
                log("cannot list the outputs yet (\(commandLine(query)): \(result.summary)); trying again on each change")
            }
        } else {
            output = plan.requestedOutput ?? ""
        }
        do {
            _ = try await client.get()
        } catch {
            log("\(error); waiting for orientd")
        }

        let applier = FollowApplier(plan: plan, output: output, timeout: options.timeout, log: log)
        return await withTaskGroup(of: Int32.self) { group in
            group.addTask {
                var last = ""
                for await state in client.states() {
                    // Tilt and layout changes come as states too; only these matter here.
                    let line = "orientation \(state.orientation.rawValue) (physical \(state.physical.rawValue)"
                        + (state.locked.map { ", locked \($0.rawValue)" } ?? "")
                        // Outside tablet mode the screen stays at its natural orientation.
                        + (state.autoRotate.follows(state.tabletMode) ? "" : ", \(state.tabletMode == .unknown ? "mode unknown" : "\(state.tabletMode.rawValue) mode"): auto-rotate \(state.autoRotate.rawValue)")
                        + ")"
                    guard line != last else { continue }
                    last = line
                    log(line)
                    await applier.want(state.orientation)
                }
                return ExitStatus.success
            }
            if let endpoint = BackendKind.endpoint(of: plan.backend.kind, environment: environment) {
                let (events, failure) = SocketWatch.events(of: endpoint)
                if let failure { log("not watching for compositor restarts: \(failure)") }
                let grace = options.compositorTimeout
                // A compositor that does not come back has ended the session: so does follow.
                let (expiries, expire) = AsyncStream.makeStream(of: Void.self)
                group.addTask {
                    var timer: Task<Void, Never>?
                    for await event in events {
                        timer?.cancel()
                        switch event {
                        case .vanished:
                            log("\(endpoint) is gone; waiting up to \(formatSeconds(grace)) s for the compositor to come back")
                            timer = Task {
                                guard (try? await Task.sleep(for: .milliseconds(Int(grace * 1000)))) != nil else { return }
                                expire.yield()
                            }
                        case .appeared:
                            log("\(endpoint) is back; applying the orientation again")
                            await applier.compositorReturned()
                        }
                    }
                    // The watch ended by itself: stay until the others end.
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(86400)) }
                    return ExitStatus.success
                }
                group.addTask {
                    await stop(at: expiries, log: log) { "the compositor did not come back within \(formatSeconds(grace)) s; stopping" }
                }
            }
            group.addTask {
                await stop(at: signals, log: log) { "stopping on signal \($0)" }
            }
            let status = await group.next() ?? ExitStatus.success
            CommandRunner.terminateAll()
            group.cancelAll()
            return status
        }
    }
}

/// Ends follow (exit 0) at the first element of `stream`, after logging why:
/// from then on no command starts, and those running get SIGTERM.
private func stop<Element: Sendable>(
    at stream: AsyncStream<Element>, log: @Sendable (String) -> Void, reason: @Sendable (Element) -> String
) async -> Int32 {
    for await element in stream {
        log(reason(element))
        CommandRunner.terminateAll()
        break
    }
    return ExitStatus.success
}

/// Seconds for the log: `10`, `0.5`.
private func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
}
