public import OrientProtocol

/// Where items sit across an adaptive stack's axis; the same value works for
/// either axis.
///
/// In a vertical stack (portrait) `start` is the left edge and `end` the right;
/// in a horizontal stack (landscape) `start` is the top edge and `end` the bottom.
///
/// ```swift
/// StackAlignment.center.offset(of: 40, in: 100)  // 30
/// ```
public enum StackAlignment: Sendable, Hashable, CaseIterable {
    /// Flush with the leading edge of the cross axis (left, or top).
    case start
    /// Centred across the axis.
    case center
    /// Flush with the trailing edge of the cross axis (right, or bottom).
    case end

    /// The offset from the container's cross-axis start of an item `extent`
    /// long in `available` space. An item larger than the space overflows on the
    /// far side (`start`), both sides (`center`) or the near side (`end`).
    public func offset(of extent: Double, in available: Double) -> Double {
        switch self {
        case .start: return 0
        case .center: return (available - extent) / 2
        case .end: return available - extent
        }
    }
}

extension Axis {
    /// The other axis: the one a stack's alignment works along.
    public var cross: Axis { self == .vertical ? .horizontal : .vertical }
}
