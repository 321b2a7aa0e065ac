import Testing

@testable import OrientFollow

/// Reading each tool's output list, finding the built-in panel, and the input devices.
@Suite("Output discovery")
struct OutputDiscoveryTests {
    @Test("sway's and Hyprland's JSON output lists give the names")
    func jsonLists() throws {
        let sway = #"[{"id":3,"type":"output","name":"HDMI-A-1","rect":{"x":0}},{"id":4,"name":"eDP-1","modes":[]}]"#
        #expect(try SwayBackend().outputNames(fromQuery: sway) == ["HDMI-A-1", "eDP-1"])
        #expect(try HyprlandBackend().outputNames(fromQuery: #"[{"id":0,"name":"eDP-1","transform":0}]"#) == ["eDP-1"])
    }

    @Test("niri's JSON object of outputs gives its keys")
    func niri() throws {
        #expect(try NiriBackend().outputNames(fromQuery: #"{"DP-2":{"name":"DP-2"},"eDP-1":{"name":"eDP-1"}}"#) == ["DP-2", "eDP-1"])
    }

    @Test("wlr-randr's and xrandr's text give the outputs; xrandr's only the connected ones")
    func textLists() {
        let wlr = "eDP-1 \"Sharp Corporation 0x14D0 (eDP-1)\"\n  Enabled: yes\n  Modes:\n    2560x1600 px\nDP-1 \"Dell\"\n  Enabled: no\n"
        #expect(WlrRandrBackend().outputNames(fromQuery: wlr) == ["eDP-1", "DP-1"])
        let xrandr = """
            Screen 0: minimum 320 x 200, current 1920 x 1080, maximum 16384 x 16384
            eDP1 connected primary 1920x1080+0+0 (normal left inverted right x axis y axis) 309mm x 174mm
               1920x1080     60.01*+
            DP1 disconnected (normal left inverted right x axis y axis)
            HDMI2 connected 1280x1024+1920+0 (normal left inverted right x axis y axis) 376mm x 301mm
            """
        #expect(X11Backend().outputNames(fromQuery: xrandr) == ["eDP1", "HDMI2"])
    }

    @Test(
        "output lists that are not JSON, or not the expected shape, are errors naming the tool",
        arguments: [("", "swaymsg"), ("{\"name\":1}", "swaymsg"), ("[1,", "hyprctl")])
    func badLists(text: String, tool: String) {
        let backend: any FollowBackend = tool == "swaymsg" ? SwayBackend() : HyprlandBackend()
        #expect(throws: FollowError.self) { try backend.outputNames(fromQuery: text) }
        do {
            _ = try backend.outputNames(fromQuery: text)
        } catch {
            #expect(error.message.hasPrefix(tool))
        }
    }

    @Test(
        "the built-in panel is the first eDP, else DSI, else LVDS output",
        arguments: [
            (["HDMI-A-1", "eDP-1"], "eDP-1" as String?), (["DSI-1", "eDP-2"], "eDP-2"), (["DP-1", "DSI-1"], "DSI-1"),
            (["VGA1", "LVDS1"], "LVDS1"), (["eDP1"], "eDP1"), (["HDMI-A-1", "DP-2"], nil),
        ])
    func internalPanel(outputs: [String], panel: String?) {
        #expect(InternalPanel.find(in: outputs) == panel)
    }

    @Test("a named output must be one of the compositor's; no panel and no name is an error saying what was found")
    func choose() throws {
        #expect(try InternalPanel.choose(requested: "HEADLESS-1", among: ["HEADLESS-1"]) == "HEADLESS-1")
        #expect(throws: FollowError("output 'eDP-9' is not among the compositor's outputs (eDP-1, DP-1)")) {
            try InternalPanel.choose(requested: "eDP-9", among: ["eDP-1", "DP-1"])
        }
        #expect(
            throws: FollowError("no built-in panel (eDP, DSI or LVDS) among the compositor's outputs (HEADLESS-1); name one with --output")
        ) {
            try InternalPanel.choose(requested: nil, among: ["HEADLESS-1"])
        }
    }

    @Test("xinput's touchscreens and pens are found; touchpads, mice, keyboards and masters are not")
    func xinputDevices() {
        #expect(
            XInputDevice.touchAndPen(inXInputList: XInputSamples.laptop) == [
                XInputDevice(id: 10, name: "ELAN2514:00 04F3:2817", kind: .touchscreen),
                XInputDevice(id: 15, name: "ELAN2514:00 04F3:2817 Stylus Pen (0)", kind: .pen),
                XInputDevice(id: 16, name: "Wacom HID 52C2 Pen stylus", kind: .pen),
            ])
        #expect(
            XInputDevice.pointers(inXInputList: XInputSamples.laptop).map(\.kind) == [
                .other, .touchscreen, .touchpad, .pen, .pen,
            ])
        #expect(XInputDevice.touchAndPen(inXInputList: "garbage\n\tid=x\n") == [])
    }
}
