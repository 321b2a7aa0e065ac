/// The `[dbus]` section: orientd's iio-sensor-proxy-compatible D-Bus side
/// (docs/dbus.md). Off unless asked for.
public struct DBusConfig: Sendable, Equatable {
    /// Serve `net.hadess.SensorProxy` on the system bus (`enable`; `--dbus` turns it on too).
    public var enabled = false
    /// How claims are authorised (`polkit`).
    public var polkit: DBusPolkit = .auto
    /// Take the name from its owner at start (`replace`; `--replace` too).
    public var replace = false
    /// Most D-Bus senders holding an accelerometer claim at once (`claimers`).
    public var claimers = 256

    public init() {}
}

/// Whether a claim is checked against polkit action `net.hadess.SensorProxy.claim-sensor`.
public enum DBusPolkit: String, Sendable, Hashable, CaseIterable {
    /// Ask polkit; where polkit is not on the bus, allow.
    case auto
    /// Ask polkit; where polkit is not on the bus, refuse (as iio-sensor-proxy does).
    case required
    /// Never ask: anyone the bus policy lets call may claim.
    case off
}
