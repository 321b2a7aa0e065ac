import Foundation

/// How many times slower than a real CPU the machine running these tests is:
/// `ORIENTD_TEST_SLOWDOWN`, 1 when unset. `make check-arm64` runs the tests
/// under qemu-user's TCG and sets it (scripts/trixie/arm64.sh, docs/packaging.md).
///
/// Only budgets that measure nothing but CPU speed are multiplied by it: the
/// suites' time limits, a p99 latency, CPU ticks spent while idle, and the
/// Abuse suite's deadlines for serving and reaping hundreds of clients (each
/// a wait that ends as soon as its condition holds). Other deadlines stay:
/// some bound a wait for something that must not happen, which a factor
/// would only make slower; budgets that count events (messages, wakeups,
/// fds) do not depend on speed.
enum Slowdown {
    static let factor: Int = {
        let text = ProcessInfo.processInfo.environment["ORIENTD_TEST_SLOWDOWN"]
        guard let value = parse(text) else {
            // Rather than testing against budgets nobody chose.
            fatalError("ORIENTD_TEST_SLOWDOWN=\(text ?? ""): expected a whole number from 1 to 100 (how many times slower than a real CPU this machine is)")
        }
        return value
    }()

    /// The factor from the variable's text: unset or empty is 1; anything but
    /// a whole number from 1 to 100 is nil.
    static func parse(_ text: String?) -> Int? {
        guard let text, !text.isEmpty else { return 1 }
        guard let value = Int(text), (1...100).contains(value) else { return nil }
        return value
    }

    /// A time limit in minutes, for `.timeLimit(.minutes(…))`.
    static func minutes(_ minutes: Int) -> Int { minutes * factor }

    /// A budget in milliseconds (or any unit of CPU speed).
    static func scaled(_ budget: Double) -> Double { budget * Double(factor) }
}
