// swift-tools-version:6.0
// The oldest toolchain supported is 6.0.3, Debian 13's swiftlang: `make check-trixie` builds and tests with it.
import PackageDescription

/// Settings every target shares: Swift 6 language mode (strict concurrency is
/// implied), and the upcoming features the house style asks for.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

var package = Package(
    name: "orientd",
    products: [
        .executable(name: "orientd", targets: ["orientd"]),
        .executable(name: "orientctl", targets: ["orientctl"]),
        .library(name: "OrientClient", targets: ["OrientClient"]),
        .library(name: "OrientProtocol", targets: ["OrientProtocol"]),
        .library(name: "OrientSense", targets: ["OrientSense"]),
        .library(name: "OrientDevices", targets: ["OrientDevices"]),
        .library(name: "OrientConfig", targets: ["OrientConfig"]),
        .library(name: "OrientAccess", targets: ["OrientAccess"]),
        .library(name: "OrientSensors", targets: ["OrientSensors"]),
    ],
    targets: [
        // libudev's header (Debian: libudev-dev), linked. No libiio: buffered
        // capture reads sysfs and /dev/iio:deviceN itself (IIOBuffer.swift),
        // keeping libiio's libxml2, ICU, avahi and D-Bus out of the daemon;
        // only `--version` dlopens it, when installed, to name its version.
        .systemLibrary(name: "CIIO"),
        // libsystemd: the daemon API (sd_notify, sd_listen_fds, watchdog) and sd-bus.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // epoll, timerfd, signalfd and SO_PEERCRED, which Glibc's module lacks.
        .systemLibrary(name: "CLinux"),
        // libevdev: input-subsystem accelerometers and proximity switches (Evdev.swift).
        .systemLibrary(
            name: "CEvdev",
            pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]
        ),
        // What daemon and apps share: orientation names and masks, the state,
        // request and reply messages, JSON, the trace format. No C, no I/O;
        // its one system call is MonotonicClock's clock read (package access).
        .target(name: "OrientProtocol"),
        // The orientation core: classifier, arbiter, engine, the learned g and
        // the hinge. Pure: no C, no I/O, no clocks.
        .target(name: "OrientSense", dependencies: ["OrientProtocol"]),
        // Sensor devices as the kernel describes them, as pure rules: the IIO
        // scan format and scan selection, axis scales, the mount matrix's
        // source, which accelerometer to use and at what rate. No C, no I/O.
        .target(name: "OrientDevices", dependencies: ["OrientProtocol"]),
        // Who may do what: principals, the policies a config chooses among. Pure.
        .target(name: "OrientAccess"),
        // /etc/orientd/orientd.conf: its keys, parser and validation. Pure.
        .target(name: "OrientConfig", dependencies: ["OrientSense", "OrientDevices", "OrientAccess", "OrientProtocol"]),
        // The sensors beside the accelerometer as pure rules: sensor kinds, light
        // channels and units, proximity hysteresis, the compass heading. No C, no I/O.
        .target(name: "OrientSensors", dependencies: ["OrientProtocol"]),
        // Synthetic trajectories (seeded noise, linear acceleration, tilt) for tests and traces/.
        .target(name: "OrientSynth", dependencies: ["OrientSense", "OrientProtocol"]),
        // The daemon's I/O: mock replay, (later) sensors, event loop, socket server.
        .target(
            name: "OrientDaemon",
            dependencies: [
                "OrientSense", "OrientDevices", "OrientAccess", "OrientConfig", "OrientSensors", "OrientProtocol", "CIIO", "CLinux", "CSystemd", "CEvdev"]),
        .executableTarget(
            name: "orientd",
            dependencies: ["OrientDaemon", "OrientConfig", "OrientSense", "OrientProtocol"],
            exclude: ["link"],
            // Release links with lld: DT_RELR packs the relative relocations
            // read at every start (fewer dirty pages at no cost), and identical
            // code folding merges Swift's many identical thunks and
            // specialisations (a smaller binary). link/libstdc++.so makes the
            // static Swift runtime's -lstdc++ take libstdc++.a, and
            // --no-export-dynamic undoes the runtime's -export-dynamic:
            // nothing looks orientd's symbols up, so the dynamic symbol table
            // the loader would relocate stays small.
            // docs/architecture.md, Memory, has the figures (`make bench`
            // measures them). These flags are unsafe to SwiftPM, so only
            // this executable carries them: nothing OrientClient reaches may.
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--icf=all",
                        "-L\(Context.packageDirectory)/Sources/orientd/link", "-Xlinker", "--no-export-dynamic",
                    ],
                    .when(platforms: [.linux], configuration: .release))
            ]
        ),
        .executableTarget(name: "tracegen", dependencies: ["OrientSynth", "OrientSense", "OrientProtocol"]),
        // The client library for apps: the socket protocol only, never the
        // classifier, the config parser, libiio or libudev. Nothing it reaches
        // may carry unsafe flags (scripts/check-client-closure.py).
        .target(name: "OrientClient", dependencies: ["OrientProtocol"]),
        // The calibration's maths: rest detection, the mount-matrix fit and its
        // checks, hwdb match keys. Pure; never the classifier.
        .target(name: "OrientCalibration", dependencies: ["OrientProtocol"]),
        // What `orientctl follow` runs for each compositor: mapping tables,
        // matrices, templates and command lines, built without running anything.
        .target(name: "OrientFollow", dependencies: ["OrientProtocol"]),
        .executableTarget(
            name: "orientctl", dependencies: ["OrientClient", "OrientProtocol", "OrientCalibration", "OrientFollow"]),
        // What the Swift test targets share (thrownError).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "OrientFollowTests", dependencies: ["OrientFollow", "OrientProtocol"]),
        .testTarget(name: "OrientClientTests", dependencies: ["OrientClient", "OrientProtocol"]),
        // OrientSynth for its seeded generator only.
        .testTarget(name: "OrientProtocolTests", dependencies: ["OrientProtocol", "OrientSynth", "TestSupport"]),
        .testTarget(name: "OrientSenseTests", dependencies: ["OrientSense", "OrientProtocol", "OrientSynth", "TestSupport"]),
        .testTarget(name: "OrientDevicesTests", dependencies: ["OrientDevices", "OrientProtocol", "TestSupport"]),
        .testTarget(
            name: "OrientConfigTests",
            dependencies: ["OrientConfig", "OrientSense", "OrientDevices", "OrientAccess", "OrientProtocol", "TestSupport"]),
        .testTarget(name: "OrientSensorsTests", dependencies: ["OrientSensors", "OrientProtocol", "TestSupport"]),
        .testTarget(name: "OrientCalibrationTests", dependencies: ["OrientCalibration", "OrientProtocol"]),
        .testTarget(
            name: "OrientdIntegrationTests",
            dependencies: ["OrientSense", "OrientProtocol", "OrientClient", "OrientSynth", "CLinux"]
        ),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings
}
