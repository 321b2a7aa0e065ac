// swift-tools-version:6.0
import PackageDescription

// A tiny app built on orientd's client library, as an app outside this
// repository would use it: it depends on the package by path (an app would
// name the repository's URL and a version) and takes only the OrientClient and
// OrientProtocol products. `make check` builds it and checks that the binary
// holds nothing of the classifier, the config parser or the daemon.
let package = Package(
    name: "orientd-example",
    dependencies: [.package(name: "orientd", path: "..")],
    targets: [
        .executableTarget(
            name: "orient-example",
            dependencies: [
                .product(name: "OrientClient", package: "orientd"),
                .product(name: "OrientProtocol", package: "orientd"),
            ],
            path: "Sources/OrientExample",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault")]
        )
    ]
)
