// swift-tools-version:5.4
import PackageDescription

// libFuzzer targets for orientd's parsers (issue 6). A nested package so a plain
// `swift build` of orientd never sees them; `run.sh` builds them with
// `-sanitize=fuzzer,address -parse-as-library` and runs each for FUZZ_SECONDS.
//
// Tools version 5.4 on purpose: from 5.5 on SwiftPM renames an executable's
// `main` symbol, and the link with libFuzzer's own `main` then fails
// ("undefined symbol 'FuzzX_main'"). A 5.4 `.target` holding `main.swift` is
// linked as a plain executable, as apple/swift-protobuf's FuzzTesting does.
/// One fuzz target: a plain `.target` whose main.swift defines LLVMFuzzerTestOneInput.
func fuzzTarget(_ name: String) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport", .product(name: "OrientSense", package: "orientd")])
}

let package = Package(
    name: "FuzzTesting",
    products: [
        .executable(name: "fuzz-request", targets: ["FuzzRequest"]),
        .executable(name: "fuzz-trace", targets: ["FuzzTrace"]),
        .executable(name: "fuzz-config", targets: ["FuzzConfig"]),
        .executable(name: "fuzz-mount-matrix", targets: ["FuzzMountMatrix"]),
        .executable(name: "fuzz-scan", targets: ["FuzzScan"]),
    ],
    dependencies: [.package(name: "orientd", path: "..")],
    targets: [
        // Invariant checks shared by every target.
        .target(name: "FuzzSupport"),
        fuzzTarget("FuzzRequest"),
        fuzzTarget("FuzzTrace"),
        fuzzTarget("FuzzConfig"),
        fuzzTarget("FuzzMountMatrix"),
        fuzzTarget("FuzzScan"),
    ]
)
