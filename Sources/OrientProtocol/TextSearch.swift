extension StringProtocol {
    /// True when `part` occurs in this text, compared as UTF-8 bytes (an empty
    /// `part` always does).
    ///
    /// The standard library's `contains(_:)` for a substring comes from
    /// `_StringProcessing`, and calling it links that module and the regex
    /// parser into orientd: the daemon's substring tests use this instead
    /// (docs/architecture.md, Memory, says what it costs).
    package func containsText(_ part: some StringProtocol) -> Bool {
        let text = Array(utf8), needle = Array(part.utf8)
        guard !needle.isEmpty else { return true }
        guard text.count >= needle.count else { return false }
        for start in 0...(text.count - needle.count) where text[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}
