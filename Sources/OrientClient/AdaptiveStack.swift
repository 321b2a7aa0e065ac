public import OrientProtocol

/// Orientation-adaptive stack layout (the "OStack"/"RotatableStack" idea):
/// vertical in portrait, horizontal in landscape, with one call.
///
/// ```swift
/// let frames = AdaptiveStack.layout(
///     sizes: [Size(width: 100, height: 40), Size(width: 60, height: 60)],
///     in: Size(width: 320, height: 480),
///     axis: state.axis,          // from `OrientClient.states()`
///     alignment: .center,
///     spacing: 8)
/// // portrait:  (110, 0, 100×40), (130, 48, 60×60)
/// ```
///
/// Pure: no state, no toolkit; the caller applies the frames.
public enum AdaptiveStack {
    /// Frames for items of `sizes` stacked along `axis` in `container`, in order.
    ///
    /// Items start at the container's leading edge of the axis (top for
    /// `vertical`, left for `horizontal`), each `spacing` after the previous
    /// one (negative spacing overlaps), keeping their own sizes; across the axis
    /// they are placed by `alignment`. Negative or non-finite sizes count as 0,
    /// non-finite spacing as 0. Items are not shrunk to fit: a stack longer than
    /// the container overflows at the far end.
    public static func layout(
        sizes: [Size], in container: Size, axis: Axis, alignment: StackAlignment = .center, spacing: Double = 0
    ) -> [Rect] {
        let gap = spacing.isFinite ? spacing : 0
        let crossSpace = clean(container.extent(along: axis.cross))
        var cursor = 0.0
        var frames: [Rect] = []
        frames.reserveCapacity(sizes.count)
        for (index, size) in sizes.enumerated() {
            let item = Size(width: clean(size.width), height: clean(size.height))
            if index > 0 { cursor += gap }
            let main = item.extent(along: axis)
            let cross = item.extent(along: axis.cross)
            let crossOffset = alignment.offset(of: cross, in: crossSpace)
            switch axis {
            case .vertical: frames.append(Rect(x: crossOffset, y: cursor, size: item))
            case .horizontal: frames.append(Rect(x: cursor, y: crossOffset, size: item))
            }
            cursor += main
        }
        return frames
    }

    /// Frames for `sizes` laid out along the axis `state` says (`vertical` in a
    /// portrait layout, `horizontal` in landscape).
    public static func layout(
        sizes: [Size], in container: Size, for state: StateMessage, alignment: StackAlignment = .center,
        spacing: Double = 0
    ) -> [Rect] {
        layout(sizes: sizes, in: container, axis: state.axis, alignment: alignment, spacing: spacing)
    }

    /// The length the stack takes along `axis`: the items' extents plus the gaps.
    public static func length(of sizes: [Size], axis: Axis, spacing: Double = 0) -> Double {
        let gap = spacing.isFinite ? spacing : 0
        let total = sizes.reduce(0) { $0 + clean($1.extent(along: axis)) }
        return total + gap * Double(max(0, sizes.count - 1))
    }

    private static func clean(_ value: Double) -> Double {
        value.isFinite && value > 0 ? value : 0
    }
}
