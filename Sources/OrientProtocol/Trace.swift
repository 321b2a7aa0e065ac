/// A recorded or synthetic sensor trace (docs/traces.md): metadata and samples in the
/// **sensor frame** (before the mount matrix).
public struct Trace: Sendable, Equatable {
    /// `orientd-trace` header: the format version (1).
    public var version: Int
    /// `mount_matrix` header; identity when absent.
    public var mountMatrix: MountMatrix
    /// `rate_hz` header (informational), nil when absent.
    public var rateHz: Double?
    /// `on_change` header: the sensor reports only when the reading changes.
    public var onChange: Bool
    /// `description` header, nil when absent.
    public var description: String?
    /// Other `# key: value` header lines, kept in order (unknown keys are metadata, not errors).
    public var extraHeaders: [(key: String, value: String)]
    /// Samples, times non-decreasing, vectors in m/s² in the sensor frame.
    public var samples: [Sample]
    /// The optional columns after `t_ms,x,y,z`, in the column header's order
    /// (empty for a trace of the accelerometer alone).
    public var columns: [TraceColumn] = []
    /// `light_unit` header: the unit of the `light` column (`lux` when absent).
    public var lightUnit: LightUnitName = .lux
    /// The readings of the optional columns, times non-decreasing: one per line
    /// that gave a `light` or `proximity` value.
    public var environment: [EnvironmentSample] = []
    /// The base accelerometer of a convertible (the `base_x,base_y,base_z`
    /// columns, ``TraceColumn/base``): one sample per line that gave them,
    /// times non-decreasing, m/s² in the base sensor's frame (before
    /// ``baseMountMatrix``). Empty for a trace of one accelerometer.
    public var baseSamples: [Sample] = []
    /// `base_mount_matrix` header: the base sensor's mount matrix; identity when
    /// absent. It maps the base's readings into the frame the display would
    /// have with the lid opened flat to 180° (docs/traces.md).
    public var baseMountMatrix: MountMatrix = .identity

    /// A trace; every field defaults to what a file without that header means.
    public init(
        version: Int = 1, mountMatrix: MountMatrix = .identity, rateHz: Double? = nil,
        onChange: Bool = false, description: String? = nil,
        extraHeaders: [(key: String, value: String)] = [], samples: [Sample] = [],
        columns: [TraceColumn] = [], lightUnit: LightUnitName = .lux, environment: [EnvironmentSample] = [],
        baseSamples: [Sample] = [], baseMountMatrix: MountMatrix = .identity
    ) {
        self.version = version
        self.mountMatrix = mountMatrix
        self.rateHz = rateHz
        self.onChange = onChange
        self.description = description
        self.extraHeaders = extraHeaders
        self.samples = samples
        self.columns = columns
        self.lightUnit = lightUnit
        self.environment = environment
        self.baseSamples = baseSamples
        self.baseMountMatrix = baseMountMatrix
    }

    /// Equal when every header, extra headers in order, and every sample are.
    public static func == (a: Trace, b: Trace) -> Bool {
        a.version == b.version && a.mountMatrix == b.mountMatrix && a.rateHz == b.rateHz
            && a.onChange == b.onChange && a.description == b.description
            && a.extraHeaders.map(\.key) == b.extraHeaders.map(\.key)
            && a.extraHeaders.map(\.value) == b.extraHeaders.map(\.value)
            && a.samples == b.samples
            && a.columns == b.columns && a.lightUnit == b.lightUnit && a.environment == b.environment
            && a.baseSamples == b.baseSamples && a.baseMountMatrix == b.baseMountMatrix
    }
}

/// An optional column of a trace after `t_ms,x,y,z` (docs/traces.md).
public enum TraceColumn: String, Sendable, Hashable, CaseIterable {
    /// The ambient light level, 0 or more, in the trace's `light_unit`.
    case light
    /// The proximity sensor: `1` near, `0` far.
    case proximity
    /// A convertible's base accelerometer: three columns, `base_x,base_y,base_z`,
    /// always together and in that order (``Trace/baseSamples``).
    case base

    /// The names the column takes in the column header: its raw value, or
    /// `base_x`, `base_y`, `base_z` for the base.
    public var headerNames: [String] {
        self == .base ? ["base_x", "base_y", "base_z"] : [rawValue]
    }

    /// Whether it is a reading of the light or proximity sensor (``EnvironmentSample``).
    public var isEnvironment: Bool { self != .base }
}

/// What one trace line gave in the optional columns: a light level and/or
/// whether something is near, at `tMs` (nil: no reading on that line).
public struct EnvironmentSample: Sendable, Equatable {
    /// Time in ms, on the trace's clock.
    public var tMs: Double
    /// The light level in the trace's `light_unit`, if the line gave one.
    public var light: Double?
    /// Near (true) or far (false), if the line gave a proximity reading.
    public var proximity: Bool?

    /// A reading of the optional columns at `tMs`.
    public init(tMs: Double, light: Double? = nil, proximity: Bool? = nil) {
        self.tMs = tMs
        self.light = light
        self.proximity = proximity
    }
}
