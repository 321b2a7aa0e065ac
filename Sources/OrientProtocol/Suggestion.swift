/// The closest of `candidates` within edit distance 2 of `word` (case-insensitive), if any:
/// the "did you mean" of config keys, commands, options and mask names.
///
/// ```swift
/// suggestion(for: "landscpae", among: ["portrait", "landscape"])  // "landscape"
/// ```
package func suggestion(for word: String, among candidates: [String]) -> String? {
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
