import Testing

@testable import OrientProtocol

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
