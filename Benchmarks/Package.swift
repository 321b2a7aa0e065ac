// swift-tools-version:6.0
import PackageDescription

// Benchmarks live in their own package so a plain `swift build` of orientd never
// builds them (`make bench` runs this one in release mode).
let package = Package(
    name: "orientd-benchmarks",
    dependencies: [.package(name: "orientd", path: "..")],
    targets: [
        .executableTarget(
            name: "orientd-bench",
            dependencies: [.product(name: "OrientSense", package: "orientd")]
        )
    ]
)
