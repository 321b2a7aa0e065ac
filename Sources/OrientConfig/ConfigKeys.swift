// The config keys: every section and key ConfigParser knows, the kind of
// value each takes and where it goes in DaemonConfig.
import OrientProtocol
import OrientSense
import OrientDevices
import OrientAccess

// MARK: - Keys

/// How a key's value is read and where it goes.
enum ValueKind: Sendable {
    /// A decimal number in `unit`; ranges are checked by `ClassifierConfig.problems()`.
    case number(unit: String, @Sendable (inout DaemonConfig, Double) -> Void)
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

private func classifierNumber(_ name: String, _ unit: String, _ set: @escaping @Sendable (inout ClassifierConfig, Double) -> Void) -> KeySpec {
    KeySpec(section: "classifier", name: name, kind: .number(unit: unit) { set(&$0.classifier, $1) })
}

private func tiltLimits() -> [KeySpec] {
    let minimums = Orientation.cardinal.enumerated().map { i, o in
        classifierNumber("tilt-min-\(o.rawValue)", "degrees") { $0.tiltMinDeg[i] = $1 }
    }
    let maximums = Orientation.cardinal.enumerated().map { i, o in
        classifierNumber("tilt-max-\(o.rawValue)", "degrees") { $0.tiltMaxDeg[i] = $1 }
    }
    return minimums + maximums
}

private func sampling(_ name: String, _ range: ClosedRange<Double>, _ unit: String, _ set: @escaping @Sendable (inout SamplingPolicy.Settings, Double) -> Void) -> KeySpec {
    KeySpec(section: "sensor", name: name, kind: .boundedNumber(range, unit: unit) { set(&$0.sampling, $1) })
}

private func limit(_ name: String, _ range: ClosedRange<Int>, _ unit: String, _ set: @escaping @Sendable (inout DaemonConfig.Limits, Int) -> Void) -> KeySpec {
    KeySpec(section: "limits", name: name, kind: .integer(range, unit: unit) { set(&$0.limits, $1) })
}

/// Every key, in file order. The classifier keys are the kebab-case names
/// `ClassifierConfig.problems()` uses.
let keyTable: [KeySpec] = [
    classifierNumber("sample-rate", "Hz") { $0.sampleRateHz = $1 },
    classifierNumber("filter-time-constant", "ms") { $0.filterTimeConstantMs = $1 },
    classifierNumber("max-sample-gap", "ms") { $0.maxSampleGapMs = $1 },
    classifierNumber("settle-time", "ms") { $0.settleTimeMs = $1 },
    classifierNumber("glance-hold", "ms") { $0.glanceHoldMs = $1 },
    classifierNumber("glance-hold-tilted", "ms") { $0.glanceHoldTiltedMs = $1 },
    classifierNumber("glance-tilted-from", "degrees") { $0.glanceTiltedFromDeg = $1 },
    classifierNumber("adjacent-gap", "degrees") { $0.adjacentGapDeg = $1 },
    classifierNumber("initial-accept", "degrees") { $0.initialAcceptDeg = $1 },
    classifierNumber("opposite-accept", "degrees") { $0.oppositeAcceptDeg = $1 },
] + tiltLimits() + [
    classifierNumber("max-tilt", "degrees") { $0.maxTiltDeg = $1 },
    classifierNumber("flat-angle", "degrees") { $0.flatAngleDeg = $1 },
    classifierNumber("flat-time", "ms") { $0.flatTimeMs = $1 },
    classifierNumber("hold-after-flat", "ms") { $0.holdAfterFlatMs = $1 },
    classifierNumber("swing-delta", "degrees") { $0.swingDeltaDeg = $1 },
    classifierNumber("swing-window", "ms") { $0.swingWindowMs = $1 },
    classifierNumber("hold-after-swing", "ms") { $0.holdAfterSwingMs = $1 },
    classifierNumber("overhead-enter", "degrees") { $0.overheadEnterDeg = $1 },
    classifierNumber("overhead-exit", "degrees") { $0.overheadExitDeg = $1 },
    classifierNumber("overhead-expiry", "ms") { $0.overheadExpiryMs = $1 },
    classifierNumber("near-zero-magnitude", "m/s²") { $0.nearZeroMagnitude = $1 },
    classifierNumber("accel-tolerance-filtered", "m/s²") { $0.accelToleranceFiltered = $1 },
    classifierNumber("accel-tolerance-raw", "m/s²") { $0.accelToleranceRaw = $1 },
    classifierNumber("implausible-magnitude", "m/s²") { $0.implausibleMagnitude = $1 },
    classifierNumber("hold-after-accel", "ms") { $0.holdAfterAccelMs = $1 },
    classifierNumber("standard-gravity", "m/s²") { $0.standardGravity = $1 },
    classifierNumber("steady-window", "ms") { $0.steadyWindowMs = $1 },
    classifierNumber("steady-angle", "degrees") { $0.steadyAngleDeg = $1 },
    classifierNumber("steady-magnitude-tolerance", "m/s²") { $0.steadyMagnitudeTolerance = $1 },
    classifierNumber("steady-accept", "degrees") { $0.steadyAcceptDeg = $1 },
    KeySpec(section: "classifier", name: "allow-upside-down", kind: .bool { $0.classifier.allowUpsideDown = $1 }),
    KeySpec(section: "classifier", name: "z-sign", kind: .zSign),
    classifierNumber("tilted", "degrees") { $0.tiltedDeg = $1 },
    classifierNumber("face", "degrees") { $0.faceDeg = $1 },
    classifierNumber("tilt-hysteresis", "degrees") { $0.tiltHysteresisDeg = $1 },
    classifierNumber("tilt-settle", "ms") { $0.tiltSettleMs = $1 },

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
    sampling("still-interval", 0...1000, "ms") { $0.stillIntervalMs = $1 },
    sampling("still-after", 0...60000, "ms") { $0.stillAfterMs = $1 },
    sampling("motion-angle", 0...45, "degrees") { $0.motionAngleDeg = $1 },
    sampling("motion-magnitude", 0...20, "m/s²") { $0.motionMagnitude = $1 },

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
let removedKeys: [(section: String, name: String, why: String)] = [
    ("daemon", "release-start-up-pages",
     "orientd no longer releases its pages after start-up (the kernel reclaims clean pages itself when memory is short)"),
]

/// The largest `[sensor] scale`, m/s² per count: a count of 1000 m/s² (100 g)
/// is no accelerometer's (the coarsest read in g, 9.80665 per count).
let maxSensorScale = 1000.0

/// The longest path a Unix socket address holds (`sun_path` is 108 bytes with its NUL).
let maxSocketPathBytes = 107
