/// The ways `orientctl follow` can rotate a screen.
public enum BackendKind: String, Sendable, CaseIterable, Equatable {
    case sway
    case hyprland
    case niri
    /// Any wlroots compositor with wlr-output-management (river, labwc, Wayfire, …).
    case wlrRandr = "wlr-randr"
    case x11
    /// Only the `--exec` template.
    case exec

    /// The names `--backend` accepts, in the order the help lists them.
    public static let names = allCases.map(\.rawValue)

    /// The backend of the session described by `environment`: the first of
    /// SWAYSOCK (sway), HYPRLAND_INSTANCE_SIGNATURE (Hyprland), NIRI_SOCKET
    /// (niri), WAYLAND_DISPLAY (wlr-randr) and DISPLAY (X11) that is set and
    /// not empty. sway and Hyprland also set WAYLAND_DISPLAY, and DISPLAY under
    /// Xwayland, hence the order.
    public static func detect(environment: [String: String]) -> BackendKind? {
        let order: [(String, BackendKind)] = [
            ("SWAYSOCK", .sway), ("HYPRLAND_INSTANCE_SIGNATURE", .hyprland), ("NIRI_SOCKET", .niri),
            ("WAYLAND_DISPLAY", .wlrRandr), ("DISPLAY", .x11),
        ]
        return order.first { name, _ in !(environment[name] ?? "").isEmpty }?.1
    }

    /// The socket whose reappearance means the compositor (or X server) has
    /// restarted, so the orientation must be applied again; nil when there is
    /// none to watch (exec, or the variable is unset).
    public static func endpoint(of kind: BackendKind, environment: [String: String]) -> String? {
        func nonEmpty(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        let runtime = nonEmpty("XDG_RUNTIME_DIR")
        switch kind {
        case .sway: return nonEmpty("SWAYSOCK")
        case .niri: return nonEmpty("NIRI_SOCKET")
        case .hyprland:
            guard let signature = nonEmpty("HYPRLAND_INSTANCE_SIGNATURE"), let runtime else { return nil }
            return "\(runtime)/hypr/\(signature)/.socket.sock"
        case .wlrRandr:
            guard let display = nonEmpty("WAYLAND_DISPLAY") else { return nil }
            if display.hasPrefix("/") { return display }
            return runtime.map { "\($0)/\(display)" }
        case .x11:
            // ":0", ":0.0", "unix:0": the local socket /tmp/.X11-unix/X0.
            guard let display = nonEmpty("DISPLAY"), let colon = display.lastIndex(of: ":") else { return nil }
            let host = display[..<colon]
            guard host.isEmpty || host == "unix" else { return nil }
            let number = display[display.index(after: colon)...].prefix { $0.isNumber }
            return number.isEmpty ? nil : "/tmp/.X11-unix/X\(number)"
        case .exec: return nil
        }
    }
}
