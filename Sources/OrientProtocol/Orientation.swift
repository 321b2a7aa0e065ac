/// A screen orientation, named as iio-sensor-proxy names them (GNOME, KDE and
/// phosh already speak these names).
///
/// Which edge of the panel points up: `normal` is the panel's natural way up,
/// `left-up` has its left edge up, `bottom-up` is upside down, `right-up` has its
/// right edge up. `undefined` exists only before the first classification.
public enum Orientation: String, Sendable, Hashable, CaseIterable, Codable {
    /// No classification yet (only before the first one after start).
    case undefined
    /// The panel's natural way up.
    case normal
    /// The left edge up (a quarter turn counter-clockwise from `normal`).
    case leftUp = "left-up"
    /// Upside down.
    case bottomUp = "bottom-up"
    /// The right edge up (a quarter turn clockwise from `normal`).
    case rightUp = "right-up"

    /// The four real orientations, in quarter turns counter-clockwise from `normal`.
    public static let cardinal: [Orientation] = [.normal, .leftUp, .bottomUp, .rightUp]

    /// The tie-break order of SPEC §5: normal > left-up > right-up > bottom-up.
    package static let preference: [Orientation] = [.normal, .leftUp, .rightUp, .bottomUp]

    /// Quarter turns counter-clockwise from `normal` (0...3), or nil for `undefined`.
    @inlinable
    public var quarterTurns: Int? {
        switch self {
        case .undefined: return nil
        case .normal: return 0
        case .leftUp: return 1
        case .bottomUp: return 2
        case .rightUp: return 3
        }
    }

    /// The orientation `turns` quarter turns counter-clockwise from `normal` (any integer).
    @inlinable
    public init(quarterTurns turns: Int) {
        switch ((turns % 4) + 4) % 4 {
        case 0: self = .normal
        case 1: self = .leftUp
        case 2: self = .bottomUp
        default: self = .rightUp
        }
    }

    /// Degrees counter-clockwise the content must turn (the Wayland `wl_output`
    /// transform convention): normal 0, left-up 90, bottom-up 180, right-up 270.
    /// `undefined` gives 0.
    public var rotation: Int { (quarterTurns ?? 0) * 90 }

    /// Parses a protocol or config name; nil for anything else (names are exact).
    public init?(name: some StringProtocol) {
        guard let value = Orientation(rawValue: String(name)) else { return nil }
        self = value
    }

    /// Quarter-turn distance between two cardinal orientations (0, 1 or 2).
    public func quarterTurnDistance(to other: Orientation) -> Int? {
        guard let a = quarterTurns, let b = other.quarterTurns else { return nil }
        let d = ((a - b) % 4 + 4) % 4
        return min(d, 4 - d)
    }
}

/// How the device is tilted out of the vertical, published beside the
/// orientation and never changing it (iio-sensor-proxy's `AccelerometerTilt`).
public enum Tilt: String, Sendable, Hashable, CaseIterable, Codable {
    /// No reading yet.
    case undefined
    /// Held upright, within `tilted` degrees of the vertical.
    case vertical
    /// The screen turned towards the sky by more than `tilted` degrees.
    case tiltedUp = "tilted-up"
    /// The screen turned towards the ground by more than `tilted` degrees.
    case tiltedDown = "tilted-down"
    /// Lying screen to the sky (at least `face` degrees).
    case faceUp = "face-up"
    /// Lying screen to the ground.
    case faceDown = "face-down"
}

/// The shape of the panel in its natural orientation.
public enum NaturalGeometry: String, Sendable, Hashable, CaseIterable {
    /// Phones: taller than wide when `normal`.
    case portrait
    /// Most tablets and 2-in-1s: wider than tall when `normal`.
    case landscape
}

/// The shape of the screen as shown, and the stack axis that goes with it.
public enum Layout: String, Sendable, Hashable, CaseIterable {
    /// Taller than wide.
    case portrait
    /// Wider than tall.
    case landscape

    /// The layout of `orientation` on a panel of `geometry`; `undefined` counts as `normal`.
    public init(orientation: Orientation, natural geometry: NaturalGeometry) {
        let sideways = (orientation.quarterTurns ?? 0) % 2 == 1
        switch (geometry, sideways) {
        case (.portrait, false), (.landscape, true): self = .portrait
        case (.portrait, true), (.landscape, false): self = .landscape
        }
    }

    /// The axis a stack lays out along: `vertical` in portrait, `horizontal` in landscape.
    public var axis: Axis { self == .portrait ? .vertical : .horizontal }
}

/// The axis an orientation-adaptive stack lays out along.
public enum Axis: String, Sendable, Hashable, CaseIterable {
    /// Top to bottom (a portrait layout).
    case vertical
    /// Leading to trailing (a landscape layout).
    case horizontal
}
