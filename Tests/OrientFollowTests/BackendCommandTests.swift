import OrientProtocol
import Testing

@testable import OrientFollow

/// The exact commands each backend issues, built without running anything.
@Suite("Backend commands")
struct BackendCommandTests {
    static func change(_ orientation: Orientation, previous: Orientation = .normal, initial: Bool = false) -> OrientationChange {
        OrientationChange(orientation: orientation, previous: previous, initial: initial)
    }

    @Test("sway sets the transform and, the first time, maps touch and tablet tools to the panel")
    func sway() {
        let sway = SwayBackend()
        #expect(
            sway.commands(for: Self.change(.leftUp, initial: true), output: "eDP-1", answers: []) == [
                ["swaymsg", "output", "eDP-1", "transform", "90"],
                ["swaymsg", "input", "type:touch", "map_to_output", "eDP-1"],
                ["swaymsg", "input", "type:tablet_tool", "map_to_output", "eDP-1"],
            ])
        #expect(sway.commands(for: Self.change(.normal), output: "eDP-1", answers: []) == [["swaymsg", "output", "eDP-1", "transform", "normal"]])
    }

    @Test("sway disables the named inputs away from the natural orientation and enables them back")
    func swayDisablesInputs() {
        let sway = SwayBackend(disabledInputs: ["1:1:AT_Translated_Set_2_keyboard", "type:touchpad"])
        #expect(
            sway.commands(for: Self.change(.bottomUp), output: "DSI-1", answers: []) == [
                ["swaymsg", "output", "DSI-1", "transform", "180"],
                ["swaymsg", "input", "1:1:AT_Translated_Set_2_keyboard", "events", "disabled"],
                ["swaymsg", "input", "type:touchpad", "events", "disabled"],
            ])
        #expect(sway.commands(for: Self.change(.normal), output: "DSI-1", answers: []).last == ["swaymsg", "input", "type:touchpad", "events", "enabled"])
    }

    @Test("Hyprland gets one batch: monitor, touch and tablet transform, and the first time their output")
    func hyprland() {
        #expect(
            HyprlandBackend().commands(for: Self.change(.rightUp, initial: true), output: "eDP-1", answers: []) == [
                [
                    "hyprctl", "--batch",
                    "keyword monitor eDP-1,transform,3 ; keyword input:touchdevice:transform 3 ; keyword input:tablet:transform 3"
                        + " ; keyword input:touchdevice:output eDP-1 ; keyword input:tablet:output eDP-1",
                ]
            ])
        #expect(
            HyprlandBackend().commands(for: Self.change(.leftUp), output: "eDP-1", answers: []) == [
                ["hyprctl", "--batch", "keyword monitor eDP-1,transform,1 ; keyword input:touchdevice:transform 1 ; keyword input:tablet:transform 1"]
            ])
    }

    @Test("niri and wlr-randr set the output's transform")
    func niriAndWlrRandr() {
        #expect(NiriBackend().commands(for: Self.change(.rightUp), output: "eDP-1", answers: []) == [["niri", "msg", "output", "eDP-1", "transform", "270"]])
        #expect(WlrRandrBackend().commands(for: Self.change(.normal), output: "eDP-1", answers: []) == [["wlr-randr", "--output", "eDP-1", "--transform", "normal"]])
    }

    @Test("X11 rotates with xrandr, sets the matrix of every touchscreen and pen by id, and disables keyboard and touchpad")
    func x11() {
        let commands = X11Backend(disabledInputs: ["AT Translated Set 2 keyboard"], disableTouchpads: true)
            .commands(for: Self.change(.leftUp), output: "eDP1", answers: [XInputSamples.laptop, XInputSamples.panelOnly])
        #expect(
            commands == [
                ["xrandr", "--output", "eDP1", "--rotate", "left"],
                ["xinput", "set-prop", "10", "Coordinate Transformation Matrix", "0", "-1", "1", "1", "0", "0", "0", "0", "1"],
                ["xinput", "set-prop", "15", "Coordinate Transformation Matrix", "0", "-1", "1", "1", "0", "0", "0", "0", "1"],
                ["xinput", "set-prop", "16", "Coordinate Transformation Matrix", "0", "-1", "1", "1", "0", "0", "0", "0", "1"],
                ["xinput", "disable", "AT Translated Set 2 keyboard"],
                ["xinput", "disable", "12"],
            ])
    }

    @Test("X11 with a second monitor connected maps each touchscreen and pen to the panel")
    func x11Multihead() {
        let commands = X11Backend().commands(
            for: Self.change(.rightUp), output: "eDP1", answers: [XInputSamples.laptop, XInputSamples.panelAndMonitor])
        #expect(
            commands == [
                ["xrandr", "--output", "eDP1", "--rotate", "right"],
                ["xinput", "map-to-output", "10", "eDP1"],
                ["xinput", "map-to-output", "15", "eDP1"],
                ["xinput", "map-to-output", "16", "eDP1"],
            ])
    }

    @Test("--disable-touchpad is sway's type:touchpad")
    func swayTouchpad() throws {
        var options = FollowOptions()
        options.backend = .sway
        options.disableTouchpad = true
        let plan = try FollowPlan(options: options, environment: [:])
        #expect(try plan.commands(for: Self.change(.leftUp), output: "eDP-1", answers: []).last == ["swaymsg", "input", "type:touchpad", "events", "disabled"])
    }

    @Test("the exec hook runs after the backend's commands with the values in its environment")
    func planWithHook() throws {
        var options = FollowOptions()
        options.backend = .niri
        options.exec = try ExecTemplate("echo {previous}-{orientation}")
        let plan = try FollowPlan(options: options, environment: [:])
        let change = Self.change(.bottomUp, previous: .leftUp)
        #expect(
            try plan.commands(for: change, output: "eDP-1", answers: []) == [
                ["niri", "msg", "output", "eDP-1", "transform", "180"], ["/bin/sh", "-c", "echo left-up-bottom-up"],
            ])
        #expect(
            plan.environment(for: change, output: "eDP-1") == [
                "ORIENTATION": "bottom-up", "PREV_ORIENTATION": "left-up", "ORIENTD_TRANSFORM": "180",
                "ORIENTD_XRANDR": "inverted", "ORIENTD_OUTPUT": "eDP-1",
            ])
    }
}

/// `xinput list --long` as a laptop with a touchscreen, its stylus, a Wacom
/// pen, a touchpad and a keyboard prints it (abridged to the lines that matter).
enum XInputSamples {
    static let panelOnly = """
        Screen 0: minimum 320 x 200, current 1920 x 1080, maximum 16384 x 16384
        eDP1 connected primary 1920x1080+0+0 (normal left inverted right x axis y axis) 309mm x 174mm
        DP1 disconnected (normal left inverted right x axis y axis)
        """
    static let panelAndMonitor = panelOnly + "\nHDMI2 connected 1280x1024+1920+0 (normal left inverted right x axis y axis) 376mm x 301mm\n"

    static let laptop = """
        ⎡ Virtual core pointer                    \tid=2\t[master pointer  (3)]
        \tReporting 3 classes:
        \t\tClass originated from: 10. Type: XITouchClass
        \t\tTouch mode: direct
        \t\tMax number of touches: 10
        ⎜   ↳ Virtual core XTEST pointer              \tid=4\t[slave  pointer  (2)]
        \tReporting 2 classes:
        \t\tClass originated from: 4. Type: XIValuatorClass
        \t\tDetail for Valuator 0:
        \t\t  Label: Rel X
        \t\t  Mode: relative
        ⎜   ↳ ELAN2514:00 04F3:2817                   \tid=10\t[slave  pointer  (2)]
        \tReporting 5 classes:
        \t\tClass originated from: 10. Type: XIValuatorClass
        \t\tDetail for Valuator 0:
        \t\t  Label: Abs MT Position X
        \t\t  Mode: absolute
        \t\tClass originated from: 10. Type: XITouchClass
        \t\tTouch mode: direct
        \t\tMax number of touches: 10
        ⎜   ↳ SYNA8004:00 06CB:CD8B Touchpad          \tid=12\t[slave  pointer  (2)]
        \tReporting 6 classes:
        \t\tClass originated from: 12. Type: XIValuatorClass
        \t\tDetail for Valuator 0:
        \t\t  Label: Rel X
        \t\t  Mode: relative
        \t\tClass originated from: 12. Type: XITouchClass
        \t\tTouch mode: dependent
        ⎜   ↳ ELAN2514:00 04F3:2817 Stylus Pen (0)    \tid=15\t[slave  pointer  (2)]
        \tReporting 4 classes:
        \t\tClass originated from: 15. Type: XIValuatorClass
        \t\tDetail for Valuator 2:
        \t\t  Label: Abs Pressure
        \t\t  Mode: absolute
        ⎜   ↳ Wacom HID 52C2 Pen stylus               \tid=16\t[slave  pointer  (2)]
        \t\tDetail for Valuator 0:
        \t\t  Label: Abs X
        \t\t  Mode: absolute
        \t\tDetail for Valuator 2:
        \t\t  Label: Abs Pressure
        \t\t  Mode: absolute
        ⎣ Virtual core keyboard                   \tid=3\t[master keyboard (2)]
            ↳ AT Translated Set 2 keyboard            \tid=13\t[slave  keyboard (3)]
        \tReporting 1 classes:
        \t\tClass originated from: 13. Type: XIKeyClass
        """
}
