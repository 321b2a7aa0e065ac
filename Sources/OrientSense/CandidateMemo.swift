import OrientProtocol

/// The last candidate decision of one path (filtered or steady), and how far
/// the vector may turn before the decision could change.
///
/// A candidate is a chain of comparisons of sin φ and of cos θ and sin θ
/// against limits, and `AngleReading` records the slack of those it made. When
/// the vector turns by an angle α, sin φ moves by at most α (times |z sign|),
/// and cos θ and sin θ by at most 2α / cos φ. A later vector within the angle
/// that keeps all of those under their slack makes every one of those
/// comparisons come out the same, so the chain takes the same course to the
/// same decision (for the same applied orientation and overhead latch, the
/// only other state it reads). Telling that takes a cross product, no square
/// root, division or angle: a device at rest, or turning slowly far from any
/// limit, is decided with a few multiplications per reading.
struct CandidateMemo: Sendable {
    /// A remembered decision: the candidate, or nil for none.
    struct Decision {
        let candidate: Orientation?
    }

    private var decision: Decision?
    /// The unit vector the decision was made for, and the angle (radians, below
    /// 0.2) within which it holds.
    private var direction: Vector3 = .zero
    private var radius = 0.0
    private var applied: Orientation?
    private var overheadLatched = false

    /// The remembered decision if it holds for the vector `v` (of squared length
    /// `squaredLength`) in this state, else nil.
    @inline(__always)
    func recall(_ v: Vector3, squaredLength: Double, applied: Orientation?, overheadLatched: Bool) -> Decision? {
        guard let decision, applied == self.applied, overheadLatched == self.overheadLatched else { return nil }
        // sin α = |v × direction| / |v|, and α under 90°.
        let c = cross(v, direction)
        guard (v * direction).sum() > 0, (c * c).sum() < radius * radius * squaredLength else { return nil }
        return decision
    }

    /// Remembers the decision just made for `angles` (whose slack covers exactly
    /// the comparisons that made it).
    mutating func remember(
        _ candidate: Orientation?, for angles: AngleReading, zSign: Double, applied: Orientation?, overheadLatched: Bool
    ) {
        let unit = angles.vector / angles.length
        var turn = angles.tiltSlack / abs(zSign)
        if angles.turnSlack < .infinity {  // θ was compared
            let cosTilt = (unit.x * unit.x + unit.y * unit.y).squareRoot()
            let thetaTurn = angles.turnSlack * cosTilt / 2
            if !(thetaTurn >= turn) { turn = thetaTurn }  // a NaN spreads
        }
        guard turn > 0 else {  // also false for NaN
            decision = nil
            return
        }
        // sin α < 0.99 r keeps α under r for r up to 0.2, and covers rounding.
        radius = 0.99 * min(0.2, turn)
        decision = Decision(candidate: candidate)
        direction = unit
        self.applied = applied
        self.overheadLatched = overheadLatched
    }

    /// Forgets the decision (the limits changed).
    mutating func forget() {
        decision = nil
    }
}
