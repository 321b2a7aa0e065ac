extension StringProtocol {
    /// True when `part` occurs in this text, compared as UTF-8 bytes (an empty
    /// `part` always does).
    ///
    /// The standard library's `contains(_:)` for a substring comes from
    /// `_StringProcessing`, and calling it links that module and the regex
    /// parser into orientd (about 1.2 MB of code, some of it resident): the
    /// daemon's substring tests use this instead (docs/architecture.md, Memory).
    public func containsText(_ part: some StringProtocol) -> Bool {
        let text = Array(utf8), needle = Array(part.utf8)
        guard !needle.isEmpty else { return true }
        guard text.count >= needle.count else { return false }
        for start in 0...(text.count - needle.count) where text[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}

/// The closest of `candidates` within edit distance 2 of `word` (case-insensitive), if any:
/// the "did you mean" of config keys, commands, options and mask names.
///
/// ```swift
/// suggestion(for: "landscpae", among: ["portrait", "landscape"])  // "landscape"
/// ```
public func suggestion(for word: String, among candidates: [String]) -> String? {
    let w = Array(word.lowercased().utf8)
    guard w.count <= 64 else { return nil }
    var best: (name: String, distance: Int)?
    for candidate in candidates {
        let d = editDistance(w, Array(candidate.utf8))
        if d <= 2, d < (best?.distance ?? Int.max) { best = (candidate, d) }
    }
    return best?.name
}

/// Levenshtein distance between two byte strings.
func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
        var current = [i + 1] + Array(repeating: 0, count: b.count)
        for (j, y) in b.enumerated() {
            current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
