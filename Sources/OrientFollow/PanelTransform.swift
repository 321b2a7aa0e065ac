public import OrientProtocol

/// How each tool names the turn that shows an orientation upright: the
/// compositors' wl_output transform, Hyprland's index, xrandr's rotation, and
/// the touch input's Coordinate Transformation Matrix.
///
/// Every one of them describes the same quarter turn counter-clockwise of the
/// content (the Wayland `wl_output` transform convention):
///
/// | orientation | wl_output (sway, niri, wlr-randr) | Hyprland | xrandr   |
/// |-------------|-----------------------------------|----------|----------|
/// | normal      | normal (0)                        | 0        | normal   |
/// | left-up     | 90                                | 1        | left     |
/// | bottom-up   | 180                               | 2        | inverted |
/// | right-up    | 270                               | 3        | right    |
///
/// `undefined` is shown as `normal`: the panel's natural way up.
public struct PanelTransform: Sendable, Equatable {
    /// The orientation shown (never `undefined`).
    public let orientation: Orientation

    public init(_ orientation: Orientation) {
        self.orientation = orientation == .undefined ? .normal : orientation
    }

    /// Quarter turns counter-clockwise (0...3).
    public var quarterTurns: Int { orientation.quarterTurns ?? 0 }

    /// Degrees counter-clockwise: 0, 90, 180 or 270 (the wl_output enum value).
    public var degrees: Int { quarterTurns * 90 }

    /// The transform as sway, niri and wlr-randr spell it: `normal`, `90`, `180`, `270`.
    public var wlOutputName: String { quarterTurns == 0 ? "normal" : String(degrees) }

    /// Hyprland's `transform` index: 0, 1, 2 or 3.
    public var hyprland: Int { quarterTurns }

    /// xrandr's `--rotate` value: `normal`, `left`, `inverted` or `right`.
    public var xrandr: String { ["normal", "left", "inverted", "right"][quarterTurns] }

    /// The touch and pen input's Coordinate Transformation Matrix for X11.
    public var matrix: CoordinateMatrix { CoordinateMatrix(quarterTurns: quarterTurns) }
}
