public import OrientProtocol

/// Tablet or laptop from the hinge angle between the display's and the base's
/// accelerometers (docs/behaviour.md, "Tablet mode"), for machines
/// without a `SW_TABLET_MODE` switch.
///
/// ```swift
/// var detector = HingeModeDetector(config: ZSign.decide(…).applied(to: HingeConfig()))
/// let mode = detector.update(tMs: t, lid: lidMatrix.apply(lid), base: baseMatrix.apply(base))
/// ```
///
/// Feed it each pair of readings (m/s², each after its own mount matrix, in the
/// frames ``HingeAngle`` describes) with their time in ms on one monotonic
/// clock. Pure: no clock, no I/O; a value, so a copy is a snapshot.
///
/// - Starts `unknown`. The first reading it trusts decides: `tablet` at or past
///   `tabletEnterDeg` (200°), else `laptop`.
/// - Then `tablet` once the angle reaches `tabletEnterDeg`, `laptop` once it
///   comes back to `tabletExitDeg` (160°); in between the mode holds.
/// - It holds the last decision, whatever the angle says, while the hinge is
///   near vertical, while the machine moves hard (and for `motionHoldMs`
///   after), and within `foldedZoneDeg` of 0°/360°, where a closed lid and one
///   folded flat back read alike. The reason is in ``hold``.
public struct HingeModeDetector: Sendable {
    /// The parameters it runs with.
    public let config: HingeConfig
    /// The mode decided so far; `unknown` until the first trusted reading.
    public private(set) var mode: TabletMode = .unknown
    /// The hinge angle of the last reading it trusted, degrees in [0, 360);
    /// nil before the first. Not updated while the hinge is vertical or the
    /// machine moves hard.
    public private(set) var angle: Double?
    /// Why the last reading left the mode as it was; nil when the reading was
    /// trusted and outside the folded zone.
    public private(set) var hold: HingeHold?
    /// The last reading that moved hard, for the motion hold.
    private var lastMotionMs = -Double.infinity

    /// A detector in `unknown`, with `config` (its ``HingeConfig/zSign`` must be
    /// the machine's).
    public init(config: HingeConfig = HingeConfig()) {
        self.config = config
    }

    /// Takes one pair of readings at `tMs` and returns the mode after it.
    @discardableResult
    public mutating func update(tMs: Double, lid: Vector3, base: Vector3) -> TabletMode {
        let lidLength = (lid * lid).sum().squareRoot(), baseLength = (base * base).sum().squareRoot()
        guard tMs.isFinite, lidLength.isFinite, baseLength.isFinite, lidLength > 0, baseLength > 0 else {
            hold = .unusable
            return mode
        }
        let g = config.standardGravity, tolerance = config.accelTolerance
        if abs(lidLength - g) > tolerance || abs(baseLength - g) > tolerance || abs(lidLength - baseLength) > tolerance {
            lastMotionMs = max(lastMotionMs, tMs)
            hold = .moving
            return mode
        }
        if tMs < lastMotionMs + config.motionHoldMs {
            hold = .moving
            return mode
        }
        guard let degrees = HingeAngle.degrees(lid: lid, base: base, config: config) else {
            hold = .hingeVertical
            return mode
        }
        angle = degrees
        hold = nil
        let folded = degrees < config.foldedZoneDeg || degrees > 360 - config.foldedZoneDeg
        switch mode {
        case .unknown:
            if folded { hold = .folded }
            mode = degrees >= config.tabletEnterDeg ? .tablet : .laptop
        case _ where folded:
            hold = .folded
        case .laptop where degrees >= config.tabletEnterDeg:
            mode = .tablet
        case .tablet where degrees <= config.tabletExitDeg:
            mode = .laptop
        case .laptop, .tablet:
            break
        }
        return mode
    }
}
