/// `orientctl follow`'s own options, validated.
public struct FollowOptions: Sendable, Equatable {
    /// `--backend`; nil: chosen from the environment.
    public var backend: BackendKind?
    /// `--output`; nil: the built-in panel among the compositor's outputs.
    public var output: String?
    /// `--exec`: run after the backend's commands (alone when the backend is `exec`).
    public var exec: ExecTemplate?
    /// `--timeout`: seconds one command may take before it is killed.
    public var timeout: Double = 5
    /// `--compositor-timeout`: seconds a compositor that went away (its socket
    /// removed) may take to come back before follow stops.
    public var compositorTimeout: Double = 10
    /// `--disable-input` (and `--disable-keyboard`): inputs disabled while the
    /// panel is not in its natural orientation.
    public var disabledInputs: [String] = []
    /// `--disable-keyboard`: the built-in keyboard among them.
    public var disableKeyboard = false
    /// `--disable-touchpad`: the touchpads among them.
    public var disableTouchpad = false

    public init() {}

    /// The options `parse` understands, for the help and for suggestions.
    public static let names = [
        "--backend", "--output", "--exec", "--timeout", "--compositor-timeout", "--disable-input", "--disable-keyboard", "--disable-touchpad",
    ]

    /// Parses the words after `follow` (global options already taken out).
    /// Values follow their option as the next word or after `=`.
    public static func parse(_ words: [String]) throws(FollowError) -> FollowOptions {
        var options = FollowOptions()
        var index = 0
        while index < words.count {
            let word = words[index]
            var name = word
            var inlineValue: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            func value() throws(FollowError) -> String {
                if let inlineValue { return inlineValue }
                index += 1
                guard index < words.count else { throw FollowError("\(name) needs a value") }
                return words[index]
            }
            switch name {
            case "--backend":
                let text = try value()
                guard let kind = BackendKind(rawValue: text) else {
                    throw FollowError("unknown backend '\(text)' (expected \(BackendKind.names.joined(separator: ", ")))")
                }
                options.backend = kind
            case "--output":
                options.output = try validOutputName(try value())
            case "--exec":
                options.exec = try ExecTemplate(try value())
            case "--timeout":
                options.timeout = try seconds(try value(), for: name)
            case "--compositor-timeout":
                options.compositorTimeout = try seconds(try value(), for: name)
            case "--disable-input":
                options.disabledInputs.append(try validInputName(try value()))
            case "--disable-keyboard" where inlineValue == nil:
                options.disableKeyboard = true
            case "--disable-touchpad" where inlineValue == nil:
                options.disableTouchpad = true
            default:
                if word.hasPrefix("-") { throw FollowError("unknown option '\(word)' for follow") }
                throw FollowError("unexpected argument '\(word)'")
            }
            index += 1
        }
        if options.backend == nil, options.exec != nil { options.backend = .exec }
        if options.backend == .exec, options.exec == nil {
            throw FollowError("--backend exec needs --exec TEMPLATE")
        }
        return options
    }

    /// A number of seconds in (0, 3600].
    static func seconds(_ text: String, for option: String) throws(FollowError) -> Double {
        guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 3600 else {
            throw FollowError("\(option) needs a number of seconds between 0 and 3600, not '\(text)'")
        }
        return seconds
    }

    /// Output names are connector names (eDP-1, DSI-1, HEADLESS-1): letters,
    /// digits and `-_.:`; anything else would be read as syntax by the
    /// compositors' command languages.
    public static func validOutputName(_ name: String) throws(FollowError) -> String {
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.:".unicodeScalars.contains(scalar))
        }
        guard !name.isEmpty, name.count <= 64, allowed else {
            throw FollowError("bad output name '\(name)': use the connector name, e.g. eDP-1 (letters, digits, - _ . :)")
        }
        return name
    }

    /// Input names are sway identifiers or X input device names: printable,
    /// without the `"`, `,` and `;` that sway's command language would split on.
    public static func validInputName(_ name: String) throws(FollowError) -> String {
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            !scalar.properties.generalCategory.isControl && !"\",;".unicodeScalars.contains(scalar)
        }
        guard !name.isEmpty, name.count <= 128, allowed else {
            throw FollowError("bad input name '\(name)': printable text without '\"', ',' or ';'")
        }
        return name
    }
}

extension Unicode.GeneralCategory {
    var isControl: Bool {
        switch self {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}
