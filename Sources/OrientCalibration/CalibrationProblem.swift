/// Why one pose's readings cannot be used.
public enum PoseProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer readings, or a shorter stretch of them, than a rest needs.
    case tooShort(samples: Int, durationMs: Double, neededMs: Double)
    /// The readings' average direction wandered by `degrees`: the device moved.
    case moved(degrees: Double, limitDegrees: Double)
    /// The average held still but single readings scattered (RMS `spreadDegrees`).
    case noisy(spreadDegrees: Double, limitDegrees: Double)
    /// The resting reading's length is not about g: the scale is wrong, or the
    /// device was accelerating the whole time.
    case notGravity(magnitude: Double, expected: Double)

    public var description: String {
        switch self {
        case .tooShort(let samples, let duration, let needed):
            "only \(samples) readings over \(Int(duration.rounded())) ms; a pose needs the device at rest for \(Int(needed.rounded())) ms"
        case .moved(let degrees, let limit):
            "the device moved (its direction changed by \(oneDecimal(degrees))°; at rest it stays within \(oneDecimal(limit))°): hold it still, or rest it against something"
        case .noisy(let spread, let limit):
            "the readings scatter by \(oneDecimal(spread))° around a steady direction (at rest they stay within \(oneDecimal(limit))°): the sensor is too noisy to calibrate, or something is vibrating"
        case .notGravity(let magnitude, let expected):
            "the reading at rest is \(oneDecimal(magnitude)) m/s², not about \(oneDecimal(expected)): the sensor's scale is wrong (in_accel_scale), or it was accelerating"
        }
    }
}

/// Why the poses together do not give a mount matrix.
public enum CalibrationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// One pose's readings could not be used.
    case pose(CalibrationPose, PoseProblem)
    /// Two poses read (nearly) the same direction: the device was not turned between them.
    case samePose(CalibrationPose, CalibrationPose, degrees: Double)
    /// Two poses read (nearly) opposite directions: turned a half turn, not a quarter.
    case oppositePoses(CalibrationPose, CalibrationPose, degrees: Double)
    /// Two poses are neither the same, opposite nor a quarter turn apart.
    case ambiguous(CalibrationPose, CalibrationPose, degrees: Double, toleranceDegrees: Double)
    /// The readings do not span three axes (cannot happen once the poses agree).
    case degenerate
    /// After the fit, a pose still reads too far from where it should.
    case poorFit(CalibrationPose, degrees: Double, toleranceDegrees: Double)

    public var description: String {
        switch self {
        case .pose(let pose, let problem):
            "pose \(pose) (\(pose.phrase)): \(problem)"
        case .samePose(let a, let b, let degrees):
            "the poses contradict each other: \(b) (\(b.phrase)) reads the same direction as \(a) (\(a.phrase)), \(oneDecimal(degrees))° apart; the device was not turned between them"
        case .oppositePoses(let a, let b, let degrees):
            "the poses contradict each other: \(b) (\(b.phrase)) reads the opposite direction to \(a) (\(a.phrase)), \(oneDecimal(degrees))° apart; that is a half turn, not the quarter turn asked for"
        case .ambiguous(let a, let b, let degrees, let tolerance):
            "pose \(b) (\(b.phrase)) is ambiguous: it is \(oneDecimal(degrees))° from \(a) (\(a.phrase)), where a quarter turn is 90° (±\(oneDecimal(tolerance))°); was the device held diagonally, or tilted?"
        case .degenerate:
            "the three poses do not span three axes"
        case .poorFit(let pose, let degrees, let tolerance):
            "no mount matrix fits the poses: \(pose) (\(pose.phrase)) would still read \(oneDecimal(degrees))° off (at most \(oneDecimal(tolerance))°); repeat the poses more carefully"
        }
    }
}

/// `12.3`: one decimal, no trailing `.0` for whole numbers.
package func oneDecimal(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    if tenths.truncatingRemainder(dividingBy: 10) == 0 { return String(Int64(tenths / 10)) }
    return String(tenths / 10)
}
