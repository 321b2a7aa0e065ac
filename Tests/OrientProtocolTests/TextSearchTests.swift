import Testing


/// `containsText`, the substring test that keeps `_StringProcessing` out of orientd.
@Suite("Text search")
struct TextSearchTests {
    @Test(
        "a substring is found wherever it is, and only when it is there",
        arguments: [
            ("card0-eDP-1", "-eDP-", true), ("card0-DSI-1", "-DSI-", true), ("-LVDS-", "-LVDS-", true),
            ("card0-HDMI-A-1", "-eDP-", false), ("-eD", "-eDP-", false), ("abc", "", true), ("", "", true),
            ("", "a", false), ("aab", "ab", true), ("x; y", "x; y; z", false), ("tilt ≥ 45°", "45°", true),
        ])
    func search(text: String, part: String, found: Bool) {
        #expect(text.containsText(part) == found)
        #expect(text[...].containsText(part[...]) == found)
    }
}
