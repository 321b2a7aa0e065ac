/// Hyprland: one `hyprctl --batch` with the monitor's transform and the same
/// transform for touch devices and tablets, which are bound to the monitor.
public struct HyprlandBackend: FollowBackend {
    public init() {}

    public var kind: BackendKind { .hyprland }

    public var outputQuery: [String]? { ["hyprctl", "monitors", "-j"] }

    public func outputNames(fromQuery text: String) throws(FollowError) -> [String] {
        try namesOfJSONArray(text, tool: "hyprctl monitors -j")
    }

    public func commands(for change: OrientationChange, output: String, answers: [String]) -> [[String]] {
        let t = change.transform.hyprland
        var keywords = [
            "keyword monitor \(output),transform,\(t)",
            "keyword input:touchdevice:transform \(t)",
            "keyword input:tablet:transform \(t)",
        ]
        if change.initial {
            keywords += ["keyword input:touchdevice:output \(output)", "keyword input:tablet:output \(output)"]
        }
        return [["hyprctl", "--batch", keywords.joined(separator: " ; ")]]
    }
}
