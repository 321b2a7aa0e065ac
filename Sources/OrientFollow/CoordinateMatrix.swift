/// The X input property "Coordinate Transformation Matrix" that keeps a
/// touchscreen or pen on the content after an xrandr rotation.
///
/// The matrix maps the device's normalised coordinates (0...1, as on the
/// unrotated panel: x to the right, y down) to the screen's, in homogeneous
/// form, row-major: `x' = a·x + b·y + c`, `y' = d·x + e·y + f`. For a turn of
/// the content by q quarter turns counter-clockwise, a point of the panel moves
/// q quarter turns clockwise as the user sees it:
///
/// | turns | matrix                 |
/// |-------|------------------------|
/// | 0     | `1 0 0 0 1 0 0 0 1`    |
/// | 1     | `0 -1 1 1 0 0 0 0 1`   |
/// | 2     | `-1 0 1 0 -1 1 0 0 1`  |
/// | 3     | `0 1 0 -1 0 1 0 0 1`   |
public struct CoordinateMatrix: Sendable, Equatable {
    /// The nine entries, row-major.
    public let entries: [Int]

    /// The matrix for content turned `quarterTurns` quarter turns counter-clockwise.
    public init(quarterTurns: Int) {
        switch ((quarterTurns % 4) + 4) % 4 {
        case 0: entries = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        case 1: entries = [0, -1, 1, 1, 0, 0, 0, 0, 1]
        case 2: entries = [-1, 0, 1, 0, -1, 1, 0, 0, 1]
        default: entries = [0, 1, 0, -1, 0, 1, 0, 0, 1]
        }
    }

    /// Where the device point (`x`, `y`) lands on the screen (both normalised).
    public func map(x: Double, y: Double) -> (x: Double, y: Double) {
        let e = entries.map(Double.init)
        let w = e[6] * x + e[7] * y + e[8]
        return ((e[0] * x + e[1] * y + e[2]) / w, (e[3] * x + e[4] * y + e[5]) / w)
    }

    /// The entries as `xinput set-prop` takes them.
    public var arguments: [String] { entries.map(String.init) }
}
