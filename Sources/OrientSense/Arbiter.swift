package import OrientProtocol

/// Decides the effective orientation from the physical one, the clients'
/// constraints and the user's rotation lock (docs/protocol.md).
///
/// A pure value: no I/O, no clocks. The daemon owns one, calls `resolve` whenever
/// the physical orientation, a constraint, the lock or the configuration changes,
/// and publishes the `Resolution` it returns. The only state it carries between
/// calls is the current effective orientation, which makes "keep the current one
/// if it is still allowed" possible.
///
/// ```swift
/// var arbiter = Arbiter(natural: .portrait)
/// let r = arbiter.resolve(physical: .leftUp, constraints: [.allButUpsideDown(natural: .portrait)], lock: nil)
/// r.orientation // .leftUp
/// r.rotation    // 90
/// r.layout      // .landscape
/// ```
package struct Arbiter: Sendable {
    /// The allowed set used when no constraint is active or the constraints conflict
    /// (the config's `default-allowed`). An empty mask counts as `.all`.
    ///
    /// Changing it takes effect at the next `resolve`.
    package var defaultAllowed: OrientationMask

    /// The panel's natural geometry, which decides `layout` and `axis`.
    ///
    /// Changing it takes effect at the next `resolve`.
    package var natural: NaturalGeometry

    /// The effective orientation chosen by the last `resolve`.
    ///
    /// `undefined` only before the first `resolve`; never `undefined` afterwards.
    package private(set) var effective: Orientation = .undefined

    /// Creates an arbiter that has not resolved anything yet (`effective` is `undefined`).
    ///
    /// - Parameters:
    ///   - defaultAllowed: the allowed set without constraints or on conflict; empty counts as `.all`.
    ///   - natural: the panel's natural geometry.
    package init(defaultAllowed: OrientationMask = .all, natural: NaturalGeometry) {
        self.defaultAllowed = defaultAllowed
        self.natural = natural
    }

    /// Chooses the effective orientation and remembers it as `effective`.
    ///
    /// The allowed set is the intersection of `constraints`; with no constraints,
    /// or when the intersection is empty (a conflict, reported as `conflict`), it is
    /// `defaultAllowed`. Then, in order:
    /// 1. a `lock` on a cardinal orientation in the allowed set wins (app
    ///    constraints that exclude it win over it; `undefined` counts as no lock);
    /// 2. `physical`, if allowed;
    /// 3. the current `effective`, if still allowed;
    /// 4. the allowed orientation nearest to `physical` by quarter turns, ties
    ///    broken normal > left-up > right-up > bottom-up — which, while `physical`
    ///    is `undefined`, is the first allowed orientation in that order.
    ///
    /// The result's `orientation` (and `effective` afterwards) is never `undefined`.
    ///
    /// - Parameters:
    ///   - physical: the classifier's orientation; `undefined` before the first classification.
    ///   - constraints: every active client constraint (order does not matter).
    ///   - lock: the user's rotation lock, or nil when unlocked.
    ///   - follows: false outside tablet mode (`AutoRotate.follows`): the
    ///     natural orientation stands in for `physical` in the choice, while
    ///     the result still reports `physical` as given.
    package mutating func resolve(
        physical given: Orientation,
        constraints: some Sequence<OrientationMask>,
        lock: Orientation?,
        follows: Bool = true
    ) -> Resolution {
        let physical = follows ? given : .normal
        var intersection: OrientationMask?
        for constraint in constraints {
            intersection = intersection.map { $0.intersection(constraint) } ?? constraint
        }
        let conflict = intersection?.isEmpty ?? false
        let fallback = defaultAllowed.isEmpty ? OrientationMask.all : defaultAllowed
        let allowed = intersection.flatMap { $0.isEmpty ? nil : $0 } ?? fallback

        let chosen: Orientation
        if let lock, allowed.contains(lock) {
            chosen = lock
        } else if allowed.contains(physical) {
            chosen = physical
        } else if allowed.contains(effective) {
            chosen = effective
        } else {
            // `allowed` is never empty here, so `nearest` always finds one.
            chosen = Arbiter.nearest(to: physical, in: allowed) ?? .normal
        }
        effective = chosen

        let layout = Layout(orientation: chosen, natural: natural)
        return Resolution(
            orientation: chosen,
            physical: given,
            rotation: chosen.rotation,
            layout: layout,
            axis: layout.axis,
            allowed: allowed,
            locked: lock == .undefined ? nil : lock,
            conflict: conflict
        )
    }

    /// The orientation in `mask` nearest to `orientation` by quarter turns, ties
    /// broken normal > left-up > right-up > bottom-up.
    ///
    /// For `undefined` every member is equally near, so this is the first member in
    /// that preference order. Returns nil only for an empty mask.
    package static func nearest(to orientation: Orientation, in mask: OrientationMask) -> Orientation? {
        var best: (orientation: Orientation, distance: Int)?
        for candidate in Orientation.preference where mask.contains(candidate) {
            let distance = orientation.quarterTurnDistance(to: candidate) ?? 0
            if best.map({ distance < $0.distance }) ?? true {
                best = (candidate, distance)
            }
        }
        return best?.orientation
    }
}

/// What the arbiter decided, with everything the daemon publishes about it.
package struct Resolution: Sendable, Equatable {
    /// The effective orientation: what the screen should show. Never `undefined`.
    package let orientation: Orientation
    /// The classifier's orientation as given, published even while locked so a
    /// shell can offer a "rotate?" suggestion; `undefined` before the first classification.
    package let physical: Orientation
    /// Degrees counter-clockwise the content must turn for `orientation`
    /// (Wayland `wl_output` convention): 0, 90, 180 or 270.
    package let rotation: Int
    /// The shape of the screen in `orientation` on the arbiter's natural geometry.
    package let layout: Layout
    /// The stack axis that goes with `layout`: `vertical` for portrait, `horizontal` for landscape.
    package let axis: Axis
    /// The allowed set used: the constraints' intersection, or the default on none or conflict. Never empty.
    package let allowed: OrientationMask
    /// The user's rotation lock as requested, whether or not the allowed set let it
    /// win (compare with `orientation`); nil when unlocked.
    package let locked: Orientation?
    /// True when the active constraints had an empty intersection and the default was used.
    package let conflict: Bool

    /// Creates a resolution from its parts; normally only `Arbiter.resolve` makes one.
    package init(
        orientation: Orientation,
        physical: Orientation,
        rotation: Int,
        layout: Layout,
        axis: Axis,
        allowed: OrientationMask,
        locked: Orientation?,
        conflict: Bool
    ) {
        self.orientation = orientation
        self.physical = physical
        self.rotation = rotation
        self.layout = layout
        self.axis = axis
        self.allowed = allowed
        self.locked = locked
        self.conflict = conflict
    }
}
