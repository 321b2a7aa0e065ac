import Dispatch

/// Answers typed on standard input (a terminal, or a pipe when driven by a script).
enum Terminal {
    /// One line without its newline; nil at the end of input. Read on a
    /// background thread so the samples keep flowing meanwhile.
    static func readLine() async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Swift.readLine(strippingNewline: true))
            }
        }
    }
}
