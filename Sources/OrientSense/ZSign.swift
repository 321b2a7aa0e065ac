import OrientProtocol

/// The `z-sign` setting: decided per device, or fixed in the config.
public enum ZSignSetting: Sendable, Equatable {
    /// Decide from the driver (docs/classifier.md, "The z sign").
    case auto
    /// +1 when lying face up reads +z, −1 when it reads −z.
    case fixed(Double)
}

/// The z sign the classifier uses for a device, and why (`orientctl status`
/// shows both).
///
/// After the mount matrix, x and y follow one convention everywhere (upright
/// reads (0, −g, 0)), but z does not: chips reporting proper acceleration
/// under a rotation read +g lying face up, while HID sensor hubs (the Windows
/// convention) and ChromeOS's EC sensors under systemd's hwdb matrix read −g.
/// Readings cannot settle it: a device held tilted back with one sign reads
/// exactly like one held overhead with the other. So the sign comes from the
/// config, else from the driver family, and only a configured sign is
/// `known`; an assumed one may never hold the orientation (`ClassifierConfig.zSignKnown`).
public struct ZSign: Sendable, Equatable, CustomStringConvertible {
    /// +1 when lying face up reads +z, −1 when it reads −z.
    public var sign: Double
    /// True when the config set it; false when it is the driver family's default.
    public var known: Bool
    /// Why: `config`, the driver family, a trace header, or the default.
    public var source: String

    public init(sign: Double, known: Bool, source: String) {
        self.sign = sign
        self.known = known
        self.source = source
    }

    /// `+1 (face up reads +z), assumed: <source>`, for logs and status.
    public var description: String {
        "\(sign < 0 ? "-1 (face up reads -z)" : "+1 (face up reads +z)"), \(known ? "configured" : "assumed"): \(source)"
    }

    /// Driver families whose sign is known from how they report: IIO device
    /// names (`name` in sysfs), and `ssc-accel` for a Qualcomm phone's Sensor Core.
    static let driverFamilies: [(name: String, sign: Double, why: String)] = [
        ("accel_3d", -1, "hid-sensor-accel-3d: HID sensor hubs follow the Windows convention"),
        ("cros-ec-accel", -1, "cros-ec-accel: ChromeOS EC readings under hwdb's -1,0,0;0,-1,0;0,0,-1 matrix"),
        ("cros-ec-accel-legacy", -1, "cros-ec-accel-legacy: ChromeOS EC readings under hwdb's -1,0,0;0,-1,0;0,0,-1 matrix"),
        ("ssc-accel", 1, "ssc-accel: the Sensor Core reports Android's frame, face up reads +9.81 on z (x and y are turned to hwdb's convention, z is kept)"),
    ]

    /// The decision for a device: the config's sign if it sets one; else the
    /// recorded sign of a replayed trace (`z_sign` header); else the driver
    /// family of the IIO device named `driverName`; else +1.
    public static func decide(setting: ZSignSetting, driverName: String?, traceHeader: String? = nil) -> ZSign {
        if case .fixed(let sign) = setting { return ZSign(sign: sign, known: true, source: "config z-sign") }
        if let header = traceHeader, let value = DecimalNumber.parse(header), value == 1 || value == -1 {
            return ZSign(sign: value, known: false, source: "trace header z_sign")
        }
        if let name = driverName, let family = driverFamilies.first(where: { $0.name == name }) {
            return ZSign(sign: family.sign, known: false, source: family.why)
        }
        let driver = driverName.map { "driver \($0)" } ?? "no driver name"
        return ZSign(sign: 1, known: false, source: "\(driver): proper acceleration under a rotation (the default)")
    }

    /// `config` with this sign applied.
    public func applied(to config: ClassifierConfig) -> ClassifierConfig {
        var config = config
        config.zSign = sign
        config.zSignKnown = known
        return config
    }
}
