import OrientProtocol

/// What the command line asks for.
enum Invocation: Equatable {
    /// Print help (the whole tool's when `command` is nil) and exit 0.
    case help(command: String?)
    /// A usage error: print `message` and the hint for `command`, exit 64.
    case usageError(message: String, command: String?)
    case run(Options, Command)
}

/// Options that apply to every command.
struct Options: Equatable {
    var socket: String?
    var json = false
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
}

/// The command names, in the order the help lists them.
let commandNames = ["get", "watch", "lock", "unlock", "hold", "record"]

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
        case "-":
            positional.append(argument)
        case _ where argument.hasPrefix("-"):
            return .usageError(message: "unknown option '\(argument)'", command: command)
        default:
            if command == nil {
                guard commandNames.contains(argument) else {
                    return .usageError(message: "unknown command '\(argument)'", command: nil)
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
    case "unlock":
        return positional.isEmpty ? .run(options, .unlock) : tooMany()
    case "lock":
        guard positional.count <= 1 else { return tooMany() }
        let name = positional.first ?? "current"
        if name == "current" { return .run(options, .lock(.current)) }
        guard let orientation = Orientation(name: name), orientation != .undefined else {
            return .usageError(
                message: "cannot lock to '\(name)' (expected current, normal, left-up, bottom-up or right-up)",
                command: command)
        }
        return .run(options, .lock(.orientation(orientation)))
    case "hold":
        guard let maskText = positional.first else {
            return .usageError(message: "hold needs a MASK and a COMMAND", command: command)
        }
        let names = maskText.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for name in names where !RequestDecoder.maskNames.contains(name) {
            return .usageError(message: MaskError.unknownName(name).description, command: command)
        }
        guard let argv = trailing, !argv.isEmpty else {
            return .usageError(message: "hold needs a COMMAND to run after the MASK", command: command)
        }
        return .run(options, .hold(mask: names, argv: argv))
    case "record":
        guard let path = positional.first else {
            return .usageError(message: "record needs a FILE ('-' for standard output)", command: command)
        }
        guard positional.count == 1 else { return tooMany() }
        return .run(options, .record(path: path, duration: duration))
    default:
        return .usageError(message: "unknown command '\(command)'", command: nil)
    }
}
