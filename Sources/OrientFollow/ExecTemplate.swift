/// The `--exec` template: a shell command run (by `/bin/sh -c`) on every
/// orientation change, with placeholders in braces.
///
/// | placeholder     | value                                     | environment        |
/// |-----------------|-------------------------------------------|--------------------|
/// | `{orientation}` | normal, left-up, bottom-up, right-up      | `ORIENTATION`      |
/// | `{previous}`    | the one before (`undefined` at first)     | `PREV_ORIENTATION` |
/// | `{transform}`   | wl_output transform: 0, 90, 180, 270      | `ORIENTD_TRANSFORM`|
/// | `{xrandr}`      | normal, left, inverted, right             | `ORIENTD_XRANDR`   |
/// | `{output}`      | the panel's output name (may be empty)    | `ORIENTD_OUTPUT`   |
///
/// `{{` and `}}` stand for literal braces. Values are quoted for the shell
/// where they need it, so an output name cannot inject a command.
///
/// ```swift
/// let hook = try ExecTemplate("notify-send 'Rotated to {orientation}'")
/// ```
public struct ExecTemplate: Sendable, Equatable {
    public static let placeholders = ["orientation", "previous", "transform", "xrandr", "output"]

    enum Piece: Sendable, Equatable {
        case text(String)
        case placeholder(String)
    }

    /// The template as given.
    public let source: String
    let pieces: [Piece]

    /// Parses `source`; the error names the column and what is wrong.
    public init(_ source: String) throws(FollowError) {
        self.source = source
        guard !source.trimmed([" ", "\t", "\n"]).isEmpty else {
            throw FollowError("--exec needs a command (the template is empty)")
        }
        var pieces: [Piece] = []
        var text = ""
        var index = source.startIndex
        func column(_ i: String.Index) -> Int { source.distance(from: source.startIndex, to: i) + 1 }
        while index < source.endIndex {
            let character = source[index]
            let next = source.index(after: index)
            let doubled = next < source.endIndex && source[next] == character
            switch character {
            case "{" where doubled, "}" where doubled:
                text.append(character)
                index = source.index(after: next)
            case "{":
                guard let close = source[next...].firstIndex(of: "}") else {
                    throw FollowError("--exec template: '{' at column \(column(index)) is not closed (write '{{' for a brace)")
                }
                let name = String(source[next..<close])
                guard ExecTemplate.placeholders.contains(name) else {
                    throw FollowError(
                        "--exec template: unknown placeholder '{\(name)}' at column \(column(index)) (known: "
                            + ExecTemplate.placeholders.map { "{\($0)}" }.joined(separator: ", ") + ")")
                }
                if !text.isEmpty { pieces.append(.text(text)) }
                text = ""
                pieces.append(.placeholder(name))
                index = source.index(after: close)
            case "}":
                throw FollowError("--exec template: '}' at column \(column(index)) closes nothing (write '}}' for a brace)")
            default:
                text.append(character)
                index = next
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// The placeholders' values for `change` on `output`.
    public static func values(for change: OrientationChange, output: String) -> [String: String] {
        [
            "orientation": change.orientation.rawValue,
            "previous": change.previous.rawValue,
            "transform": String(change.transform.degrees),
            "xrandr": change.transform.xrandr,
            "output": output,
        ]
    }

    /// The same values as environment variables (rot8's hook names for the two orientations).
    public static func environment(for change: OrientationChange, output: String) -> [String: String] {
        let values = values(for: change, output: output)
        let names = [
            "orientation": "ORIENTATION", "previous": "PREV_ORIENTATION", "transform": "ORIENTD_TRANSFORM",
            "xrandr": "ORIENTD_XRANDR", "output": "ORIENTD_OUTPUT",
        ]
        var environment: [String: String] = [:]
        for (key, value) in values {
            if let name = names[key] { environment[name] = value }
        }
        return environment
    }

    /// The shell command for `change` on `output`.
    public func expanded(for change: OrientationChange, output: String) -> String {
        let values = ExecTemplate.values(for: change, output: output)
        return pieces.map { piece in
            switch piece {
            case .text(let text): return text
            case .placeholder(let name): return shellQuoted(values[name] ?? "")
            }
        }.joined()
    }

    /// The argv that runs the expanded template.
    public func command(for change: OrientationChange, output: String) -> [String] {
        ["/bin/sh", "-c", expanded(for: change, output: output)]
    }
}

/// `value` as one shell word: unchanged when it is made only of characters the
/// shell leaves alone, else in single quotes.
public func shellQuoted(_ value: String) -> String {
    let plain = !value.isEmpty && value.unicodeScalars.allSatisfy { scalar in
        (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
            || "-_./:=+@%,".unicodeScalars.contains(scalar)
    }
    if plain { return value }
    return "'" + value.replacing("'", with: "'\\''") + "'"
}
