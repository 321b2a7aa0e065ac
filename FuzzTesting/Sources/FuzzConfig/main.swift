// fuzz-config: a whole config file through ConfigParser.parse.
//
// Invariants beyond "no crash":
// - a parsed config, written back as a config file that sets every key, parses
//   to the same config (the harness's key table must match ConfigParser.knownKeys,
//   so a new key fails here until it is added below);
// - what the parser promises holds: classifier problems() empty, limits in range,
//   an absolute socket path that fits sun_path, default-allowed names that resolve;
// - an error names the file, a line from 0 (none) to the file's line count, a
//   message; every warning starts with `file:line:`.
import FuzzSupport
import OrientProtocol
import OrientAccess
import OrientConfig
import OrientSense

let fileName = "fuzz.conf"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let parsed: (config: DaemonConfig, warnings: [String])
    do {
        parsed = try ConfigParser.parse(bytes, file: fileName)
    } catch {
        fuzzCheck(error.file == fileName, "error names file \(error.file)")
        fuzzCheck(!error.message.isEmpty, "error without a message")
        let lines = lineCount(bytes)
        fuzzCheck(error.line >= 0 && error.line <= lines, "error line \(error.line) of \(lines): \(error)")
        return 0
    }
    let config = parsed.config
    for warning in parsed.warnings {
        fuzzCheck(warning.hasPrefix(fileName + ":"), "warning without file:line: \(shown(warning))")
    }
    fuzzCheck(ClassifierConfig.sensitivityRange.contains(config.sensitivity), "sensitivity \(config.sensitivity)")
    fuzzCheck(config.classifier.problems().isEmpty, "accepted a classifier with problems: \(config.classifier.problems())")
    let limits = config.limits
    fuzzCheck((1...65536).contains(limits.clients), "clients \(limits.clients)")
    fuzzCheck((1...1024).contains(limits.constraintsPerClient), "constraints-per-client \(limits.constraintsPerClient)")
    fuzzCheck((64...65536).contains(limits.lineLength), "line-length \(limits.lineLength)")
    fuzzCheck((4096...(16 << 20)).contains(limits.replyBuffer), "reply-buffer \(limits.replyBuffer)")
    fuzzCheck((1...65536).contains(limits.clientsPerUID), "clients-per-uid \(limits.clientsPerUID)")
    fuzzCheck((0...65536).contains(limits.reservedClients), "reserved-clients \(limits.reservedClients)")
    fuzzCheck((1...1000).contains(limits.changesPerSecond), "changes-per-second \(limits.changesPerSecond)")
    fuzzCheck((1...1000).contains(limits.samplesRate), "samples-rate \(limits.samplesRate)")
    fuzzCheck(AccessPolicy.constrainChoices.contains(config.constrainPermission), "constrain-permission \(config.constrainPermission)")
    fuzzCheck(AccessPolicy.samplesChoices.contains(config.samplesPermission), "samples-permission \(config.samplesPermission)")
    fuzzCheck(AccessPolicy.sensorsChoices.contains(config.sensorsPermission), "sensors-permission \(config.sensorsPermission)")
    if case .listed(let users) = config.seatUsers {
        fuzzCheck(users.allSatisfy { !$0.isEmpty && $0 != "everyone" && !$0.contains(",") }, "seat-users \(users)")
    }
    if let scale = config.scale {
        fuzzCheck(scale > 0 && scale <= 1000, "scale \(scale)")
    }
    if let socket = config.socket {
        fuzzCheck(socket.hasPrefix("/") && socket.utf8.count <= 107, "socket \(shown(socket))")
    }
    for natural in NaturalGeometry.allCases {
        fuzzCheck(
            (try? OrientationMask(names: config.defaultAllowed, natural: natural)) != nil,
            "default-allowed \(config.defaultAllowed) does not resolve")
    }

    let text = written(config)
    do {
        let again = try ConfigParser.parse(Array(text.utf8), file: fileName).config
        fuzzCheck(again == config, "the written config parses to a different config\n\(shown(text))")
    } catch {
        fuzzCheck(false, "the written config does not parse: \(error)\n\(shown(text))")
    }
    return 0
}

func lineCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    let newlines = bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    return bytes.last == 0x0A || bytes.isEmpty ? newlines : newlines + 1
}

// MARK: Writing a config back

/// Every key with its value in `config`, section by section.
func written(_ config: DaemonConfig) -> String {
    let c = config.classifier
    var values: [String: String] = [
        "sensitivity": number(config.sensitivity),
        "allow-upside-down": c.allowUpsideDown ? "true" : "false",
        "z-sign": config.zSign == .auto ? "auto" : number(c.zSign),
        "default-allowed": config.defaultAllowed.joined(separator: ", "),
        "portrait-on-landscape": config.portraitOnLandscape.rawValue,
        "device": config.device ?? "",
        "mount-matrix": config.mountMatrix?.description ?? "",
        "scale": config.scale.map(number) ?? "",
        "clients": String(config.limits.clients),
        "constraints-per-client": String(config.limits.constraintsPerClient),
        "line-length": String(config.limits.lineLength),
        "reply-buffer": String(config.limits.replyBuffer),
        "clients-per-uid": String(config.limits.clientsPerUID),
        "reserved-clients": String(config.limits.reservedClients),
        "changes-per-second": String(config.limits.changesPerSecond),
        "samples-rate": String(config.limits.samplesRate),
        "socket": config.socket ?? "",
        "lock-permission": config.lockPermission.rawValue,
        "constrain-permission": config.constrainPermission.rawValue,
        "samples-permission": config.samplesPermission.rawValue,
        "sensors-permission": config.sensorsPermission.rawValue,
        "seat-users": config.seatUsers.configValue,
        "log-level": config.logLevel.rawValue,
        "auto-rotate": config.autoRotate?.rawValue ?? "",
        "tablet-mode-switch": config.tabletModeSwitch ? "auto" : "off",
        "enable": config.dbus.enabled ? "true" : "false",
        "polkit": config.dbus.polkit.rawValue,
        "replace": config.dbus.replace ? "true" : "false",
        "claimers": String(config.dbus.claimers),
    ]
    switch config.natural {
    case .auto: values["natural"] = "auto"
    case .fixed(let geometry): values["natural"] = geometry.rawValue
    }
    var text = "# written back by fuzz-config\n"
    var used = 0
    for (section, keys) in ConfigParser.knownKeys {
        text += "[\(section)]\n"
        for key in keys {
            guard let value = values[key] else {
                fuzzCheck(false, "fuzz-config does not know how to write key '\(key)': add it to written(_:)")
                return ""
            }
            text += value.isEmpty ? "\(key) =\n" : "\(key) = \(value)\n"
            used += 1
        }
    }
    fuzzCheck(used == values.count, "fuzz-config writes keys ConfigParser no longer knows")
    return text
}

/// The shortest decimal text that reads back as the same Double.
func number(_ value: Double) -> String {
    if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}
