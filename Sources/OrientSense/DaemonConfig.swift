public import OrientProtocol

/// Everything `/etc/orientd/orientd.conf` can set (SPEC §10), with the SPEC
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

    /// Every classifier parameter (`[classifier]`). `onChange` is not a config key:
    /// it comes from the sensor; `zSign` and `zSignKnown` follow `zSign` below.
    public var classifier = ZSign(sign: 1, known: false, source: "").applied(to: ClassifierConfig())
    /// `z-sign`: `auto` (the daemon decides per device, `ZSign.decide`) or fixed.
    public var zSign: ZSignSetting = .auto

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
    /// IIO device name. nil: discover it (SPEC §6).
    public var device: String?
    /// Overrides every other mount matrix source (`mount-matrix`). nil: udev,
    /// sysfs, then identity (SPEC §6).
    public var mountMatrix: MountMatrix?
    /// When the polled path slows down while the device rests (`still-interval`,
    /// `still-after`, `motion-angle`, `motion-magnitude`).
    public var sampling = SamplingPolicy.Settings()

    // MARK: [limits]

    /// Resource limits of the socket server (`[limits]`).
    public var limits = Limits()

    // MARK: [daemon]

    /// The socket path (`socket`, absolute). nil: ``defaultSocketPath``.
    /// `--socket` and `ORIENTD_SOCKET` override either (SPEC §7).
    public var socket: String?
    /// Who may `lock` and `unlock` (`lock-permission`).
    public var lockPermission: LockPermission = .anyone
    /// Least severe log lines written (`log-level`).
    public var logLevel: LogLevel = .notice

    /// The SPEC defaults.
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
    /// unbounded memory (SPEC §7).
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

        /// The SPEC defaults.
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

/// Who may set and clear the user rotation lock (`[daemon] lock-permission`).
///
/// The lock is a user setting on what is usually a single-user device, so the
/// default lets any client that can reach the socket use it.
public enum LockPermission: String, Sendable, Hashable, CaseIterable {
    /// Any client.
    case anyone
    /// When no lock is set, any client; once set, only the uid that set it, or root.
    case sameUser = "same-user"
    /// Only uid 0.
    case root

    /// Whether a client running as `uid` may lock or unlock, when the current
    /// lock was set by `lockOwner` (nil: no lock is set). For `same-user` the
    /// daemon keeps the owner's uid with the persisted lock.
    public func permits(uid: UInt32, lockOwner: UInt32?) -> Bool {
        switch self {
        case .anyone: return true
        case .sameUser: return uid == 0 || lockOwner == nil || lockOwner == uid
        case .root: return uid == 0
        }
    }
}
