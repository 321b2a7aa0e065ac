#if canImport(Glibc)
import Glibc
#endif

/// The process environment without Foundation.
package enum ProcessInfoLite {
    /// Every `KEY=value` pair of the environment.
    package static func environment() -> [(String, String)] {
        var out: [(String, String)] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                out.append((String(text[..<eq]), String(text[text.index(after: eq)...])))
            }
            pointer += 1
        }
        return out
    }
}
