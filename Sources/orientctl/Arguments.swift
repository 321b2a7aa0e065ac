import OrientFollow
import OrientProtocol

/// What the command line asks for.
enum Invocation: Equatable {
    /// Print help (the whole tool's when `command` is nil) and exit 0:
    /// `--help`, or the `help [COMMAND]` command.
    case help(command: String?)
    /// Print the version and exit 0.
    case version
    /// A usage error: print `message` and the hint for `command`, exit 64.
    case usageError(message: String, command: String?)
    case run(Options, Command)
}

/// Options that apply to every command.
struct Options: Equatable {
    var socket: String?
    var json = false
    /// `watch --no-wait`: fail at once when the daemon is not up.
    var noWait = false
    /// `watch --sensors`: the light and proximity readings instead of the state.
    var sensors = false
}

/// A command and its arguments, validated.
enum Command: Equatable {
    case get
    case watch
    case lock(LockTarget)
    case unlock
    /// Hold a constraint allowing `mask` (mask names) while `argv` runs.
    case hold(mask: [String], argv: [String])
    /// Record samples to `path` (`-` is standard output), for `duration` seconds or until a signal.
    case record(path: String, duration: Double?)
    /// What the daemon sees and why, with a fix for each problem.
    case status
    /// The mount-matrix wizard.
    case calibrate(CalibrateOptions)
    /// Apply every effective orientation to the panel through the compositor.
    case follow(FollowOptions)
}

/// The command names, in the order the help lists them.
let commandNames = ["get", "watch", "lock", "unlock", "hold", "record", "status", "calibrate", "follow", "help"]

/// The options, for "did you mean".
let optionNames = ["--socket", "--json", "--help", "--version", "--duration", "--no-wait", "--sensors"] + CalibrateOptions.optionNames

/// `message`, and "did you mean 'X'?" when one of `candidates` is close to `word`.
func withSuggestion(_ message: String, for word: String, among candidates: [String]) -> String {
    guard let near = suggestion(for: word, among: candidates) else { return message }
    return "\(message); did you mean '\(near)'?"
}

/// Parses `orientctl [--socket PATH] [--json] COMMAND [ARGS...]`.
///
/// `--socket`, `--json` and `--help` are accepted before or after the command
/// (but never after `hold`'s `--`).
func parseArguments(_ arguments: [String]) -> Invocation {
    var options = Options()
    var command: String?
    var positional: [String] = []
    var duration: Double?
    var trailing: [String]?  // hold's COMMAND..., everything after `--`
    var calibrate = CalibrateOptions()
    var index = 0

    func value(for option: String) -> String? {
        if let equals = arguments[index].firstIndex(of: "=") {
            return String(arguments[index][arguments[index].index(after: equals)...])
        }
        index += 1
        return index < arguments.count ? arguments[index] : nil
    }

    while index < arguments.count {
        let argument = arguments[index]
        defer { index += 1 }
        if argument == "--" {
            trailing = Array(arguments[(index + 1)...])
            index = arguments.count
            break
        }
        // Once hold has its MASK, the first word that is not an option starts the command to run.
        if command == "hold", positional.count == 1, !argument.hasPrefix("-") {
            trailing = Array(arguments[index...])
            index = arguments.count
            break
        }
        switch argument {
        case "-h", "--help":
            return .help(command: command)
        case "--version":
            return .version
        case "--no-wait":
            guard command == "watch" else {
                return .usageError(message: "--no-wait is an option of watch", command: command)
            }
            options.noWait = true
        case "--sensors":
            guard command == "watch" else {
                return .usageError(message: "--sensors is an option of watch", command: command)
            }
            options.sensors = true
        case "--json":
            options.json = true
        case "--socket",
            _ where argument.hasPrefix("--socket="):
            guard let path = value(for: "--socket"), !path.isEmpty else {
                return .usageError(message: "--socket needs a path", command: command)
            }
            options.socket = path
        case "--duration",
            _ where argument.hasPrefix("--duration="):
            guard command == "record" else {
                return .usageError(message: "--duration is an option of record", command: command)
            }
            guard let text = value(for: "--duration"), let seconds = Double(text), seconds.isFinite, seconds > 0 else {
                return .usageError(message: "--duration needs a positive number of seconds", command: command)
            }
            duration = seconds
        case _ where command == "calibrate" && CalibrateOptions.optionNames.contains(String(argument.prefix { $0 != "=" })):
            if let message = calibrate.apply(String(argument.prefix { $0 != "=" }), value: { value(for: argument) }) {
                return .usageError(message: message, command: command)
            }
        case "-":
            positional.append(argument)
        case _ where argument.hasPrefix("-") && command != "follow":  // follow's own options: FollowOptions.parse
            let name = String(argument.prefix { $0 != "=" })
            if CalibrateOptions.optionNames.contains(name) {
                return .usageError(message: "\(name) is an option of calibrate", command: command)
            }
            if FollowOptions.names.contains(name) {
                return .usageError(message: "\(name) is an option of follow", command: command)
            }
            return .usageError(
                message: withSuggestion("unknown option '\(argument)'", for: name, among: optionNames), command: command)
        default:
            if command == nil {
                guard commandNames.contains(argument) else {
                    return .usageError(
                        message: withSuggestion("unknown command '\(argument)'", for: argument, among: commandNames), command: nil)
                }
                command = argument
            } else {
                positional.append(argument)
            }
        }
    }

    guard let command else {
        return .usageError(message: "no command given", command: nil)
    }
    func tooMany() -> Invocation {
        .usageError(message: "unexpected argument '\(positional.last ?? "")'", command: command)
    }
    if trailing != nil && command != "hold" {
        return .usageError(message: "'--' is only for hold", command: command)
    }
    switch command {
    case "get":
        return positional.isEmpty ? .run(options, .get) : tooMany()
    case "watch":
        return positional.isEmpty ? .run(options, .watch) : tooMany()
    case "status":
        return positional.isEmpty ? .run(options, .status) : tooMany()
    case "unlock":
        return positional.isEmpty ? .run(options, .unlock) : tooMany()
    case "lock":
        guard positional.count <= 1 else { return tooMany() }
        let name = positional.first ?? "current"
        if name == "current" { return .run(options, .lock(.current)) }
        guard let orientation = Orientation(name: name), orientation != .undefined else {
            return .usageError(
                message: withSuggestion(
                    "cannot lock to '\(name)' (expected current, normal, left-up, bottom-up or right-up)", for: name,
                    among: ["current", "normal", "left-up", "bottom-up", "right-up"]),
                command: command)
        }
        return .run(options, .lock(.orientation(orientation)))
    case "hold":
        guard let maskText = positional.first else {
            return .usageError(message: "hold needs a MASK and a COMMAND", command: command)
        }
        let names = maskText.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for name in names where !RequestDecoder.maskNames.contains(name) {
            return .usageError(
                message: withSuggestion(MaskError.unknownName(name).description, for: name, among: RequestDecoder.maskNames),
                command: command)
        }
        guard let argv = trailing, !argv.isEmpty else {
            return .usageError(message: "hold needs a COMMAND to run after the MASK", command: command)
        }
        return .run(options, .hold(mask: names, argv: argv))
    case "calibrate":
        calibrate.traces = positional
        if let message = calibrate.problem() { return .usageError(message: message, command: command) }
        return .run(options, .calibrate(calibrate))
    case "record":
        guard let path = positional.first else {
            return .usageError(message: "record needs a FILE ('-' for standard output)", command: command)
        }
        guard positional.count == 1 else { return tooMany() }
        return .run(options, .record(path: path, duration: duration))
    case "follow":
        do {
            return .run(options, .follow(try FollowOptions.parse(positional)))
        } catch {
            return .usageError(message: error.description, command: command)
        }
    case "help":
        guard positional.count <= 1 else { return tooMany() }
        guard let name = positional.first else { return .help(command: nil) }
        guard commandNames.contains(name) else {
            return .usageError(
                message: withSuggestion("no command '\(name)' to help with", for: name, among: commandNames), command: nil)
        }
        return .help(command: name == "help" ? nil : name)
    default:
        return .usageError(message: "unknown command '\(command)'", command: nil)
    }
}
