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

