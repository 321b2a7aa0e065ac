/// A recorded or synthetic sensor trace (SPEC §8): metadata and samples in the
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

    /// A trace; every field defaults to what a file without that header means.
    public init(
        version: Int = 1, mountMatrix: MountMatrix = .identity, rateHz: Double? = nil,
        onChange: Bool = false, description: String? = nil,
        extraHeaders: [(key: String, value: String)] = [], samples: [Sample] = []
    ) {
        self.version = version
        self.mountMatrix = mountMatrix
        self.rateHz = rateHz
        self.onChange = onChange
        self.description = description
        self.extraHeaders = extraHeaders
        self.samples = samples
    }

    /// Equal when every header, extra headers in order, and every sample are.
    public static func == (a: Trace, b: Trace) -> Bool {
        a.version == b.version && a.mountMatrix == b.mountMatrix && a.rateHz == b.rateHz
            && a.onChange == b.onChange && a.description == b.description
            && a.extraHeaders.map(\.key) == b.extraHeaders.map(\.key)
            && a.extraHeaders.map(\.value) == b.extraHeaders.map(\.value)
            && a.samples == b.samples
    }
}
