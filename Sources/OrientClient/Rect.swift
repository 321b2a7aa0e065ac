/// A rectangle: its top-left corner (`x` to the right, `y` down) and its size.
///
/// ```swift
/// let frame = Rect(x: 0, y: 52, width: 120, height: 44)
/// frame.maxY  // 96
/// ```
public struct Rect: Sendable, Hashable {
    /// The left edge.
    public var x: Double
    /// The top edge.
    public var y: Double
    /// The extent to the right of `x`.
    public var width: Double
    /// The extent below `y`.
    public var height: Double

    /// A rectangle at (`x`, `y`) of `width` × `height`.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// A rectangle at (`x`, `y`) of `size`.
    public init(x: Double, y: Double, size: Size) {
        self.init(x: x, y: y, width: size.width, height: size.height)
    }

    /// The width and height.
    public var size: Size { Size(width: width, height: height) }
    /// The right edge, `x + width`.
    public var maxX: Double { x + width }
    /// The bottom edge, `y + height`.
    public var maxY: Double { y + height }
}
