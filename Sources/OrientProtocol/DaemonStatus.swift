/// The reply to the protocol's `status` request: what the daemon sees and why,
/// for `orientctl status` and a calibration wizard (docs/protocol.md, "status").
///
/// ```swift
/// let line = status.json(seq: 1)                        // {"type":"status","seq":1,…}
/// let again = try DaemonStatus(jsonLine: Array(line.utf8))
/// ```
///
/// A decoder ignores members it does not know, so the daemon may add some; a
/// member this type needs that is missing or of the wrong kind is an error
/// naming it. Strings the daemon reads from the system (paths, names) are
/// clipped to `maxTextBytes` so the line stays within the protocol's limit.
public struct DaemonStatus: Sendable, Equatable {
    /// The accelerometer the daemon chose, as udev and sysfs describe it.
    public struct Sensor: Sendable, Equatable {
        /// The IIO device's name, `iio:deviceN`.
        public var device: String
        /// Its sysfs path (`/sys/devices/…/iio:deviceN`).
        public var syspath: String
        /// The IIO `name` attribute (the chip: `mxc4005`, `accel_3d`), if any.
        public var name: String?
        /// The driver bound to the parent device, if any.
        public var driver: String?
        /// The parent device's modalias (`acpi:MXC4005:MXC4005:`, `i2c:…`), if any:
        /// half of a hwdb match key.
        public var modalias: String?
        /// How it is read now: `buffered`, `polled`, or `none` while idle.
        public var capture: String
        /// The sample rate the daemon asks for, Hz.
        public var rateHz: Double?
        /// The rate readings arrived at lately, Hz; nil when none came (idle,
        /// or an on-change sensor at rest).
        public var deliveredHz: Double?
        /// The sensor reports only on change.
        public var onChange: Bool

        /// A sensor as the daemon reports it; fields not given are unknown.
        public init(
            device: String, syspath: String, name: String? = nil, driver: String? = nil, modalias: String? = nil,
            capture: String = "none", rateHz: Double? = nil, deliveredHz: Double? = nil, onChange: Bool = false
        ) {
            self.device = device
            self.syspath = syspath
            self.name = name
            self.driver = driver
            self.modalias = modalias
            self.capture = capture
            self.rateHz = rateHz
            self.deliveredHz = deliveredHz
            self.onChange = onChange
        }
    }

    /// A value and the reason it was chosen (`config`, `default`, `drm`, …).
    public struct Decision<Value: Sendable & Equatable>: Sendable, Equatable {
        /// What was chosen.
        public var value: Value
        /// Why: where it came from (`config`, `default`, `drm`, …).
        public var reason: String

        /// A value chosen for `reason`.
        public init(_ value: Value, reason: String) {
            self.value = value
            self.reason = reason
        }
    }

    /// One constraint in force, and the client holding it.
    public struct Constraint: Sendable, Equatable {
        /// The constraint's id, as its client registered it.
        public var id: String
        /// The orientations it allows (resolved mask names, normal … right-up).
        public var allow: [String]
        /// The client's serial number, as the daemon's log names it (`client 7`).
        public var client: Int
        /// The client's credentials (SO_PEERCRED), when the kernel gave them.
        public var uid: UInt32?
        /// The process id, when the kernel gave it.
        public var pid: Int32?

        /// A constraint in force.
        public init(id: String, allow: [String], client: Int, uid: UInt32?, pid: Int32?) {
            self.id = id
            self.allow = allow
            self.client = client
            self.uid = uid
            self.pid = pid
        }
    }

    /// The rotation lock and who set it (uid kept across restarts; pid only when
    /// set since the daemon started).
    public struct Lock: Sendable, Equatable {
        /// The orientation the rotation is locked to.
        public var orientation: Orientation
        /// The user who set it, when known.
        public var uid: UInt32?
        /// The process that set it, when set since the daemon started.
        public var pid: Int32?

        /// A lock to `orientation`.
        public init(orientation: Orientation, uid: UInt32?, pid: Int32?) {
            self.orientation = orientation
            self.uid = uid
            self.pid = pid
        }
    }

    /// Something the daemon found wrong with what it reads, and what fixes it
    /// (a sensor whose scale is wrong, …). The daemon goes on working around
    /// it where it can; `orientctl status` lists it with its fix.
    public struct Problem: Sendable, Equatable {
        /// The sensor it concerns (`iio:device4`), nil when none in particular.
        public var sensor: String?
        /// What is wrong, one line: `readings at rest are 26.1 g, not 1 g: taking 256 m/s² as g`.
        public var problem: String
        /// What fixes it, one line.
        public var fix: String

        /// A problem with `sensor` (nil: none in particular), and its fix.
        public init(sensor: String? = nil, problem: String, fix: String) {
            self.sensor = sensor
            self.problem = problem
            self.fix = fix
        }
    }

    /// The daemon's version (`orientd --version`).
    public var version: String
    /// The configuration file read, nil when none was (the defaults apply).
    public var configFile: String?
    /// The trace replayed with `--mock`, nil on hardware.
    public var mockTrace: String?
    /// `active`, `idle`, `absent` or `mock`, as in the `state` message.
    public var sensorState: SensorStatus
    /// The chosen accelerometer; nil when none was found (or in mock mode).
    public var sensor: Sensor?
    /// The machine's DMI modalias (`/sys/class/dmi/id/modalias`): the other half
    /// of a hwdb match key. Nil where there is no DMI (most ARM devices).
    public var dmiModalias: String?
    /// The mount matrix in use and where it came from: `config`,
    /// `ACCEL_MOUNT_MATRIX` (udev), `mount_matrix`, `in_accel_mount_matrix`,
    /// `in_mount_matrix` (sysfs), `trace` (the replayed trace's header) or `identity`.
    public var mountMatrix: Decision<MountMatrix>
    /// The panel's natural geometry, and why: `config`, `drm` (the internal
    /// panel's mode) or `default` (nothing found: portrait).
    public var natural: Decision<NaturalGeometry>
    /// The sign of z: +1 when a device lying face up reads +g on z after the
    /// mount matrix, −1 when it reads −g; and why (`default`, `config`, …).
    public var zSign: Decision<Int>
    /// Clients connected, subscribed to `state`, and reading `samples`.
    public var clients: Int
    /// Clients subscribed to `state`.
    public var subscribers: Int
    /// Clients reading `samples`.
    public var sampleReaders: Int
    /// Processes holding the orientation over D-Bus; nil when the daemon has no D-Bus side.
    public var dbusClaimers: Int?
    /// The rotation lock, nil when unlocked.
    public var lock: Lock?
    /// Constraints in force, in client order; the first ones when there are
    /// more than fit in a line (`constraintCount` says how many there are).
    public var constraints: [Constraint]
    /// How many constraints are in force (`constraints` may list fewer).
    public var constraintCount: Int
    /// What the daemon found wrong and works around, with the fixes; empty
    /// when nothing is (and from daemons older than the member).
    public var problems: [Problem]
    /// Every sensor the daemon found or skipped (`sensors`), accelerometer
    /// first; empty from a daemon older than the list.
    public var sensors: [SensorEntry] = []
    /// Tablet mode and the auto-rotate policy (`tablet_mode`); nil from a
    /// daemon older than the member.
    public var tabletMode: TabletModeStatus?

    /// A status; `constraintCount` defaults to the number of `constraints`.
    public init(
        version: String, configFile: String? = nil, mockTrace: String? = nil, sensorState: SensorStatus,
        sensor: Sensor? = nil, dmiModalias: String? = nil, mountMatrix: Decision<MountMatrix>,
        natural: Decision<NaturalGeometry>, zSign: Decision<Int>, clients: Int = 0, subscribers: Int = 0,
        sampleReaders: Int = 0, dbusClaimers: Int? = nil, lock: Lock? = nil, constraints: [Constraint] = [],
        constraintCount: Int? = nil, problems: [Problem] = []
    ) {
        self.version = version
        self.configFile = configFile
        self.mockTrace = mockTrace
        self.sensorState = sensorState
        self.sensor = sensor
        self.dmiModalias = dmiModalias
        self.mountMatrix = mountMatrix
        self.natural = natural
        self.zSign = zSign
        self.clients = clients
        self.subscribers = subscribers
        self.sampleReaders = sampleReaders
        self.dbusClaimers = dbusClaimers
        self.lock = lock
        self.constraints = constraints
        self.constraintCount = constraintCount ?? constraints.count
        self.problems = problems
    }

    /// Longest string the encoder writes for a path or name read from the system.
    public static let maxTextBytes = 512
}
