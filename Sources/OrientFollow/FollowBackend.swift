public import OrientProtocol

/// One orientation to apply to the panel.
public struct OrientationChange: Sendable, Equatable {
    /// The effective orientation to show.
    public var orientation: Orientation
    /// The one shown before (`undefined` before the first).
    public var previous: Orientation
    /// True for the first application, and after the compositor came back:
    /// set up what only needs setting once (touch mapped to the panel).
    public var initial: Bool

    public init(orientation: Orientation, previous: Orientation, initial: Bool) {
        self.orientation = orientation
        self.previous = previous
        self.initial = initial
    }

    /// The panel's transform for `orientation`.
    public var transform: PanelTransform { PanelTransform(orientation) }
}

/// How one compositor (or X11) is told to rotate: the commands, built without
/// running anything.
public protocol FollowBackend: Sendable {
    var kind: BackendKind { get }

    /// The command that lists the outputs (nil when there is none to ask).
    var outputQuery: [String]? { get }

    /// The output names in what `outputQuery` printed.
    func outputNames(fromQuery text: String) throws(FollowError) -> [String]

    /// Commands whose output `commands` needs (X11's input devices and
    /// outputs), run before each change.
    var queries: [[String]] { get }

    /// The commands that show `change` on `output`; `answers` holds what each
    /// of `queries` printed (empty when it failed).
    func commands(for change: OrientationChange, output: String, answers: [String]) throws(FollowError) -> [[String]]
}

extension FollowBackend {
    public var queries: [[String]] { [] }
}

/// What `tool` printed, parsed as JSON.
func parseJSON(_ text: String, tool: String) throws(FollowError) -> JSONValue {
    do {
        return try JSONParser.parse(Array(text.utf8), maxDepth: 64)
    } catch {
        throw FollowError("\(tool) printed no JSON: \(error)")
    }
}

/// Output names from a JSON array of objects with a `name` (sway, Hyprland).
func namesOfJSONArray(_ text: String, tool: String) throws(FollowError) -> [String] {
    let value = try parseJSON(text, tool: tool)
    guard let array = value.array else {
        throw FollowError("\(tool) printed \(value.kindDescription) where a list of outputs was expected")
    }
    return array.compactMap { $0["name"]?.string }
}
