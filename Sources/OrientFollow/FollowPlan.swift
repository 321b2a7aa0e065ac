/// What `orientctl follow` runs for each orientation: the backend's commands,
/// then the `--exec` hook, all with the hook's environment variables.
public struct FollowPlan: Sendable {
    public let backend: any FollowBackend
    public let hook: ExecTemplate?
    /// `--output`, when given.
    public let requestedOutput: String?

    /// The built-in keyboard as each backend names it (rot8's default too).
    static let builtInKeyboard: [BackendKind: String] = [
        .sway: "1:1:AT_Translated_Set_2_keyboard",
        .x11: "AT Translated Set 2 keyboard",
    ]

    /// The plan for `options` in a session described by `environment`; the
    /// error says what is missing or unsupported.
    public init(options: FollowOptions, environment: [String: String]) throws(FollowError) {
        guard let kind = options.backend ?? BackendKind.detect(environment: environment) else {
            throw FollowError(
                "no compositor found (none of SWAYSOCK, HYPRLAND_INSTANCE_SIGNATURE, NIRI_SOCKET, WAYLAND_DISPLAY, "
                    + "DISPLAY is set); name one with --backend")
        }
        var disabled = options.disabledInputs
        if options.disableKeyboard {
            guard let keyboard = FollowPlan.builtInKeyboard[kind] else {
                throw FollowError("--disable-keyboard works with sway and x11, not \(kind.rawValue)")
            }
            disabled.append(keyboard)
        }
        if !disabled.isEmpty && kind != .sway && kind != .x11 {
            throw FollowError("--disable-input works with sway and x11, not \(kind.rawValue)")
        }
        if options.disableTouchpad {
            guard kind == .sway || kind == .x11 else {
                throw FollowError("--disable-touchpad works with sway and x11, not \(kind.rawValue)")
            }
            if kind == .sway { disabled.append("type:touchpad") }
        }
        switch kind {
        case .sway: backend = SwayBackend(disabledInputs: disabled)
        case .hyprland: backend = HyprlandBackend()
        case .niri: backend = NiriBackend()
        case .wlrRandr: backend = WlrRandrBackend()
        case .x11: backend = X11Backend(disabledInputs: disabled, disableTouchpads: options.disableTouchpad)
        case .exec: backend = ExecBackend()
        }
        hook = options.exec
        requestedOutput = options.output
    }

    /// Every command for `change` on `output`, in order.
    public func commands(for change: OrientationChange, output: String, answers: [String]) throws(FollowError) -> [[String]] {
        var commands = try backend.commands(for: change, output: output, answers: answers)
        if let hook { commands.append(hook.command(for: change, output: output)) }
        return commands
    }

    /// The variables every command gets besides the inherited environment.
    public func environment(for change: OrientationChange, output: String) -> [String: String] {
        ExecTemplate.environment(for: change, output: output)
    }

    /// The output to rotate, from the backend's answer to `outputQuery` (or
    /// `--output` alone, or nothing, when there is no query).
    public func output(fromQuery text: String?) throws(FollowError) -> String {
        guard let text, backend.outputQuery != nil else { return requestedOutput ?? "" }
        return try InternalPanel.choose(requested: requestedOutput, among: try backend.outputNames(fromQuery: text))
    }
}

/// How a command is shown in the log: words quoted for the shell where needed.
public func commandLine(_ argv: [String]) -> String {
    argv.map(shellQuoted).joined(separator: " ")
}
