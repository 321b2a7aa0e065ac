// swift-tools-version:6.0
import PackageDescription

// Benchmarks live in their own package so a plain `swift build` of orientd never
// builds them. `make bench` builds this one in release mode; scripts/bench/bench.py
// runs its two executables next to the daemon's release build:
//   orientd-bench   classifier throughput (OrientSense, in process)
//   orientd-fanout  publish -> receipt across N subscribers of a running orientd
let package = Package(
    name: "orientd-benchmarks",
    dependencies: [.package(name: "orientd", path: "..")],
    targets: [
        .executableTarget(
            name: "orientd-bench",
            dependencies: [
                .product(name: "OrientSense", package: "orientd"), .product(name: "OrientProtocol", package: "orientd"),
            ]
        ),
        .target(name: "CBench"),
        .executableTarget(name: "orientd-fanout", dependencies: ["CBench"]),
    ]
)
