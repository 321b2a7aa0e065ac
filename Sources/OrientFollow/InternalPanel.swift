/// Finding the built-in panel among a compositor's outputs.
public enum InternalPanel {
    /// Connector name prefixes of built-in panels: embedded DisplayPort, MIPI
    /// DSI and LVDS. X11 drivers drop the dash (`eDP1`), some spell it `eDP-1`.
    public static let prefixes = ["eDP", "DSI", "LVDS"]

    /// The first output whose name starts with a built-in prefix (in the order
    /// of `prefixes`, then as listed), or nil.
    public static func find(in outputs: [String]) -> String? {
        for prefix in prefixes {
            if let name = outputs.first(where: { $0.lowercased().hasPrefix(prefix.lowercased()) }) { return name }
        }
        return nil
    }

    /// The output to rotate: `requested` when given (it must be among
    /// `outputs`), else the built-in panel. The error says what was found.
    public static func choose(requested: String?, among outputs: [String]) throws(FollowError) -> String {
        let listed = outputs.isEmpty ? "none" : outputs.joined(separator: ", ")
        if let requested {
            guard outputs.contains(requested) else {
                throw FollowError("output '\(requested)' is not among the compositor's outputs (\(listed))")
            }
            return requested
        }
        guard let panel = find(in: outputs) else {
            throw FollowError(
                "no built-in panel (eDP, DSI or LVDS) among the compositor's outputs (\(listed)); name one with --output")
        }
        return panel
    }
}
