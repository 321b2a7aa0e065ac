public import OrientProtocol

/// A width and a height, in whatever unit the UI toolkit lays out in.
///
/// ```swift
/// let button = Size(width: 120, height: 44)
/// button.extent(along: .vertical)  // 44
/// ```
public struct Size: Sendable, Hashable {
    /// The horizontal extent.
    public var width: Double
    /// The vertical extent.
    public var height: Double

    /// A size of `width` × `height`.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// No width, no height.
    public static let zero = Size(width: 0, height: 0)

    /// The extent along `axis`: the height for `vertical`, the width for `horizontal`.
    public func extent(along axis: Axis) -> Double {
        axis == .vertical ? height : width
    }

    /// The size whose extent along `axis` is `main` and across it `cross`.
    public init(main: Double, cross: Double, along axis: Axis) {
        switch axis {
        case .vertical: self.init(width: cross, height: main)
        case .horizontal: self.init(width: main, height: cross)
        }
    }
}
