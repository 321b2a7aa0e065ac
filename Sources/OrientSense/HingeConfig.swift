/// The hinge-angle tablet-mode detector's parameters (``HingeModeDetector``,
/// docs/behaviour.md, "Tablet mode"). Angles in degrees, accelerations in
/// m/s², times in ms.
///
/// The defaults are those Chromium's tablet-mode controller has used on
/// Chromebook convertibles since 2014 (enter at 200°, leave at 160°, no
/// decision within 20° of closed or folded flat, the hinge vertical past
/// 8.7 m/s² of g along it, readings 1 m/s² off g ignored), plus a motion hold
/// of our own; the ChromeOS recordings in traces/recorded/chromeos are decided
/// correctly with them (Tests/OrientSenseTests/HingeRecordedTests.swift).
public struct HingeConfig: Sendable, Equatable {
    /// Tablet mode begins when the hinge angle reaches this (folded past flat).
    public var tabletEnterDeg: Double = 200
    /// Tablet mode ends when the hinge angle comes back to this; between the
    /// two the last decision holds (hysteresis).
    public var tabletExitDeg: Double = 160
    /// Within this of 0° (closed) or 360° (folded flat back) the two cannot be
    /// told apart by gravity, so a decided mode is held there; only the first
    /// decision is made from such a reading.
    public var foldedZoneDeg: Double = 20
    /// The hinge counts as vertical, and the angle as unknowable, when either
    /// sensor's reading is within this of the hinge axis: little of gravity is
    /// then left in the plane the angle is measured in (27.5°: 8.7 m/s² of g
    /// along the hinge, Chromium's limit).
    public var hingeVerticalDeg: Double = 27.5
    /// The machine is moving hard when either reading's magnitude is further
    /// than this from `standardGravity`, or the two magnitudes differ by more
    /// (both sensors are on one rigid body at rest).
    public var accelTolerance: Double = 1.0
    /// g as the sensors read it at rest, m/s².
    public var standardGravity: Double = 9.80665
    /// After a reading that moved hard, readings are ignored for this long:
    /// a shaken machine passes the magnitude test by chance now and then, with
    /// an angle that means nothing.
    public var motionHoldMs: Double = 500
    /// +1 when lying face up reads +z, −1 when it reads −z, on both sensors after
    /// their mount matrices (`ZSign`, docs/classifier.md, "The z sign"). The
    /// angle needs it: with the other sign, 120° reads as 240°.
    public var zSign: Double = 1

    /// The documented defaults.
    public init() {}

    /// What is wrong with these values, as messages naming the parameter; empty
    /// when the detector can run with them.
    public func problems() -> [String] {
        var out: [String] = []
        func check(_ ok: Bool, _ message: @autoclosure () -> String) { if !ok { out.append(message()) } }
        let values = [tabletEnterDeg, tabletExitDeg, foldedZoneDeg, hingeVerticalDeg, accelTolerance, standardGravity, motionHoldMs]
        check(values.allSatisfy(\.isFinite), "every hinge parameter must be a finite number")
        check(tabletExitDeg > 0 && tabletExitDeg < 180, "tablet exit angle must be above 0° and below 180°, got \(tabletExitDeg)")
        check(tabletEnterDeg > 180 && tabletEnterDeg < 360, "tablet enter angle must be above 180° and below 360°, got \(tabletEnterDeg)")
        check(foldedZoneDeg >= 0 && foldedZoneDeg < tabletExitDeg && foldedZoneDeg < 360 - tabletEnterDeg,
              "folded zone (\(foldedZoneDeg)°) must be at least 0° and leave both thresholds outside it")
        check(hingeVerticalDeg >= 0 && hingeVerticalDeg < 90, "hinge vertical limit must be from 0° to below 90°, got \(hingeVerticalDeg)")
        check(accelTolerance > 0, "acceleration tolerance must be above 0 m/s², got \(accelTolerance)")
        check(standardGravity > 0, "standard gravity must be above 0 m/s², got \(standardGravity)")
        check(motionHoldMs >= 0, "motion hold must be at least 0 ms, got \(motionHoldMs)")
        check(zSign == 1 || zSign == -1, "z sign must be 1 or -1, got \(zSign)")
        return out
    }
}

extension ZSign {
    /// `config` with this sign applied (the daemon decides one sign per machine).
    public func applied(to config: HingeConfig) -> HingeConfig {
        var config = config
        config.zSign = sign
        return config
    }
}
