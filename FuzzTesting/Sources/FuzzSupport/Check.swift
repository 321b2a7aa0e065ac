#if canImport(Glibc)
import Glibc
#endif

/// Stops the fuzzer with `message` when an invariant does not hold: libFuzzer
/// treats the abort as a crash and saves the input as `crash-<sha1>`.
///
/// Written with `write(2)`: no Foundation, no C `stderr` global.
public func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if condition() { return }
    let text = "\n*** fuzz invariant failed at \(file):\(line): \(message())\n"
    text.utf8CString.withUnsafeBufferPointer { buffer in
        _ = write(2, buffer.baseAddress, buffer.count - 1)
    }
    abort()
}

/// The bytes libFuzzer hands over, as a buffer (empty input: an empty buffer).
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: size > 0 ? data : nil, count: size)
}

/// Whether two doubles are the same value, NaN equal to NaN (and -0 to 0, as `==` has it).
public func sameDouble(_ a: Double, _ b: Double) -> Bool {
    a == b || (a.isNaN && b.isNaN)
}

/// A short, printable rendering of `s` for invariant messages.
public func shown(_ s: String) -> String {
    var out = ""
    for scalar in s.unicodeScalars.prefix(200) {
        out += scalar.escaped(asASCII: true)
    }
    return s.unicodeScalars.count > 200 ? out + "…" : out
}

/// Known issue, reported with issue 6's fuzzing note and pinned by
/// FuzzRegressionTests ("a mount matrix whose x × y overflows …"): when |x × y|
/// of the parsed x and y rows overflows to infinity (entries around 1e150 and
/// up), MountMatrix's validation takes every z row for degenerate and rebuilds
/// it as x × y / ∞ = 0, so the parser returns a zero z row whose description
/// does not parse. Harnesses skip the invariants that finding breaks while it
/// is open; remove this once the parser refuses such matrices.
public func overflowsCrossProduct(_ x: SIMD3<Double>, _ y: SIMD3<Double>) -> Bool {
    let xy = SIMD3(x.y * y.z - x.z * y.y, x.z * y.x - x.x * y.z, x.x * y.y - x.y * y.x)
    return !(xy * xy).sum().isFinite
}
