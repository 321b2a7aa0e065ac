/// sway: `swaymsg output NAME transform T`; touchscreens and pens are mapped
/// to the panel (`map_to_output`) and wlroots then turns their input with it.
public struct SwayBackend: FollowBackend {
    /// sway input identifiers (`type:keyboard`, `1:1:AT_Translated_Set_2_keyboard`)
    /// whose events are disabled while the panel is not in its natural orientation.
    public var disabledInputs: [String]

    public init(disabledInputs: [String] = []) {
        self.disabledInputs = disabledInputs
    }

    public var kind: BackendKind { .sway }

    public var outputQuery: [String]? { ["swaymsg", "-t", "get_outputs", "--raw"] }

    public func outputNames(fromQuery text: String) throws(FollowError) -> [String] {
        try namesOfJSONArray(text, tool: "swaymsg -t get_outputs")
    }

    public func commands(for change: OrientationChange, output: String, answers: [String]) -> [[String]] {
        var commands = [["swaymsg", "output", output, "transform", change.transform.wlOutputName]]
        if change.initial {
            for type in ["touch", "tablet_tool"] {
                commands.append(["swaymsg", "input", "type:\(type)", "map_to_output", output])
            }
        }
        let events = change.orientation == .normal ? "enabled" : "disabled"
        for input in disabledInputs {
            commands.append(["swaymsg", "input", input, "events", events])
        }
        return commands
    }
}
