#if canImport(Glibc)
import Glibc
#endif

/// What udev matches a sensor's hwdb entry against, and the keys to write for it.
///
/// systemd's `60-sensor.rules` looks an IIO sensor up as
/// `sensor:modalias:<parent modalias>:<DMI modalias>`, or
/// `sensor:<label>:modalias:…` when the sensor has a `label`, where the parent
/// is the nearest I2C, USB or platform device and the DMI modalias is
/// `/sys/class/dmi/id/modalias` (`dmi:bvn…:svn<vendor>:pn<product>:…`).
/// Entries in `60-sensor.hwdb` are globs over that string, written
/// `sensor:modalias:acpi:BOSC0200*:dmi:*svnVendor:pnProduct:*`: the sensor's
/// ID, then the machine's vendor and product name, so the entry survives a
/// firmware update.
public struct SensorIdentity: Sendable, Equatable {
    /// The IIO device's `label` attribute, if it has a non-empty one.
    public var label: String?
    /// The `modalias` of the sensor's nearest I2C, USB or platform parent (`acpi:BOSC0200:BOSC0200:`).
    public var parentModalias: String?
    /// `/sys/class/dmi/id/modalias` (absent on machines without DMI, such as most ARM boards).
    public var dmiModalias: String?

    public init(label: String? = nil, parentModalias: String? = nil, dmiModalias: String? = nil) {
        self.label = label.flatMap { $0.isEmpty ? nil : $0 }
        self.parentModalias = parentModalias.flatMap { $0.isEmpty ? nil : $0 }
        self.dmiModalias = dmiModalias.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The exact string udev looks up for this sensor; nil without a parent modalias.
    public var lookupString: String? {
        guard let parentModalias else { return nil }
        return "\(prefix)modalias:\(parentModalias):\(dmiModalias ?? "")"
    }

    /// `sensor:` or `sensor:<label>:`.
    var prefix: String { label.map { "sensor:\($0):" } ?? "sensor:" }
}

/// A match key for this sensor, and what it matches.
public struct HwdbMatchKey: Sendable, Equatable {
    /// The key line, `sensor:modalias:…`.
    public var key: String
    /// What it matches, in words ("this sensor on every TOSHIBA WT10-A").
    public var scope: String

    public init(key: String, scope: String) {
        self.key = key
        self.scope = scope
    }

    /// Whether the key matches `lookup` as udev's hwdb does (shell glob).
    public func matches(_ lookup: String) -> Bool {
        fnmatch(key, lookup, 0) == 0
    }
}

/// The match keys a sensor could be written under, best first, and anything
/// the user should know before choosing.
public struct HwdbKeyChoice: Sendable, Equatable {
    /// Candidate keys, the recommended one first. Empty when no key can work.
    public var keys: [HwdbMatchKey]
    /// Why the choice is not clear-cut, or why there is none; empty when the
    /// first key is plainly right.
    public var notes: [String]

    /// Whether the user should be asked (more than one sensible key).
    public var needsChoice: Bool { keys.count > 1 }

    /// DMI values firmware leaves as placeholders: a key on them matches many machines.
    static let placeholders: Set<String> = [
        "", "tobefilledbyo.e.m.", "to be filled by o.e.m.", "defaultstring", "default string", "systemproductname",
        "system product name", "systemmanufacturer", "system manufacturer", "notapplicable", "not applicable", "none",
        "oem", "o.e.m.", "type1productconfigid", "type1 - product config id", "123456789", "x.x", "default",
    ]

    /// The keys for `identity`.
    public init(for identity: SensorIdentity) {
        guard let parent = identity.parentModalias else {
            keys = []
            notes = [
                "the sensor has no I2C, USB or platform parent with a modalias, so systemd's 60-sensor.rules never looks it up in the hwdb; use orientd's mount-matrix setting instead"
            ]
            return
        }
        let sensor = "\(identity.prefix)modalias:\(HwdbKeyChoice.sensorPattern(parent))"
        guard let dmi = identity.dmiModalias else {
            keys = [HwdbMatchKey(key: "\(sensor):*", scope: "this sensor model on any machine")]
            notes = [
                "this machine has no DMI identity (/sys/class/dmi/id/modalias; usual on ARM boards), so the key can only name the sensor and matches every machine with this sensor model: keep it in your local file, and for systemd upstream add the board's device-tree compatible in the modalias"
            ]
            return
        }
        let fields = HwdbKeyChoice.dmiFields(dmi)
        func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }
        func usable(_ name: String) -> String? {
            guard let v = value(name), !HwdbKeyChoice.placeholders.contains(v.lowercased()) else { return nil }
            return v
        }
        let exact = HwdbMatchKey(
            key: "\(sensor):\(HwdbKeyChoice.escaped(dmi))*",
            scope: "this sensor on this exact machine and firmware version (stops matching after a firmware update)")
        if let vendor = usable("svn"), let product = usable("pn") {
            keys = [
                HwdbMatchKey(
                    key: "\(sensor):dmi:*svn\(HwdbKeyChoice.escaped(vendor)):pn\(HwdbKeyChoice.escaped(product)):*",
                    scope: "this sensor on every \(vendor) \(product)")
            ]
            notes = []
            return
        }
        var narrowed: [HwdbMatchKey] = []
        if let boardVendor = usable("rvn"), let board = usable("rn") {
            narrowed.append(
                HwdbMatchKey(
                    key: "\(sensor):dmi:*rvn\(HwdbKeyChoice.escaped(boardVendor)):rn\(HwdbKeyChoice.escaped(board)):*",
                    scope: "this sensor on every machine with a \(boardVendor) \(board) board"))
        }
        if let biosVendor = value("bvn"), let biosVersion = value("bvr"), let biosDate = value("bd") {
            narrowed.append(
                HwdbMatchKey(
                    key: "\(sensor):dmi:bvn\(HwdbKeyChoice.escaped(biosVendor)):bvr\(HwdbKeyChoice.escaped(biosVersion)):bd\(HwdbKeyChoice.escaped(biosDate)):*",
                    scope: "this sensor with this firmware build (\(biosVersion), \(biosDate))"))
        }
        keys = narrowed + [exact]
        notes = [
            "this machine's DMI vendor or product name is a placeholder ('\(value("svn") ?? "")' '\(value("pn") ?? "")'), so a key on them would match many unrelated machines; pick a narrower key (60-sensor.hwdb uses the board or the firmware build for such machines)"
        ]
    }

    /// `acpi:BOSC0200:BOSC0200:` → `acpi:BOSC0200*`: the bus and the first ID
    /// field, as 60-sensor.hwdb writes them.
    static func sensorPattern(_ modalias: String) -> String {
        guard let colon = modalias.firstIndex(of: ":") else { return escaped(modalias) + "*" }
        let rest = modalias[modalias.index(after: colon)...]
        let id = rest.prefix { $0 != ":" }
        return escaped(String(modalias[..<colon])) + ":" + escaped(String(id)) + "*"
    }

    /// The `name value` fields of a DMI modalias (`dmi:bvnX:bvrY:…:`), in order.
    static func dmiFields(_ dmi: String) -> [(name: String, value: String)] {
        var body = Substring(dmi)
        if body.hasPrefix("dmi:") { body = body.dropFirst(4) }
        return body.split(separator: ":", omittingEmptySubsequences: true).map { field in
            let name = dmiFieldNames.filter { field.hasPrefix($0) }.max { $0.count < $1.count } ?? ""
            return (name, String(field.dropFirst(name.count)))
        }
    }

    /// The field names of the kernel's DMI modalias (drivers/firmware/dmi-id.c).
    static let dmiFieldNames = [
        "bvn", "bvr", "bd", "br", "efr", "svn", "pn", "pvr", "rvn", "rn", "rvr", "cvn", "ct", "cvr", "sku",
    ]

    /// Glob characters in a literal value become `?`, which matches them too.
    static func escaped(_ text: String) -> String {
        String(text.map { "*?[]".contains($0) ? "?" : $0 })
    }
}
