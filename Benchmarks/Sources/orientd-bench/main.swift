// Classifier throughput: samples per second through OrientationEngine's
// classifier on one core, release build. A figure, not a pass/fail test.
#if canImport(Glibc)
import Glibc
#endif
import OrientProtocol
import OrientSense

func nowNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// A minute of 100 Hz handling: turns every few seconds, hand tremor, noise
/// (deterministic xorshift noise so every run feeds the same samples).
func workload(count: Int) -> [Sample] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func noise() -> Double {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return (Double(state % 10_000) / 10_000 - 0.5) * 0.2
    }
    let g = 9.80665
    var out: [Sample] = []
    out.reserveCapacity(count)
    for i in 0..<count {
        let t = Double(i) * 10
        let phase = (t / 3000).truncatingRemainder(dividingBy: 4).rounded(.down)
        let within = t.truncatingRemainder(dividingBy: 3000)
        let turn = within < 300 ? (1 - cos(.pi * within / 300)) / 2 : 1
        let theta = (phase - 1 + turn) * 90 * .pi / 180 + 0.02 * sin(t / 40)
        let phi = 0.3
        out.append(Sample(
            tMs: t,
            vector: Vector3(g * sin(theta) * cos(phi) + noise(), -g * cos(theta) * cos(phi) + noise(), g * sin(phi) + noise())))
    }
    return out
}

let sampleCount = getenv("BENCH_SAMPLES").flatMap { Int(String(cString: $0)) } ?? 1_000_000
let samples = workload(count: sampleCount)
var best = 0.0
var events = 0
var rates: [Double] = []
for _ in 0..<5 {
    var classifier = Classifier()
    var changes = 0
    let start = nowNs()
    for sample in samples where classifier.process(sample)?.orientationChanged == true { changes += 1 }
    let seconds = Double(nowNs() - start) / 1e9
    rates.append(Double(samples.count) / seconds)
    best = max(best, Double(samples.count) / seconds)
    events = changes
}
let spread = rates.sorted().map { String(Int($0)) }.joined(separator: " ")
let line = "classifier_samples_per_s \(Int(best))  (best of 5 runs over \(samples.count) samples at 100 Hz; \(events) orientation changes per run; all runs: \(spread))\n"
do {
    _ = line.withCString { write(1, $0, strlen($0)) }
}
let environmentOut = getenv("BENCH_OUT").map { String(cString: $0) } ?? "../.build/bench.json"
// The key of issue 7, and every run (scripts/bench/bench.py reports their spread).
let json = "{\"classifier_samples_per_s\": \(Int(best)), \"runs_samples_per_s\": [\(rates.map { String(Int($0)) }.joined(separator: ", "))]}\n"
if let file = fopen(environmentOut, "w") {
    fputs(json, file)
    fclose(file)
}
