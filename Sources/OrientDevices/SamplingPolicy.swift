#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import OrientProtocol

/// When to take the next reading on the polled path: at the sensor's rate while
/// the device moves or the classifier is still deciding, slowly while it rests.
///
/// A device at rest needs no 20 Hz: nothing can change until it moves, and a
/// turn of the kind that rotates a screen lasts longer than the still interval,
/// so the first reading taken during it switches back to the full rate before
/// the turn ends. The classifier is time-based, so the irregular intervals
/// change none of its decisions, only when the readings that lead to them come.
///
/// ```swift
/// var policy = SamplingPolicy(SamplingPolicy.Settings(), fastIntervalMs: 50)
/// policy.start(atMs: now)
/// let next = now + policy.interval(after: panelReading, atMs: now, settling: false)
/// ```
///
/// Pure: time and readings are passed in. Readings are compared in one frame
/// (the panel frame, as the classifier sees them), in degrees and m/s².
public struct SamplingPolicy: Sendable, Equatable {
    /// The policy's constants (tests vary them through this API).
    public struct Settings: Sendable, Equatable {
        /// Interval between readings while the device rests, ms: 2.5 readings a
        /// second still catch the start of any turn long before it ends (a
        /// brisk turn takes 300 ms and the classifier holds 340 ms after it).
        /// At or below the sensor's own period: always sample at the sensor's rate.
        public var stillIntervalMs = 400.0
        /// How long after the last motion (or the last reading the classifier was
        /// still deciding on) readings stay at the sensor's rate, ms: longer than
        /// the pause between the two halves of a hesitant turn.
        public var stillAfterMs = 2000.0
        /// A reading further than this from the reference reading is motion,
        /// degrees: above a resting sensor's noise (under 1°), below any turn.
        public var motionAngleDeg = 2.0
        /// A magnitude further than this from the reference reading's is
        /// motion, m/s²: a lift or a tap before it tilts anything.
        public var motionMagnitude = 0.5

        /// The defaults.
        public init() {}
    }

    /// The settings in force.
    package let settings: Settings
    /// The interval at the sensor's rate, ms.
    package let fastIntervalMs: Double
    /// The interval while still, ms: never shorter than `fastIntervalMs`.
    package let stillIntervalMs: Double

    private let cosMotionSquared: Double
    /// The reading motion is measured from: the last one that counted as motion.
    private var reference: Vector3?
    private var referenceMagnitude = 0.0
    /// When the device last moved (or the classifier last had something pending).
    private var lastBusyMs = -Double.infinity

    /// A policy for a sensor read every `fastIntervalMs` at its full rate.
    /// `longestIntervalMs` caps the still interval (below the classifier's
    /// `max-sample-gap`, so resting readings never count as a gap).
    package init(_ settings: Settings, fastIntervalMs: Double, longestIntervalMs: Double = .infinity) {
        self.settings = settings
        self.fastIntervalMs = max(0, fastIntervalMs)
        stillIntervalMs = max(self.fastIntervalMs, min(settings.stillIntervalMs, longestIntervalMs))
        let angle = min(max(settings.motionAngleDeg, 0), 90) * .pi / 180
        let c = cos(angle)
        cosMotionSquared = c * c
    }

    /// Starts a sampling session (the sensor was opened): readings come at the
    /// full rate until the device has rested for `stillAfterMs`.
    package mutating func start(atMs t: Double) {
        reference = nil
        lastBusyMs = t
    }

    /// Whether readings are taken at the full rate at time `t`.
    package func isFast(atMs t: Double) -> Bool {
        t - lastBusyMs < settings.stillAfterMs
    }

    /// The interval until the next reading when no reading was taken at `t` (a
    /// failed or dropped read): the current rate, without counting as motion.
    package func interval(atMs t: Double) -> Double {
        isFast(atMs: t) ? fastIntervalMs : stillIntervalMs
    }

    /// Notes a reading taken at `t` and returns the interval until the next one, ms.
    ///
    /// - Parameters:
    ///   - reading: the reading, m/s², in the frame the policy compares in.
    ///   - settling: the consumer may still change its output without further
    ///     motion (a classifier deadline is pending, or its filter has not caught
    ///     up with the readings): keep the full rate.
    package mutating func interval(after reading: Vector3, atMs t: Double, settling: Bool) -> Double {
        if settling || isMotion(reading) { lastBusyMs = max(lastBusyMs, t) }
        return interval(atMs: t)
    }

    /// Whether `reading` differs from the reference by more than the motion
    /// thresholds; if so it becomes the new reference. Non-finite readings are
    /// ignored (the classifier drops them too).
    private mutating func isMotion(_ reading: Vector3) -> Bool {
        let squared = (reading * reading).sum()
        guard squared.isFinite else { return false }
        let magnitude = squared.squareRoot()
        guard let reference else {
            // The session's first reading: the reference (`start` already set the full rate).
            self.reference = reading
            referenceMagnitude = magnitude
            return false
        }
        guard differs(reference, referenceMagnitude, reading, magnitude) else { return false }
        self.reference = reading
        referenceMagnitude = magnitude
        return true
    }

    /// Whether `a` and `b` are further apart than the motion thresholds (angle
    /// or magnitude). Used for the filter-has-caught-up test as well.
    package func differs(_ a: Vector3, _ b: Vector3) -> Bool {
        differs(a, (a * a).sum().squareRoot(), b, (b * b).sum().squareRoot())
    }

    @inline(__always)
    private func differs(_ a: Vector3, _ aLength: Double, _ b: Vector3, _ bLength: Double) -> Bool {
        if abs(aLength - bLength) > settings.motionMagnitude { return true }
        guard aLength > 0, bLength > 0 else { return false }
        // The angle exceeds the threshold when cos θ < cos threshold (θ ≤ 90°: dot > 0).
        let dot = (a * b).sum()
        let product = aLength * aLength * bLength * bLength
        return dot <= 0 ? settings.motionAngleDeg < 90 || dot < 0 : dot * dot < cosMotionSquared * product
    }
}
