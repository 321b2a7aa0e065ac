#if canImport(Glibc)
import Glibc
#endif
import OrientClient
import OrientProtocol

// orientctl: parses the command line and hands over to one command.

let status: Int32
switch parseArguments(Array(CommandLine.arguments.dropFirst())) {
case .help(let command):
    Output.write(command.map(Help.command) ?? Help.tool, to: 1)
    status = ExitStatus.success
case .version:
    Output.write("orientctl \(orientdVersion)\n", to: 1)
    status = ExitStatus.success
case .usageError(let message, let command):
    Output.error(message)
    Output.write(
        command.map { "Try 'orientctl \($0) --help'.\n" } ?? "Try 'orientctl --help'.\n", to: 2)
    status = ExitStatus.usage
case .run(let options, let command):
    let client = OrientClient(socketPath: options.socket)
    switch command {
    case .get: status = await GetCommand.run(client, json: options.json)
    case .watch where options.sensors: status = await SensorsWatch.run(client, json: options.json)
    case .watch: status = await WatchCommand.run(client, json: options.json, noWait: options.noWait)
    case .lock(let target): status = await LockCommand.run(client, target: target)
    case .unlock: status = await UnlockCommand.run(client)
    case .hold(let mask, let argv): status = await HoldCommand.run(client, mask: mask, argv: argv)
    case .record(let path, let duration): status = await RecordCommand.run(client, path: path, duration: duration)
    case .status: status = await StatusCommand.run(client, json: options.json)
    case .calibrate(let calibrate): status = await CalibrateCommand.run(client, options: calibrate)
    case .follow(let follow): status = await FollowCommand.run(client, options: follow)
    }
}
exit(status)
