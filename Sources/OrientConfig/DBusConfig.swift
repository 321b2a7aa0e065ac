public import OrientAccess

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

    /// The defaults: off.
    public init() {}
}
