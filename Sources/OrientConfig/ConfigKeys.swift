// The config keys: every section and key ConfigParser knows, the kind of
// value each takes and where it goes in DaemonConfig.
import OrientProtocol
import OrientSense
import OrientDevices
import OrientAccess

// MARK: - Keys

/// How a key's value is read and where it goes.
enum ValueKind: Sendable {
    /// A decimal number within a range.
    case boundedNumber(ClosedRange<Double>, unit: String, @Sendable (inout DaemonConfig, Double) -> Void)
    /// A whole number within a range.
    case integer(ClosedRange<Int>, unit: String, @Sendable (inout DaemonConfig, Int) -> Void)
    case bool(@Sendable (inout DaemonConfig, Bool) -> Void)
    /// One of a fixed list of words.
    case choice([String], @Sendable (inout DaemonConfig, String) -> Void)
    case zSign, maskList, device, mountMatrix, socket, seatUsers, scale, autoRotate

    /// Keys whose default is "not set" accept an empty value meaning just that.
    var emptyMeansUnset: Bool {
        switch self {
        case .device, .mountMatrix, .socket, .seatUsers, .scale, .autoRotate: return true
        default: return false
        }
    }
}

struct KeySpec: Sendable {
    let section: String
    let name: String
    let kind: ValueKind
}

let sectionNames = ["classifier", "orientation", "sensor", "limits", "daemon", "dbus"]

private func limit(_ name: String, _ range: ClosedRange<Int>, _ unit: String, _ set: @escaping @Sendable (inout DaemonConfig.Limits, Int) -> Void) -> KeySpec {
    KeySpec(section: "limits", name: name, kind: .integer(range, unit: unit) { set(&$0.limits, $1) })
}

/// Every key, in file order.
let keyTable: [KeySpec] = [
    KeySpec(
        section: "classifier", name: "sensitivity",
        kind: .boundedNumber(ClassifierConfig.sensitivityRange, unit: "") { $0.sensitivity = $1 }),
    KeySpec(section: "classifier", name: "allow-upside-down", kind: .bool { $0.allowUpsideDown = $1 }),
    KeySpec(section: "classifier", name: "z-sign", kind: .zSign),

    KeySpec(
        section: "orientation", name: "natural",
        kind: .choice(["auto", "portrait", "landscape"]) { config, word in
            config.natural = NaturalGeometry(rawValue: word).map(NaturalGeometrySetting.fixed) ?? .auto
        }),
    KeySpec(section: "orientation", name: "default-allowed", kind: .maskList),
    KeySpec(
        section: "orientation", name: "portrait-on-landscape",
        kind: .choice(PortraitOnLandscape.allCases.map(\.rawValue)) { config, word in
            config.portraitOnLandscape = PortraitOnLandscape(rawValue: word) ?? .rightUp
        }),

    KeySpec(section: "sensor", name: "device", kind: .device),
    KeySpec(section: "sensor", name: "mount-matrix", kind: .mountMatrix),
    KeySpec(section: "sensor", name: "scale", kind: .scale),

    limit("clients", 1...65536, "clients") { $0.clients = $1 },
    limit("constraints-per-client", 1...1024, "constraints") { $0.constraintsPerClient = $1 },
    limit("line-length", 64...65536, "bytes") { $0.lineLength = $1 },
    limit("reply-buffer", 4096...16 << 20, "bytes") { $0.replyBuffer = $1 },
    limit("clients-per-uid", 1...65536, "clients") { $0.clientsPerUID = $1 },
    limit("reserved-clients", 0...65536, "clients") { $0.reservedClients = $1 },
    limit("changes-per-second", 1...1000, "changes") { $0.changesPerSecond = $1 },
    limit("samples-rate", 1...1000, "Hz") { $0.samplesRate = $1 },

    KeySpec(section: "daemon", name: "socket", kind: .socket),
    KeySpec(
        section: "daemon", name: "lock-permission",
        kind: .choice(LockPermission.allCases.map(\.rawValue)) { config, word in
            config.lockPermission = LockPermission(rawValue: word) ?? .seat
        }),
    KeySpec(
        section: "daemon", name: "constrain-permission",
        kind: .choice(AccessPolicy.constrainChoices.map(\.rawValue)) { config, word in
            config.constrainPermission = AccessPolicy(rawValue: word) ?? .seat
        }),
    KeySpec(
        section: "daemon", name: "samples-permission",
        kind: .choice(AccessPolicy.samplesChoices.map(\.rawValue)) { config, word in
            config.samplesPermission = AccessPolicy(rawValue: word) ?? .root
        }),
    KeySpec(
        section: "daemon", name: "sensors-permission",
        kind: .choice(AccessPolicy.sensorsChoices.map(\.rawValue)) { config, word in
            config.sensorsPermission = AccessPolicy(rawValue: word) ?? .seat
        }),
    KeySpec(section: "daemon", name: "seat-users", kind: .seatUsers),
    KeySpec(
        section: "daemon", name: "log-level",
        kind: .choice(DaemonConfig.LogLevel.allCases.map(\.rawValue)) { config, word in
            config.logLevel = DaemonConfig.LogLevel(rawValue: word) ?? .notice
        }),
    KeySpec(section: "daemon", name: "auto-rotate", kind: .autoRotate),
    KeySpec(section: "daemon", name: "tablet-mode-switch", kind: .choice(["auto", "off"]) { $0.tabletModeSwitch = $1 == "auto" }),

    KeySpec(section: "dbus", name: "enable", kind: .bool { $0.dbus.enabled = $1 }),
    KeySpec(
        section: "dbus", name: "polkit",
        kind: .choice(DBusPolkit.allCases.map(\.rawValue)) { config, word in
            config.dbus.polkit = DBusPolkit(rawValue: word) ?? .auto
        }),
    KeySpec(section: "dbus", name: "replace", kind: .bool { $0.dbus.replace = $1 }),
    KeySpec(section: "dbus", name: "claimers", kind: .integer(1...65536, unit: "claimers") { $0.dbus.claimers = $1 }),
]

/// Keys an earlier orientd read, by section and name, with why each went: an
/// old config file that sets one gets a warning naming it, never a refusal.
let removedKeys: [(section: String, name: String, why: String)] =
    classifierConstants.map { ("classifier", $0, "the classifier's constant is in code (docs/classifier.md); [classifier] sensitivity scales its settle and hold times") }
    + ["still-interval", "still-after", "motion-angle", "motion-magnitude"].map {
        ("sensor", $0, "the polled rate while the device rests is a constant in code (docs/behaviour.md)")
    } + [
        ("daemon", "release-start-up-pages",
         "orientd no longer releases its pages after start-up (the kernel reclaims clean pages itself when memory is short)"),
    ]

/// The classifier keys an earlier orientd read, now constants of `ClassifierConfig`.
private let classifierConstants: [String] = [
    "sample-rate", "filter-time-constant", "max-sample-gap", "settle-time", "glance-hold", "glance-hold-tilted",
    "glance-tilted-from", "adjacent-gap", "initial-accept", "opposite-accept",
] + ["min", "max"].flatMap { bound in Orientation.cardinal.map { "tilt-\(bound)-\($0.rawValue)" } } + [
    "max-tilt", "flat-angle", "flat-time", "hold-after-flat", "swing-delta", "swing-window", "hold-after-swing",
    "overhead-enter", "overhead-exit", "overhead-expiry", "near-zero-magnitude", "accel-tolerance-filtered",
    "accel-tolerance-raw", "implausible-magnitude", "hold-after-accel", "standard-gravity", "steady-window",
    "steady-angle", "steady-magnitude-tolerance", "steady-accept", "tilted", "face", "tilt-hysteresis", "tilt-settle",
]

/// The largest `[sensor] scale`, m/s² per count: a count of 1000 m/s² (100 g)
/// is no accelerometer's (the coarsest read in g, 9.80665 per count).
let maxSensorScale = 1000.0

/// The longest path a Unix socket address holds (`sun_path` is 108 bytes with its NUL).
let maxSocketPathBytes = 107
