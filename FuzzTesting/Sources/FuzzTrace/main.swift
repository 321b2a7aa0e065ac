// fuzz-trace: a whole trace file through TraceReader.parse.
//
// Invariants beyond "no crash":
// - a parsed trace serialises to text that parses to the same trace (NaN samples
//   equal to NaN) and serialises again to the same text;
// - what the reader promises holds: at least one sample, finite non-decreasing
//   times, a positive rate; base samples only with the base columns, their
//   times finite and non-decreasing too;
// - an error names the file, a line from 1 to the file's line count + 1 and a
//   column from 1 to that line's length + 1, and has a message.
import FuzzSupport
import OrientProtocol

let fileName = "fuzz.trace"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTrace(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let trace: Trace
    do {
        trace = try TraceReader.parse(bytes, file: fileName)
    } catch {
        checkError(error, bytes)
        return 0
    }
    fuzzCheck(!trace.samples.isEmpty, "a parsed trace without samples")
    var last = -Double.infinity
    for sample in trace.samples {
        fuzzCheck(sample.tMs.isFinite && sample.tMs >= last, "sample time \(sample.tMs) after \(last)")
        last = sample.tMs
    }
    if let rate = trace.rateHz { fuzzCheck(rate > 0 && rate.isFinite, "rate_hz \(rate)") }
    // The base's samples: finite non-decreasing times, and a column for them.
    last = -Double.infinity
    for sample in trace.baseSamples {
        fuzzCheck(sample.tMs.isFinite && sample.tMs >= last, "base sample time \(sample.tMs) after \(last)")
        last = sample.tMs
    }
    fuzzCheck(trace.baseSamples.isEmpty || trace.columns.contains(.base), "base samples without base columns")
    fuzzCheck(Set(trace.columns).count == trace.columns.count, "a column twice: \(trace.columns)")

    let text = trace.serialized()
    let again: Trace
    do {
        again = try TraceReader.parse(Array(text.utf8), file: fileName)
    } catch {
        fuzzCheck(false, "the serialised trace does not parse: \(error)\n\(shown(String(text.prefix(400))))")
        return 0
    }
    fuzzCheck(sameTrace(trace, again), "the serialised trace parses to a different trace\n\(shown(String(text.prefix(400))))")
    fuzzCheck(again.serialized() == text, "serialising twice gives different text")
    return 0
}

func checkError(_ error: TraceError, _ bytes: UnsafeBufferPointer<UInt8>) {
    fuzzCheck(error.file == fileName, "error names file \(error.file)")
    fuzzCheck(!error.message.isEmpty, "error without a message")
    let lines = lineLengths(bytes)
    fuzzCheck(error.line >= 1 && error.line <= lines.count + 1, "error line \(error.line) of \(lines.count): \(error)")
    let length = error.line <= lines.count ? lines[error.line - 1] : 0
    fuzzCheck(error.column >= 1 && error.column <= length + 1, "error column \(error.column), line length \(length): \(error)")
}

/// Each line's length in Unicode scalars (bytes that are not UTF-8 continuation
/// bytes), a BOM on line 1 not counted.
func lineLengths(_ bytes: UnsafeBufferPointer<UInt8>) -> [Int] {
    var lengths: [Int] = []
    var current = 0
    var start = 0
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
    guard start < bytes.count else { return [] }
    for byte in bytes[start...] {
        if byte == 0x0A {
            lengths.append(current)
            current = 0
        } else if byte & 0xC0 != 0x80 {
            current += 1
        }
    }
    if bytes.last != 0x0A { lengths.append(current) }
    return lengths
}

/// `Trace ==`, but with NaN components equal (corrupted-sensor traces hold
/// them), in the display's samples and the base's.
func sameTrace(_ a: Trace, _ b: Trace) -> Bool {
    var aa = a, bb = b
    aa.samples = []
    bb.samples = []
    aa.baseSamples = []
    bb.baseSamples = []
    return aa == bb && sameSamples(a.samples, b.samples) && sameSamples(a.baseSamples, b.baseSamples)
}

func sameSamples(_ a: [Sample], _ b: [Sample]) -> Bool {
    guard a.count == b.count else { return false }
    for (s, t) in zip(a, b) {
        guard s.tMs == t.tMs, sameDouble(s.vector.x, t.vector.x), sameDouble(s.vector.y, t.vector.y),
            sameDouble(s.vector.z, t.vector.z)
        else { return false }
    }
    return true
}
