public import OrientProtocol
public import OrientSense
public import OrientAccess

/// Everything `/etc/orientd/orientd.conf` can set (docs/configuration.md), with the documented
/// defaults. `DaemonConfig()` is what the daemon runs with when there is no file.
///
/// ```swift
/// let (config, warnings) = try ConfigParser.parse(bytes, file: path)
/// let mask = config.defaultAllowedMask(natural: .landscape)
/// ```
///
/// Fields map one to one onto the file's keys; docs/configuration.md lists them
/// with units and ranges. Values set in code are not range-checked here:
/// `ConfigParser` checks the file, `classifier.problems()` the classifier.
public struct DaemonConfig: Sendable, Equatable {
    /// The path the daemon reads when `--config` is not given.
    public static let defaultPath = "/etc/orientd/orientd.conf"
    /// The socket path used when neither the config, `--socket` nor `ORIENTD_SOCKET` names one.
    public static let defaultSocketPath = "/run/orientd/orientd.sock"

    // MARK: [classifier]

    /// How quickly the screen follows a turn (`sensitivity`, 0.25…4): the
    /// classifier's settle and hold times are divided by it.
    public var sensitivity: Double = 1
    /// Whether `bottom-up` may be proposed at all (`allow-upside-down`).
    public var allowUpsideDown = true
    /// `z-sign`: `auto` (the daemon decides per device, `ZSign.decide`) or fixed.
    public var zSign: ZSignSetting = .auto

    /// The classifier's parameters: its constants with the three settings
    /// above, and the z sign decided as it is before a device's driver is known
    /// (the daemon decides again then). `onChange` comes from the sensor.
    public var classifier: ClassifierConfig {
        var classifier = ClassifierConfig(sensitivity: sensitivity)
        classifier.allowUpsideDown = allowUpsideDown
        return ZSign.decide(setting: zSign, driverName: nil).applied(to: classifier)
    }

    // MARK: [orientation]

    /// The panel's natural shape (`natural`): `auto` reads it from DRM, else portrait.
    public var natural: NaturalGeometrySetting = .auto
    /// The mask used when no constraint is active or constraints conflict
    /// (`default-allowed`), as mask names. Kept as names because `portrait` and
    /// `landscape` resolve against the natural geometry, known only at run time.
    public var defaultAllowed: [String] = ["all"]
    /// On a landscape-native panel, the sideways orientation the mask name
    /// `portrait` means (`portrait-on-landscape`): right-up unless set.
    public var portraitOnLandscape: PortraitOnLandscape = .rightUp

    // MARK: [sensor]

    /// Pins the accelerometer (`device`): a `/sys/…` path, a `/dev/…` path or an
    /// IIO device name. nil: discover it (docs/behaviour.md).
    public var device: String?
    /// Overrides every other mount matrix source (`mount-matrix`). nil: udev,
    /// sysfs, then identity (docs/behaviour.md).
    public var mountMatrix: MountMatrix?
    /// Overrides the sysfs scale of all three axes (`scale`), m/s² per raw
    /// count, and stops the daemon learning g from readings at rest. nil: the
    /// driver's `in_accel_{x,y,z}_scale` or `in_accel_scale` (docs/behaviour.md).
    public var scale: Double?

    // MARK: [limits]

    /// Resource limits of the socket server (`[limits]`).
    public var limits = Limits()

    // MARK: [daemon]

    /// The socket path (`socket`, absolute). nil: ``defaultSocketPath``.
    /// `--socket` and `ORIENTD_SOCKET` override either (docs/protocol.md).
    public var socket: String?
    /// Who may `lock` and `unlock` (`lock-permission`).
    public var lockPermission: LockPermission = .seat
    /// Who may `constrain` and `release` (`constrain-permission`).
    public var constrainPermission: AccessPolicy = .seat
    /// Who may stream raw readings with `samples` (`samples-permission`).
    public var samplesPermission: AccessPolicy = .root
    /// Who may read the light and proximity sensors with `watch-sensors`
    /// (`sensors-permission`): a proximity sensor tells when a phone is held
    /// to an ear, so by default only root and the seat.
    public var sensorsPermission: AccessPolicy = .seat
    /// Uids that count as the seat besides logind's active session (`seat-users`).
    public var seatUsers: SeatUsers = .none
    /// Least severe log lines written (`log-level`).
    public var logLevel: LogLevel = .notice
    /// When the effective orientation follows the sensor (`auto-rotate`).
    /// nil: not set, and the daemon decides: `tablet-mode` where a
    /// tablet-mode source exists (`SW_TABLET_MODE` or a base accelerometer),
    /// `always` where none does.
    public var autoRotate: AutoRotate?
    /// Whether the hinge's decision is published as a uinput `SW_TABLET_MODE`
    /// switch where no kernel switch exists (`tablet-mode-switch`: `auto`, or `off`).
    public var tabletModeSwitch = true

    // MARK: [dbus]

    /// The iio-sensor-proxy-compatible D-Bus side (`[dbus]`).
    public var dbus = DBusConfig()

    /// The documented defaults.
    public init() {}

    /// The `default-allowed` mask on a panel of `natural` geometry. Names are
    /// validated when the file is parsed; names set in code that do not resolve
    /// give `.all`, so the daemon always has a usable mask.
    public func defaultAllowedMask(natural: NaturalGeometry) -> OrientationMask {
        (try? mask(names: defaultAllowed, natural: natural)) ?? .all
    }

    /// Mask names resolved on a panel of `natural` geometry with this
    /// configuration's `portrait-on-landscape`.
    public func mask(names: some Sequence<some StringProtocol>, natural: NaturalGeometry) throws(MaskError) -> OrientationMask {
        try OrientationMask(names: names, natural: natural, portraitOnLandscape: portraitOnLandscape)
    }

    /// Limits that keep one client or a flood of them from costing the daemon
    /// unbounded memory (docs/protocol.md).
    public struct Limits: Sendable, Equatable {
        /// Most clients connected at once (`clients`, 1…65536).
        public var clients = 256
        /// Most constraints one client may hold (`constraints-per-client`, 1…1024).
        public var constraintsPerClient = 32
        /// Longest request line, bytes, newline excluded (`line-length`, 64…65536).
        public var lineLength = 4096
        /// Bytes of unread replies a client may have queued before it is
        /// disconnected (`reply-buffer`, 4096…16 MiB).
        public var replyBuffer = 65536
        /// Most clients one uid other than root may have connected
        /// (`clients-per-uid`, 1…65536).
        public var clientsPerUID = 64
        /// Client slots only root and the seat may take: other uids are refused
        /// once `clients - reservedClients` are connected (`reserved-clients`, 0…65536).
        public var reservedClients = 32
        /// How many times a second one client's constraints and locks may change
        /// what the daemon publishes; changes beyond are coalesced, the latest
        /// applied when the client's budget allows (`changes-per-second`, 1…1000).
        public var changesPerSecond = 20
        /// Most samples a second a `samples` client other than root receives
        /// (`samples-rate`, 1…1000 Hz).
        public var samplesRate = 50

        /// The documented defaults.
        public init() {}
    }

    /// Severity threshold of the log, in syslog order; the names are those of
    /// `--log-level`. (Nested so it never clashes with the daemon's own log type.)
    public enum LogLevel: String, Sendable, Hashable, CaseIterable {
        case error, warning, notice, info, debug
    }
}

/// How the panel's natural geometry is chosen (`[orientation] natural`).
public enum NaturalGeometrySetting: Sendable, Hashable {
    /// Read the internal panel's preferred mode from DRM sysfs; portrait if that fails.
    case auto
    /// Configured: the panel is this shape in its natural orientation.
    case fixed(NaturalGeometry)

    /// The geometry to use, given what DRM detection found (nil: nothing).
    public func resolved(detected: NaturalGeometry?) -> NaturalGeometry {
        switch self {
        case .auto: return detected ?? .portrait
        case .fixed(let geometry): return geometry
        }
    }
}
