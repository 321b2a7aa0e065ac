// swift-tools-version:5.4
import PackageDescription

// libFuzzer targets for orientd's parsers (issue 6). A nested package so a plain
// `swift build` of orientd never sees them; `run.sh` builds them with
// `-sanitize=fuzzer,address -parse-as-library` and runs each for FUZZ_SECONDS.
//
// Tools version 5.4 on purpose: from 5.5 on SwiftPM renames an executable's
// `main` symbol (for testable executables), and the link with libFuzzer's own
// `main` then fails ("undefined symbol 'FuzzX_main'"). Under 5.4 an executable
// target's main.swift is linked as is, as in apple/swift-protobuf's FuzzTesting.

/// One fuzz target: main.swift defines LLVMFuzzerTestOneInput (`@_cdecl`);
/// libFuzzer provides `main` (hence `-parse-as-library`). `products` are the
/// orientd libraries holding the code it fuzzes.
func fuzzTarget(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: "orientd") })
}

let package = Package(
    name: "FuzzTesting",
    products: [
        .executable(name: "fuzz-request", targets: ["FuzzRequest"]),
        .executable(name: "fuzz-trace", targets: ["FuzzTrace"]),
        .executable(name: "fuzz-config", targets: ["FuzzConfig"]),
        .executable(name: "fuzz-mount-matrix", targets: ["FuzzMountMatrix"]),
        .executable(name: "fuzz-scan", targets: ["FuzzScan"]),
        .executable(name: "fuzz-dbus", targets: ["FuzzDBus"]),
        .executable(name: "fuzz-sensors", targets: ["FuzzSensors"]),
    ],
    dependencies: [.package(name: "orientd", path: "..")],
    targets: [
        // Invariant checks shared by every target.
        .target(name: "FuzzSupport"),
        fuzzTarget("FuzzRequest", ["OrientProtocol"]),
        fuzzTarget("FuzzTrace", ["OrientProtocol"]),
        fuzzTarget("FuzzConfig", ["OrientConfig", "OrientSense", "OrientAccess", "OrientProtocol"]),
        fuzzTarget("FuzzMountMatrix", ["OrientProtocol"]),
        fuzzTarget("FuzzScan", ["OrientDevices"]),
        fuzzTarget("FuzzDBus", ["OrientSensors", "OrientProtocol"]),
        fuzzTarget("FuzzSensors", ["OrientSensors"]),
    ]
)
