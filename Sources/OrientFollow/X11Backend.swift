/// X11: `xrandr --output NAME --rotate R`, then each touchscreen's and pen's
/// Coordinate Transformation Matrix with `xinput set-prop`. With more than one
/// output connected the matrix would spread touch over the whole X screen, so
/// then `xinput map-to-output` maps each device to the panel instead (xinput
/// computes the matrix from the panel's place and rotation).
public struct X11Backend: FollowBackend {
    /// xinput device names (or ids) disabled while the panel is not in its
    /// natural orientation, e.g. `AT Translated Set 2 keyboard`.
    public var disabledInputs: [String]
    /// Disable the touchpads too (found in the device list by their dependent touch).
    public var disableTouchpads: Bool

    public init(disabledInputs: [String] = [], disableTouchpads: Bool = false) {
        self.disabledInputs = disabledInputs
        self.disableTouchpads = disableTouchpads
    }

    public var kind: BackendKind { .x11 }

    public var outputQuery: [String]? { ["xrandr", "--query"] }

    /// The connected outputs: lines `NAME connected …` at column 0.
    public func outputNames(fromQuery text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard line.first != " ", words.count >= 2, words[1] == "connected" else { return nil }
            return String(words[0])
        }
    }

    public var queries: [[String]] { [["xinput", "list", "--long"], ["xrandr", "--query"]] }

    public func commands(for change: OrientationChange, output: String, answers: [String]) -> [[String]] {
        let transform = change.transform
        var commands = [["xrandr", "--output", output, "--rotate", transform.xrandr]]
        let devices = XInputDevice.pointers(inXInputList: answers.first ?? "")
        let multihead = outputNames(fromQuery: answers.dropFirst().first ?? "").count > 1
        for device in devices where device.kind == .touchscreen || device.kind == .pen {
            if multihead {
                commands.append(["xinput", "map-to-output", String(device.id), output])
            } else {
                commands.append(
                    ["xinput", "set-prop", String(device.id), "Coordinate Transformation Matrix"] + transform.matrix.arguments)
            }
        }
        let action = change.orientation == .normal ? "enable" : "disable"
        for input in disabledInputs {
            commands.append(["xinput", action, input])
        }
        for device in devices where disableTouchpads && device.kind == .touchpad {
            commands.append(["xinput", action, String(device.id)])
        }
        return commands
    }
}
