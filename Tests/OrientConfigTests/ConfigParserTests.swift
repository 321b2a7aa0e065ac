import Foundation
import Testing

@testable import OrientSense
@testable import OrientAccess
@testable import OrientConfig
import OrientProtocol

// MARK: Helpers

private let configFile = "orientd.conf"

private func parseConfig(_ text: String) throws(ConfigError) -> (config: DaemonConfig, warnings: [String]) {
    try ConfigParser.parse(Array(text.utf8), file: configFile)
}

/// The error parsing `bytes` throws, or nil if it parses.
private func configError(_ bytes: [UInt8]) -> ConfigError? {
    do {
        _ = try ConfigParser.parse(bytes, file: configFile)
        return nil
    } catch {
        return error
    }
}

private func configError(_ text: String) -> ConfigError? { configError(Array(text.utf8)) }

/// Checks an error's line and that its message contains `fragment`.
private func expectConfigError(
    _ error: ConfigError?, line: Int, _ fragment: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error else {
        Issue.record("expected an error on line \(line) containing \"\(fragment)\"; the config parsed",
                     sourceLocation: sourceLocation)
        return
    }
    #expect(error.file == configFile, sourceLocation: sourceLocation)
    #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
    #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
}

/// One key set to a value other than its default, and what that does to the config.
struct KeyCase: Sendable, CustomTestStringConvertible {
    let section: String
    let key: String
    let value: String
    let change: @Sendable (inout DaemonConfig) -> Void

    init(_ section: String, _ key: String, _ value: String, _ change: @escaping @Sendable (inout DaemonConfig) -> Void) {
        (self.section, self.key, self.value, self.change) = (section, key, value, change)
    }

    var testDescription: String { "[\(section)] \(key) = \(value)" }

    var expected: DaemonConfig {
        var config = DaemonConfig()
        change(&config)
        return config
    }
}

/// Every key with a non-default value. The values are valid together, so they
/// also make one file that sets everything.
private let everyKey: [KeyCase] = [
    KeyCase("classifier", "sensitivity", "2") { $0.sensitivity = 2 },
    KeyCase("classifier", "allow-upside-down", "false") { $0.allowUpsideDown = false },
    KeyCase("classifier", "z-sign", "-1") { $0.zSign = .fixed(-1) },
    KeyCase("orientation", "natural", "landscape") { $0.natural = .fixed(.landscape) },
    KeyCase("orientation", "default-allowed", "landscape, normal") { $0.defaultAllowed = ["landscape", "normal"] },
    KeyCase("orientation", "portrait-on-landscape", "left-up") { $0.portraitOnLandscape = .leftUp },
    KeyCase("sensor", "device", "iio:device1") { $0.device = "iio:device1" },
    KeyCase("sensor", "mount-matrix", "0, 1, 0; -1, 0, 0; 0, 0, 1") {
        $0.mountMatrix = try? MountMatrix(rows: Vector3(0, 1, 0), Vector3(-1, 0, 0), Vector3(0, 0, 1))
    },
    KeyCase("sensor", "scale", "0.38307") { $0.scale = 0.38307 },
    KeyCase("limits", "clients", "16") { $0.limits.clients = 16 },
    KeyCase("limits", "constraints-per-client", "8") { $0.limits.constraintsPerClient = 8 },
    KeyCase("limits", "line-length", "8192") { $0.limits.lineLength = 8192 },
    KeyCase("limits", "reply-buffer", "1048576") { $0.limits.replyBuffer = 1_048_576 },
    KeyCase("limits", "clients-per-uid", "8") { $0.limits.clientsPerUID = 8 },
    KeyCase("limits", "reserved-clients", "0") { $0.limits.reservedClients = 0 },
    KeyCase("limits", "changes-per-second", "5") { $0.limits.changesPerSecond = 5 },
    KeyCase("limits", "samples-rate", "100") { $0.limits.samplesRate = 100 },
    KeyCase("daemon", "socket", "/run/user/1000/orientd.sock") { $0.socket = "/run/user/1000/orientd.sock" },
    KeyCase("daemon", "lock-permission", "same-user") { $0.lockPermission = .sameUser },
    KeyCase("daemon", "constrain-permission", "anyone") { $0.constrainPermission = .anyone },
    KeyCase("daemon", "samples-permission", "off") { $0.samplesPermission = .off },
    KeyCase("daemon", "sensors-permission", "anyone") { $0.sensorsPermission = .anyone },
    KeyCase("daemon", "seat-users", "1000, kiosk") { $0.seatUsers = .listed(["1000", "kiosk"]) },
    KeyCase("daemon", "log-level", "debug") { $0.logLevel = .debug },
    KeyCase("daemon", "auto-rotate", "tablet-mode") { $0.autoRotate = .tabletMode },
    KeyCase("daemon", "tablet-mode-switch", "off") { $0.tabletModeSwitch = false },
    KeyCase("dbus", "enable", "true") { $0.dbus.enabled = true },
    KeyCase("dbus", "polkit", "required") { $0.dbus.polkit = .required },
    KeyCase("dbus", "replace", "yes") { $0.dbus.replace = true },
    KeyCase("dbus", "claimers", "8") { $0.dbus.claimers = 8 },
]

/// The package root, found from this file's path (Tests/OrientSenseTests/…).
private let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

private func packageFile(_ path: String) throws -> String {
    let url = packageRoot.appendingPathComponent(path)
    let data = try #require(FileManager.default.contents(atPath: url.path), "cannot read \(url.path)")
    return try #require(String(data: data, encoding: .utf8))
}

private let allKnownKeys: Set<String> = Set(ConfigParser.knownKeys.flatMap { section in
    section.keys.map { "[\(section.section)] \($0)" }
})

// MARK: Defaults and round trips

@Suite("Config parser")
struct ConfigParserTests {
    @Test("an empty file gives the documented defaults")
    func emptyFileGivesDefaults() throws {
        let (config, warnings) = try parseConfig("")
        #expect(config == DaemonConfig())
        #expect(warnings.isEmpty)
        // The classifier's defaults, but with the z sign left to the daemon (assumed +1).
        var classifier = ClassifierConfig()
        classifier.zSignKnown = false
        #expect(config.classifier == classifier)
        #expect(config.zSign == .auto)
        #expect(config.natural == .auto)
        #expect(config.defaultAllowed == ["all"])
        #expect(config.defaultAllowedMask(natural: .portrait) == .all)
        #expect(config.device == nil && config.mountMatrix == nil && config.socket == nil)
        #expect(config.limits.clients == 256)
        #expect(config.limits.constraintsPerClient == 32)
        #expect(config.limits.lineLength == 4096)
        #expect(config.limits.replyBuffer == 65536)
        #expect(config.lockPermission == .seat)
        #expect(config.logLevel == .notice)
    }

    @Test(
        "comments, blank lines, section headers, a byte order mark and CRLF alone give the defaults",
        arguments: [
            "\n\n   \n\t\n",
            "# just a comment\n   # indented comment\n",
            "[classifier]\n[orientation]\n[sensor]\n[limits]\n[daemon]\n",
            "\u{FEFF}[classifier]\r\n# comment\r\n\r\n",
            "[ classifier ]   # trailing comment on a header\n",
            "# no newline at the end",
        ])
    func onlyStructureGivesDefaults(text: String) throws {
        #expect(try parseConfig(text).config == DaemonConfig())
    }

    @Test("every key set to a non-default value reaches the config", arguments: everyKey)
    func everyKeyRoundTrips(key: KeyCase) throws {
        let (config, warnings) = try parseConfig("[\(key.section)]\n\(key.key) = \(key.value)\n")
        #expect(config == key.expected)
        #expect(config != DaemonConfig(), "the test value must differ from the default")
        #expect(warnings.isEmpty)
    }

    @Test("the round-trip table covers every known key exactly once")
    func tableCoversEveryKey() {
        let tested = everyKey.map { "[\($0.section)] \($0.key)" }
        #expect(Set(tested) == allKnownKeys)
        #expect(tested.count == allKnownKeys.count)
        #expect(ConfigParser.knownKeys.map(\.section) == ["classifier", "orientation", "sensor", "limits", "daemon", "dbus"])
        // The classifier's constants are in code: a person sets these three.
        #expect(ConfigParser.knownKeys[0].keys == ["sensitivity", "allow-upside-down", "z-sign"])
    }

    @Test("one file setting every key gives all the values together")
    func oneFileSetsEverything() throws {
        var text = ""
        var expected = DaemonConfig()
        for (section, keys) in ConfigParser.knownKeys {
            text += "[\(section)]\n"
            for key in everyKey where key.section == section && keys.contains(key.key) {
                text += "\(key.key) = \(key.value)\n"
                key.change(&expected)
            }
        }
        let (config, warnings) = try parseConfig(text)
        #expect(config == expected)
        #expect(warnings.isEmpty)
        #expect(config.classifier.problems().isEmpty)
    }

    @Test(
        "spacing, trailing comments, CRLF and reopened sections are tolerated",
        arguments: [
            ("[classifier]\nsensitivity=2\n", 2.0),
            ("[classifier]\nsensitivity   =\t2   \n", 2),
            ("[classifier]\n\t  sensitivity = 2\n", 2),
            ("[classifier]\nsensitivity = 2 # faster\n", 2),
            ("[classifier]\nsensitivity = 2\t# faster\n", 2),
            ("[classifier]\r\nsensitivity = 2\r\n", 2),
            ("[limits]\n[classifier]\nsensitivity = 2\n[limits]\n", 2),
            ("[classifier]\nsensitivity = 2e0", 2),
            ("[classifier]\nsensitivity = +2.0", 2),
        ])
    func spellingVariants(text: String, sensitivity: Double) throws {
        #expect(try parseConfig(text).config.sensitivity == sensitivity)
    }

    @Test(
        "booleans take true/false, yes/no, on/off and 1/0 in any case",
        arguments: [
            ("true", true), ("yes", true), ("on", true), ("1", true), ("TRUE", true), ("Yes", true),
            ("false", false), ("no", false), ("off", false), ("0", false), ("False", false), ("OFF", false),
        ])
    func booleans(text: String, value: Bool) throws {
        #expect(try parseConfig("[classifier]\nallow-upside-down = \(text)\n").config.allowUpsideDown == value)
    }

    @Test(
        "every enumerated value is accepted",
        arguments: [
            ("orientation", "natural", "auto"), ("orientation", "natural", "portrait"),
            ("orientation", "portrait-on-landscape", "right-up"),
            ("daemon", "lock-permission", "anyone"), ("daemon", "lock-permission", "root"),
            ("daemon", "lock-permission", "seat"), ("daemon", "constrain-permission", "seat"),
            ("daemon", "constrain-permission", "root"), ("daemon", "samples-permission", "seat"),
            ("daemon", "samples-permission", "root"), ("daemon", "seat-users", "everyone"),
            ("daemon", "sensors-permission", "seat"), ("daemon", "sensors-permission", "root"),
            ("daemon", "sensors-permission", "off"),
            ("daemon", "log-level", "error"), ("daemon", "log-level", "warning"),
            ("daemon", "log-level", "info"), ("daemon", "auto-rotate", "always"),
            ("daemon", "auto-rotate", "never"), ("classifier", "z-sign", "+1"), ("classifier", "z-sign", "-1.0"),
            ("classifier", "z-sign", "auto"), ("daemon", "tablet-mode-switch", "auto"),
            ("dbus", "polkit", "auto"), ("dbus", "polkit", "off"),
        ])
    func enumeratedValues(section: String, key: String, value: String) throws {
        _ = try parseConfig("[\(section)]\n\(key) = \(value)\n")
    }

    @Test("a value keeps a '#' that does not follow a space, and its other characters")
    func hashInsideValue() throws {
        let config = try parseConfig("[sensor]\ndevice = accel#2 # the second one\n").config
        #expect(config.device == "accel#2")
        let paths = try parseConfig("[sensor]\ndevice = /sys/bus/iio/devices/iio:device0\n").config
        #expect(paths.device == "/sys/bus/iio/devices/iio:device0")
        #expect(try parseConfig("[sensor]\ndevice = /dev/iio:device0\n").config.device == "/dev/iio:device0")
        #expect(try parseConfig("[sensor]\ndevice = capteur-é\n# ünïcödé comment – m/s²\n").config.device == "capteur-é")
    }

    @Test(
        "an empty value for device, mount-matrix, socket, seat-users or auto-rotate means not set",
        arguments: ["device", "mount-matrix", "socket", "seat-users", "auto-rotate"])
    func emptyOptionalValue(key: String) throws {
        let section = ["socket", "seat-users", "auto-rotate"].contains(key) ? "daemon" : "sensor"
        #expect(try parseConfig("[\(section)]\n\(key) =\n").config == DaemonConfig())
        #expect(try parseConfig("[\(section)]\n\(key) = # not set\n").config == DaemonConfig())
    }

    @Test("a repaired mount matrix parses with a warning naming the file and line")
    func mountMatrixWarning() throws {
        let (config, warnings) = try parseConfig("[sensor]\n\nmount-matrix = 1, 0, 0; 0, -1, 0; 1, 0, 0\n")
        #expect(config.mountMatrix != nil)
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("orientd.conf:3: mount-matrix: mount matrix row 3") == true, "\(warnings)")
    }

    @Test("a removed key in an old config file is ignored with a warning naming it, whatever its value; the rest still applies")
    func removedKeyWarns() throws {
        for value in ["true", "false", "not even a boolean"] {
            let (config, warnings) = try parseConfig("[daemon]\nrelease-start-up-pages = \(value)\nlog-level = debug\n")
            #expect(config.logLevel == .debug)
            #expect(warnings == ["orientd.conf:2: [daemon] release-start-up-pages is ignored: orientd no longer releases its pages "
                + "after start-up (the kernel reclaims clean pages itself when memory is short)"])
        }
        // Only in its own section: elsewhere it is as unknown as any other name.
        #expect(throws: ConfigError.self) { try parseConfig("[sensor]\nrelease-start-up-pages = true\n") }
    }

    @Test(
        "a classifier constant or a polling constant an old file sets is ignored with a warning, even out of range",
        arguments: [
            ("classifier", "settle-time", "-5", "the classifier's constant is in code"),
            ("classifier", "sample-rate", "50", "the classifier's constant is in code"),
            ("classifier", "tilt-max-left-up", "60", "the classifier's constant is in code"),
            ("classifier", "steady-magnitude-tolerance", "1.25", "the classifier's constant is in code"),
            ("sensor", "still-interval", "2000", "the polled rate while the device rests is a constant in code"),
            ("sensor", "motion-magnitude", "0.25", "the polled rate while the device rests is a constant in code"),
        ])
    func formerKeyWarns(section: String, key: String, value: String, why: String) throws {
        let (config, warnings) = try parseConfig("[\(section)]\n# old\n\(key) = \(value)\n")
        #expect(config == DaemonConfig())
        #expect(warnings.count == 1)
        #expect(warnings.first?.hasPrefix("orientd.conf:3: [\(section)] \(key) is ignored: \(why)") == true, "\(warnings)")
    }

    @Test("default-allowed resolves portrait and landscape against the natural geometry")
    func defaultAllowedResolves() throws {
        let config = try parseConfig("[orientation]\ndefault-allowed = portrait\n").config
        #expect(config.defaultAllowedMask(natural: .portrait) == .normal)
        #expect(config.defaultAllowedMask(natural: .landscape) == .rightUp, "right-up unless portrait-on-landscape says otherwise")
        let leftUp = try parseConfig("[orientation]\ndefault-allowed = portrait\nportrait-on-landscape = left-up\n").config
        #expect(leftUp.portraitOnLandscape == .leftUp)
        #expect(leftUp.defaultAllowedMask(natural: .landscape) == .leftUp)
        #expect(leftUp.defaultAllowedMask(natural: .portrait) == .normal, "a portrait-native panel's portrait is normal")
        #expect(try leftUp.mask(names: ["all-but-upside-down"], natural: .landscape) == [.normal, .leftUp, .bottomUp])
        let list = try parseConfig("[orientation]\ndefault-allowed = normal,left-up , all-but-upside-down\n").config
        #expect(list.defaultAllowed == ["normal", "left-up", "all-but-upside-down"])
        #expect(list.defaultAllowedMask(natural: .portrait) == .allButUpsideDown(natural: .portrait))
        var bogus = DaemonConfig()
        bogus.defaultAllowed = ["sideways"]
        #expect(bogus.defaultAllowedMask(natural: .portrait) == .all)
    }

    @Test("the natural geometry setting resolves auto to what DRM found, else portrait")
    func naturalResolves() {
        #expect(NaturalGeometrySetting.auto.resolved(detected: nil) == .portrait)
        #expect(NaturalGeometrySetting.auto.resolved(detected: .landscape) == .landscape)
        #expect(NaturalGeometrySetting.fixed(.portrait).resolved(detected: .landscape) == .portrait)
    }

    /// A lock request: who asks, the lock's owner, whether the owner still holds the seat.
    struct LockCase: Sendable, CustomTestStringConvertible {
        var permission: LockPermission
        var uid: UInt32
        var principal: Principal
        var owner: UInt32?
        var ownerHoldsSeat = true
        var permitted: Bool
        var testDescription: String {
            "\(permission.rawValue): uid \(uid) (\(principal)), owner \(owner.map(String.init) ?? "none")"
                + "\(ownerHoldsSeat ? "" : " (left the seat)") → \(permitted ? "may" : "may not")"
        }
    }

    @Test(
        "lock permission decides who may lock and unlock",
        arguments: [
            LockCase(permission: .anyone, uid: 65534, principal: .other, owner: 1000, permitted: true),
            LockCase(permission: .seat, uid: 1000, principal: .seat, owner: 1001, permitted: true),
            LockCase(permission: .seat, uid: 65534, principal: .other, owner: nil, permitted: false),
            LockCase(permission: .sameUser, uid: 1000, principal: .seat, owner: nil, permitted: true),
            LockCase(permission: .sameUser, uid: 1000, principal: .seat, owner: 1000, permitted: true),
            LockCase(permission: .sameUser, uid: 1001, principal: .seat, owner: 1000, permitted: false),
            LockCase(permission: .sameUser, uid: 1001, principal: .seat, owner: 1000, ownerHoldsSeat: false, permitted: true),
            LockCase(permission: .sameUser, uid: 65534, principal: .other, owner: nil, permitted: false),
            LockCase(permission: .sameUser, uid: 0, principal: .root, owner: 1000, permitted: true),
            LockCase(permission: .root, uid: 1000, principal: .seat, owner: nil, permitted: false),
            LockCase(permission: .root, uid: 0, principal: .root, owner: 1000, permitted: true),
        ])
    func lockPermission(_ c: LockCase) {
        #expect(c.permission.permits(c.principal, uid: c.uid, lockOwner: c.owner, ownerHoldsSeat: c.ownerHoldsSeat) == c.permitted)
    }
}

// MARK: Errors

@Suite("Config parser: errors")
struct ConfigParserErrorTests {
    @Test(
        "structural mistakes name the line and what was expected",
        arguments: [
            ("[classifer]\n", 1, "unknown section [classifer]; did you mean [classifier]?"),
            ("\n[bogus]\n", 2, "unknown section [bogus] (the sections are [classifier], [orientation], [sensor], [limits], [daemon], [dbus])"),
            ("[classifier\nsensitivity = 1\n", 1, "section header '[classifier' is missing its closing ']'"),
            ("[]\n", 1, "empty section name"),
            ("[ ]\n", 1, "empty section name"),
            ("[classifier] junk\n", 1, "unexpected 'junk' after the section header"),
            ("sensitivity = 1\n", 1, "key 'sensitivity' is outside a section; put it under a [section] header (it belongs in [classifier])"),
            ("# header\nfoo = 1\n", 2, "key 'foo' is outside a section"),
            ("[classifier]\nsensitivity 1\n", 2, "expected 'key = value', '[section]' or '# comment'; found 'sensitivity 1'"),
            ("[classifier]\n= 100\n", 2, "expected a key name before '='"),
            ("[classifier]\nsensitivity = 1\n\n[limits]\n[classifier]\nsensitivity = 2\n", 6,
             "duplicate key 'sensitivity' in [classifier] (first set on line 2)"),
            ("[sensor]\ndevice =\ndevice = iio:device0\n", 3, "duplicate key 'device' in [sensor] (first set on line 2)"),
        ])
    func structure(text: String, line: Int, fragment: String) {
        expectConfigError(configError(text), line: line, fragment)
    }

    @Test(
        "unknown keys suggest the closest known key or the right section",
        arguments: [
            ("[classifier]\nsensitivty = 2\n", "unknown key 'sensitivty' in [classifier]; did you mean 'sensitivity'?"),
            ("[classifier]\nallow upside-down = no\n", "unknown key 'allow upside-down' in [classifier]; did you mean 'allow-upside-down'?"),
            ("[classifier]\nSensitivity = 2\n", "did you mean 'sensitivity'?"),
            ("[daemon]\nlock-permision = root\n", "did you mean 'lock-permission'?"),
            ("[daemon]\nlog-levle = debug\n", "did you mean 'log-level'?"),
            ("[daemon]\nclients = 3\n", "unknown key 'clients' in [daemon]; 'clients' belongs in [limits]"),
            ("[sensor]\nsensitivity = 2\n", "'sensitivity' belongs in [classifier]"),
            ("[classifier]\non-change = true\n", "unknown key 'on-change' in [classifier]"),
        ])
    func unknownKeys(text: String, fragment: String) {
        expectConfigError(configError(text), line: 2, fragment)
    }

    @Test("an unknown key far from every known key gets no suggestion")
    func noSuggestion() {
        let error = configError("[classifier]\nfrobnicate = 1\n")
        #expect(error?.message == "unknown key 'frobnicate' in [classifier]")
    }

    @Test(
        "bad values name the key, what is allowed and what was found",
        arguments: [
            ("classifier", "sensitivity =", "sensitivity has no value"),
            ("classifier", "sensitivity = # 2", "sensitivity has no value"),
            ("classifier", "sensitivity = 1,5", "sensitivity must be a decimal number (like 100 or 0.5, '.' as decimal point); found '1,5'"),
            ("classifier", "sensitivity = 2x", "found '2x' (write the number without its unit)"),
            ("classifier", "sensitivity = 5", "sensitivity must be from 0.25 to 4; found '5'"),
            ("classifier", "sensitivity = 0", "sensitivity must be from 0.25 to 4; found '0'"),
            ("classifier", "sensitivity = -1", "sensitivity must be from 0.25 to 4; found '-1'"),
            ("classifier", "sensitivity = 0x10", "found '0x10'"),
            ("classifier", "sensitivity = nan", "found 'nan'"),
            ("classifier", "sensitivity = inf", "found 'inf'"),
            ("classifier", "sensitivity = 1e999", "sensitivity '1e999' is out of range"),
            ("classifier", "sensitivity = \"2\"", "sensitivity: values are written without quotes; found '\"2\"'"),
            ("daemon", "socket = '/run/x.sock'", "values are written without quotes"),
            ("classifier", "allow-upside-down = maybe", "allow-upside-down must be true or false (or yes/no, on/off, 1/0); found 'maybe'"),
            ("classifier", "z-sign = 2", "z-sign must be auto, 1 (lying face up reads +z) or -1; found '2'"),
            ("classifier", "z-sign = up", "z-sign must be auto, 1"),
            ("orientation", "natural = square", "natural must be one of auto, portrait, landscape; found 'square'"),
            ("orientation", "natural = Portrait", "natural must be one of auto, portrait, landscape"),
            ("orientation", "default-allowed = sideways", "default-allowed: unknown orientation mask name 'sideways'"),
            ("orientation", "default-allowed = normal,,left-up", "default-allowed has an empty name in its list"),
            ("orientation", "default-allowed = normal,", "default-allowed has an empty name in its list"),
            ("daemon", "lock-permission = everyone", "lock-permission must be one of seat, same-user, root, anyone; found 'everyone'"),
            ("daemon", "log-level = verbose", "log-level must be one of error, warning, notice, info, debug; found 'verbose'"),
            ("daemon", "auto-rotate = tablet", "auto-rotate must be one of always, tablet-mode, never (or empty for the default: tablet-mode where a tablet-mode source exists, else always); found 'tablet'"),
            ("daemon", "auto-rotate = Always", "auto-rotate must be one of always, tablet-mode, never"),
            ("daemon", "tablet-mode-switch = on", "tablet-mode-switch must be one of auto, off; found 'on'"),
            ("daemon", "tablet-mode-switch =", "tablet-mode-switch has no value"),
            ("daemon", "auto-rotate = tablet_mode", "found 'tablet_mode'"),
            ("dbus", "polkit = sometimes", "polkit must be one of auto, required, off; found 'sometimes'"),
            ("dbus", "claimers = 0", "claimers must be a whole number of claimers from 1 to 65536; found '0'"),
            ("limits", "clients = 0", "clients must be a whole number of clients from 1 to 65536; found '0'"),
            ("limits", "clients = 65537", "from 1 to 65536; found '65537'"),
            ("limits", "clients = 2.5", "clients must be a whole number"),
            ("limits", "clients = -1", "clients must be a whole number"),
            ("limits", "constraints-per-client = 1025", "constraints-per-client must be a whole number of constraints from 1 to 1024"),
            ("limits", "line-length = 63", "line-length must be a whole number of bytes from 64 to 65536"),
            ("limits", "reply-buffer = 4095", "reply-buffer must be a whole number of bytes from 4096 to 16777216"),
            ("limits", "reply-buffer = 16777217", "from 4096 to 16777216; found '16777217'"),
            ("limits", "reply-buffer = 64K", "reply-buffer must be a whole number of bytes from 4096 to 16777216; found '64K' (write the number without its unit)"),
            ("limits", "clients = lots", "clients must be a whole number of clients from 1 to 65536; found 'lots'"),
            ("limits", "clients = 1e9", "found '1e9'"),
            ("daemon", "socket = run/orientd.sock", "socket must be an absolute path (like /run/orientd/orientd.sock); found 'run/orientd.sock'"),
            ("daemon", "socket = /" + String(repeating: "s", count: 107), "socket path is 108 bytes; a Unix socket path holds at most 107"),
            ("sensor", "device = ../iio:device0", "device must be an absolute path under /sys/ or /dev/, or an IIO device name (no '/')"),
            ("sensor", "device = /home/me/accel", "device must be a path under /sys/ or /dev/, or an IIO device name; found '/home/me/accel'"),
            ("sensor", "mount-matrix = 1, 0, 0; 0, 1, 0", "mount-matrix, column 32: a mount matrix has 9 values (x1, y1, z1; x2, y2, z2; x3, y3, z3); found 6"),
            ("sensor", "mount-matrix = 0, 0, 0; 0, 1, 0; 0, 0, 1", "mount-matrix, column 16: mount matrix row 1 is all zeros"),
            ("sensor", "mount-matrix = 1, 0, x; 0, 1, 0; 0, 0, 1", "mount-matrix, column 22: 'x' is not a decimal number"),
            ("sensor", "scale = -0.009582", "scale must be greater than 0 and at most 1000 (m/s² per raw count, as in_accel_scale); found '-0.009582'"),
            ("sensor", "scale = 0", "scale must be greater than 0 and at most 1000 (m/s² per raw count, as in_accel_scale); found '0'"),
            ("sensor", "scale = -0", "scale must be greater than 0 and at most 1000"),
            ("sensor", "scale = 1001", "scale must be greater than 0 and at most 1000 (m/s² per raw count, as in_accel_scale); found '1001'"),
            ("sensor", "scale = 1e999", "scale '1e999' is out of range"),
            ("sensor", "scale = nan", "scale must be a decimal number of m/s² per count (like 100 or 0.5, '.' as decimal point); found 'nan'"),
            ("sensor", "scale = inf", "scale must be a decimal number of m/s² per count (like 100 or 0.5, '.' as decimal point); found 'inf'"),
            ("sensor", "scale = ten", "scale must be a decimal number of m/s² per count (like 100 or 0.5, '.' as decimal point); found 'ten'"),
            ("sensor", "scale = 0,009582", "scale must be a decimal number of m/s² per count (like 100 or 0.5, '.' as decimal point); found '0,009582'"),
            ("sensor", "scale = 0.0096m/s2", "found '0.0096m/s2' (write the number without its unit)"),
            ("sensor", "scale = \"0.009582\"", "scale: values are written without quotes"),
            ("daemon", "seat-users = 1000,,1001", "seat-users: an empty name in its list"),
            ("daemon", "seat-users = everyone, 1000", "seat-users: 'everyone' stands alone, not in a list"),
            ("daemon", "seat-users = 4294967295", "seat-users: uid '4294967295' is out of range"),
            ("daemon", "seat-users = -admin", "seat-users: '-admin' is neither a uid nor a user name"),
            ("daemon", "seat-users = alice smith", "seat-users: 'alice smith' is neither a uid nor a user name"),
            ("daemon", "constrain-permission = off", "constrain-permission must be one of seat, root, anyone; found 'off'"),
            ("daemon", "samples-permission = anyone", "samples-permission must be one of root, seat, off; found 'anyone'"),
            ("daemon", "sensors-permission = same-user", "sensors-permission must be one of seat, root, anyone, off; found 'same-user'"),
            ("limits", "changes-per-second = 0", "changes-per-second must be a whole number of changes from 1 to 1000"),
            ("limits", "samples-rate = 2000", "samples-rate must be a whole number of Hz from 1 to 1000"),
        ])
    func badValues(section: String, line: String, fragment: String) {
        expectConfigError(configError("# comment\n[\(section)]\n\(line)\n"), line: 3, fragment)
    }

    @Test("[sensor] scale takes the smallest and largest plausible scales, and an empty value leaves it unset")
    func sensorScale() throws {
        #expect(try parseConfig("[sensor]\nscale = 1e-9\n").config.scale == 1e-9)
        #expect(try parseConfig("[sensor]\nscale = 1000\n").config.scale == 1000)
        #expect(try parseConfig("[sensor]\nscale = 9.80665 # raw in g\n").config.scale == 9.80665)
        #expect(try parseConfig("[sensor]\nscale =\n").config.scale == nil)
        #expect(try parseConfig("[sensor]\nscale = 0.5\n").config.classifier == DaemonConfig().classifier)
        expectConfigError(configError("[sensor]\nscale = 1\n[sensor]\nscale = 2\n"), line: 4, "duplicate key 'scale' in [sensor] (first set on line 2)")
        expectConfigError(configError("[classifier]\nscale = 1\n"), line: 2, "unknown key 'scale' in [classifier]; 'scale' belongs in [sensor]")
    }

    @Test("a found value is cut to 32 characters in the message")
    func longValueIsCut() {
        let error = configError("[orientation]\nnatural = \(String(repeating: "x", count: 100))\n")
        #expect(error?.message.hasSuffix("found '\(String(repeating: "x", count: 32))...'") == true, "\(String(describing: error))")
    }

    @Test("sensitivity divides the settle and hold times and changes nothing else", arguments: [0.25, 0.5, 2, 4])
    func sensitivityScalesTimes(sensitivity: Double) throws {
        let config = try parseConfig("[classifier]\nsensitivity = \(sensitivity)\n").config
        let scaled = config.classifier, plain = DaemonConfig().classifier
        #expect(scaled.problems().isEmpty)
        for time in [\ClassifierConfig.settleTimeMs, \.glanceHoldMs, \.glanceHoldTiltedMs, \.holdAfterFlatMs, \.holdAfterSwingMs,
                     \.holdAfterAccelMs, \.tiltSettleMs] {
            #expect(scaled[keyPath: time] == plain[keyPath: time] / sensitivity)
        }
        var unscaled = scaled
        for time in [\ClassifierConfig.settleTimeMs, \.glanceHoldMs, \.glanceHoldTiltedMs, \.holdAfterFlatMs, \.holdAfterSwingMs,
                     \.holdAfterAccelMs, \.tiltSettleMs] {
            unscaled[keyPath: time] = plain[keyPath: time]
        }
        #expect(unscaled == plain, "only the settle and hold times change")
    }

    @Test("the error prints as file:line: message, or file: message without a line")
    func errorDescription() {
        #expect(ConfigError(file: "/etc/orientd/orientd.conf", line: 7, message: "oops").description
            == "/etc/orientd/orientd.conf:7: oops")
        #expect(ConfigError(file: "/etc/orientd/orientd.conf", line: 0, message: "oops").description
            == "/etc/orientd/orientd.conf: oops")
        #expect(configError("[classifier]\nsensitivty = 1\n")?.description
            == "orientd.conf:2: unknown key 'sensitivty' in [classifier]; did you mean 'sensitivity'?")
    }
}

// MARK: Hostile input

@Suite("Config parser: hostile input")
struct ConfigParserHostileInputTests {
    private static let prefix = Array("[classifier]\nsensitivity = 1".utf8)

    @Test(
        "control characters and invalid UTF-8 are errors naming the byte",
        arguments: [
            ([0x00], "control character U+0000 at column 16 is not allowed"),
            ([0x0D, 0x30], "control character U+000D at column 16"),
            ([0x7F], "control character U+007F"),
            ([0x1B], "control character U+001B"),
            ([0xC2, 0x85], "control character U+0085"),
            ([0xFF], "invalid UTF-8 (byte 0xFF at column 16)"),
            ([0x80], "invalid UTF-8 (byte 0x80"),
            ([0xC0, 0xAF], "invalid UTF-8 (byte 0xC0"),
            ([0xE2, 0x82], "invalid UTF-8 (byte 0xE2"),
            ([0xED, 0xA0, 0x80], "invalid UTF-8 (byte 0xED"),
            ([0xF4, 0x90, 0x80, 0x80], "invalid UTF-8 (byte 0xF4"),
            ([0xF8, 0x88, 0x80, 0x80, 0x80], "invalid UTF-8 (byte 0xF8"),
        ] as [([UInt8], String)])
    func badBytes(bytes: [UInt8], fragment: String) {
        expectConfigError(configError(Self.prefix + bytes + [0x0A, 0x0A]), line: 2, fragment)
    }

    @Test("a bad byte in a comment is still an error")
    func badByteInComment() {
        expectConfigError(configError([0x23, 0x20, 0x00, 0x0A]), line: 1, "control character U+0000 at column 3")
        expectConfigError(configError(Array("# ok\n# ".utf8) + [0xFE]), line: 2, "invalid UTF-8 (byte 0xFE")
    }

    @Test("a line of 4096 bytes is accepted and one of 4097 is an error", arguments: [4096, 4097])
    func lineLimit(length: Int) {
        let comment = "#" + String(repeating: "x", count: length - 1)
        let texts = [
            "[classifier]\n" + comment + "\nsensitivity = 1\n",
            "[classifier]\r\n" + comment + "\r\nsensitivity = 1\r\n",
            "[classifier]\n" + comment,
        ]
        for text in texts {
            let error = configError(text)
            if length <= ConfigParser.maxLineBytes {
                #expect(error == nil, "\(String(describing: error))")
            } else {
                expectConfigError(error, line: 2, "line is longer than 4096 bytes")
            }
        }
    }

    @Test("a huge file without newlines fails on its first line")
    func hugeLine() {
        let bytes = [UInt8](repeating: 0x61, count: 8 << 20)
        expectConfigError(configError(bytes), line: 1, "line is longer than 4096 bytes")
    }

    @Test("ten thousand sections parse, and an error after them names its line")
    func manySections() throws {
        let sections = String(repeating: "[classifier]\n[limits]\n", count: 10_000)
        #expect(try parseConfig(sections + "clients = 9\n").config.limits.clients == 9)
        expectConfigError(configError(sections + "[nope]\n"), line: 20_001, "unknown section [nope]")
        let unknown = (0..<10_000).map { "[section-\($0)]\n" }.joined()
        expectConfigError(configError(unknown), line: 1, "unknown section [section-0]")
    }

    @Test("a very long unknown key is shown cut and gets no suggestion")
    func longKey() {
        let key = String(repeating: "k", count: 4000)
        let error = configError("[classifier]\n\(key) = 1\n")
        #expect(error?.message == "unknown key '\(String(repeating: "k", count: 32))...' in [classifier]")
    }

    @Test("a NUL-only file and a file of newlines are handled")
    func degenerateFiles() {
        expectConfigError(configError([UInt8](repeating: 0, count: 10)), line: 1, "control character U+0000")
        #expect(configError([UInt8](repeating: 0x0A, count: 100_000)) == nil)
    }
}

// MARK: Shipped files

@Suite("Config parser: example file and documentation")
struct ConfigParserExampleTests {
    /// A `# key = value` line of the example whose key is a known key of
    /// `section`: the key (as `[section] key`) and the line uncommented.
    static func commentedKey(_ line: Substring, section: String) -> (key: String, uncommented: String)? {
        guard line.hasPrefix("#") else { return nil }
        var body = line.dropFirst()
        if body.hasPrefix(" ") { body = body.dropFirst() }
        guard let eq = body.firstIndex(of: "=") else { return nil }
        let key = "[\(section)] " + body[..<eq].trimmingCharacters(in: .whitespaces)
        return allKnownKeys.contains(key) ? (key, String(body)) : nil
    }

    /// The example with every `# key = value` line uncommented, and the keys in order.
    static func uncommented(_ example: String) -> (text: String, keys: [String]) {
        var section = ""
        var keys: [String] = []
        var lines: [String] = []
        for line in example.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("[") { section = String(line.dropFirst().prefix { $0 != "]" }) }
            if let (key, text) = commentedKey(line, section: section) {
                keys.append(key)
                lines.append(text)
            } else {
                lines.append(String(line))
            }
        }
        return (lines.joined(separator: "\n"), keys)
    }

    @Test("the example file lists every key once, and uncommented it gives the defaults")
    func exampleGivesDefaults() throws {
        let example = try packageFile("systemd/orientd.conf.example")
        let (text, keys) = Self.uncommented(example)
        #expect(keys.count == Set(keys).count, "a key is listed twice")
        #expect(Set(keys) == allKnownKeys, "missing: \(allKnownKeys.subtracting(keys))")
        let (config, warnings) = try ConfigParser.parse(Array(text.utf8), file: "orientd.conf.example")
        #expect(config == DaemonConfig())
        #expect(warnings.isEmpty)
        // As shipped (all commented out) it parses to the defaults too.
        #expect(try ConfigParser.parse(Array(example.utf8), file: "orientd.conf.example").config == DaemonConfig())
    }

    @Test("the example file explains every key in a comment just above it")
    func exampleExplainsEveryKey() throws {
        let example = try packageFile("systemd/orientd.conf.example")
        let lines = example.split(separator: "\n", omittingEmptySubsequences: false)
        var section = ""
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("[") { section = String(line.dropFirst().prefix { $0 != "]" }) }
            guard Self.commentedKey(line, section: section) != nil else { continue }
            let above = index > 0 ? lines[index - 1] : ""
            #expect(above.hasPrefix("# ") && Self.commentedKey(above, section: section) == nil,
                    "line \(index + 1) has no explanation: \(line)")
        }
    }

    @Test("docs/configuration.md documents every key")
    func docsDocumentEveryKey() throws {
        let docs = try packageFile("docs/configuration.md")
        for (section, keys) in ConfigParser.knownKeys {
            #expect(docs.contains("[\(section)]"), "section [\(section)] is not documented")
            for key in keys {
                #expect(docs.contains("| `\(key)` |"), "key \(key) has no row in docs/configuration.md")
            }
        }
    }
}
