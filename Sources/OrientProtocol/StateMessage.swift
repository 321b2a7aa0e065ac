/// Whether and how the daemon is reading a sensor, as published in `state`.
public enum SensorStatus: String, Sendable, Hashable, CaseIterable {
    /// Being sampled.
    case active
    /// Present, nobody subscribed.
    case idle
    /// None found.
    case absent
    /// Replaying a trace (`orientd --mock`).
    case mock
}

/// The protocol's `state` message (docs/protocol.md): what to show, and why.
public struct StateMessage: Sendable, Equatable {
    /// The effective orientation (what to show).
    public var orientation: Orientation
    /// The physical orientation from the classifier (`undefined` before the first).
    public var physical: Orientation
    /// How far the device leans out of the vertical (never changes `orientation`).
    public var tilt: Tilt
    /// Degrees counter-clockwise the content must turn (wl_output convention).
    public var rotation: Int
    /// The shape of the screen as shown: `orientation` on the panel's natural geometry.
    public var layout: Layout
    /// The axis to stack content along: `vertical` in a portrait layout, `horizontal` in landscape.
    public var axis: Axis
    /// The allowed set after constraints, in quarter-turn order.
    public var allowed: OrientationMask
    /// The user's rotation lock, nil when unlocked.
    public var locked: Orientation?
    /// Whether and how the daemon is reading a sensor.
    public var sensor: SensorStatus
    /// Sensor clock, ms (trace time in mock mode, CLOCK_MONOTONIC otherwise).
    public var tMs: Double
    /// Tablet or laptop, as the daemon's tablet-mode source says (`unknown`
    /// without one, and from a daemon older than the field).
    public var tabletMode: TabletMode
    /// When the effective orientation follows the physical one (`always` from
    /// a daemon older than the field).
    public var autoRotate: AutoRotate

    /// A state with every field given (the daemon computes them; tests and fake servers build them).
    public init(
        orientation: Orientation, physical: Orientation, tilt: Tilt, rotation: Int, layout: Layout,
        axis: Axis, allowed: OrientationMask, locked: Orientation?, sensor: SensorStatus, tMs: Double,
        tabletMode: TabletMode = .unknown, autoRotate: AutoRotate = .always
    ) {
        self.orientation = orientation
        self.physical = physical
        self.tilt = tilt
        self.rotation = rotation
        self.layout = layout
        self.axis = axis
        self.allowed = allowed
        self.locked = locked
        self.sensor = sensor
        self.tMs = tMs
        self.tabletMode = tabletMode
        self.autoRotate = autoRotate
    }

    /// True when everything but the time is the same (nothing worth publishing).
    public func sameContent(as other: StateMessage) -> Bool {
        orientation == other.orientation && physical == other.physical && tilt == other.tilt
            && rotation == other.rotation && layout == other.layout && axis == other.axis
            && allowed == other.allowed && locked == other.locked && sensor == other.sensor
            && tabletMode == other.tabletMode && autoRotate == other.autoRotate
    }

    /// The JSON line, keys in the documented order (docs/protocol.md), without the trailing newline.
    /// `seq` is added after `type` when the message answers a request that had one.
    public func json(seq: Int64? = nil) -> String {
        var s = "{\"type\":\"state\""
        if let seq { s += ",\"seq\":\(seq)" }
        s += ",\"orientation\":\"\(orientation.rawValue)\",\"physical\":\"\(physical.rawValue)\""
        s += ",\"tilt\":\"\(tilt.rawValue)\",\"rotation\":\(rotation)"
        s += ",\"layout\":\"\(layout.rawValue)\",\"axis\":\"\(axis.rawValue)\",\"allowed\":["
        var first = true
        for name in allowed.names {
            s += first ? "\"\(name)\"" : ",\"\(name)\""
            first = false
        }
        s += "],\"locked\":" + (locked.map { "\"\($0.rawValue)\"" } ?? "null")
        s += ",\"sensor\":\"\(sensor.rawValue)\",\"tablet_mode\":\"\(tabletMode.rawValue)\""
        s += ",\"auto_rotate\":\"\(autoRotate.rawValue)\",\"t_ms\":\(formatMilliseconds(tMs))}"
        return s
    }
}

/// Milliseconds for JSON: at most three decimals, no trailing zeros, integers bare.
package func formatMilliseconds(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let micro = (value * 1000).rounded()
    if abs(micro) >= 9e15 { return formatNumber(value.rounded()) }
    let whole = Int64(micro / 1000)
    var frac = abs(Int64(micro) % 1000)
    var s = (micro < 0 && whole == 0 ? "-" : "") + String(whole)
    guard frac != 0 else { return s }
    var digits = 3
    while frac % 10 == 0 { frac /= 10; digits -= 1 }
    let text = String(frac)
    s += "." + String(repeating: "0", count: digits - text.count) + text
    return s
}
