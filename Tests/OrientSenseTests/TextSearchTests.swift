import Testing

import OrientSense

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

/// `suggestion`, the "did you mean" of config keys, commands, options and mask names.
@Suite("Did you mean")
struct SuggestionTests {
    @Test(
        "the nearest candidate within two edits is suggested, and nothing further away",
        arguments: [
            ("stauts", "status"), ("landscpae", "landscape"), ("Landscape", "landscape"), ("lef-up", "left-up"),
            ("--jsno", "--json"), ("portrait", "portrait"), ("sideways", nil), ("", nil),
        ] as [(String, String?)])
    func nearest(word: String, expected: String?) {
        let candidates = ["status", "landscape", "portrait", "left-up", "right-up", "--json", "--socket"]
        #expect(suggestion(for: word, among: candidates) == expected)
    }
}
