#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import OrientProtocol

/// The magnitude a device's readings agree on at rest, learned when it is far
/// from standard gravity: the sign of a wrong or missing scale
/// (docs/behaviour.md, "Units").
///
/// A driver whose scale is off by a large factor (or that has none, so raw
/// counts are taken as m/s²) reads, at rest, 26 g or 1670 g or 0.01 g instead
/// of 1 g, and the classifier's sanity gate drops every reading: the device
/// would never rotate. The direction of those readings is still right (which is
/// all iio-sensor-proxy uses), so once the readings at rest agree on a
/// magnitude far from g, that magnitude is taken as the device's g and the
/// engine rescales every reading by `gain` (g / learned) before the
/// classifier, whose thresholds then all keep their meaning.
///
/// A **rest** is at least `restMs` and `minReadings` consecutive readings
/// whose magnitudes lie within `magnitudeSpread` of each other and whose
/// directions stay within `angleDeg` of the first. Motion (a turn, shaking,
/// walking) breaks it, and so does free fall, whose readings are noise around
/// zero. A rest within `plausibleRatio` of g is a correctly scaled device:
/// nothing is learned, and a learned value is forgotten (the scale was fixed).
/// A rest outside it is learned, unless it agrees with the value already
/// learned within `relearnTolerance`.
///
/// Until the first rest is judged, a **first reading** far from g (outside
/// the same ratio) sets a provisional `gain` from its own magnitude, so that
/// the orientation comes from the first reading's direction at once, as it
/// does on a correctly scaled device; nothing is `learned` (or warned about)
/// until a rest says so. A correctly scaled device caught moving at its
/// first reading has its readings misjudged until that first rest, about a
/// second, which finds them at 1 g and drops the provisional gain, unless a
/// reading at about 1 g drops it sooner.
///
/// An on-change sensor (an input accelerometer, a HID hub's buffer) sends
/// nothing while it lies still: its silence continues the rest
/// (`observeHeld`), which is judged once it has lasted `restMs`.
///
/// Per reading: two dot products, a few compares, no square root, no
/// allocation (the square root is taken once per rest).
///
/// ```swift
/// var gravity = GravityEstimate()
/// for sample in samples where gravity.observe(sample.vector, atMs: sample.tMs) {
///     print(gravity.learned)  // 256.0 for a device reading 26 g at rest
/// }
/// ```
package struct GravityEstimate: Sendable, Equatable {
    /// What counts as a rest and as a wrong scale.
    package struct Settings: Sendable, Equatable {
        /// Standard gravity, m/s²: what a correctly scaled device reads at rest.
        package var standardGravity = 9.80665
        /// The shortest rest, ms.
        package var restMs = 1000.0
        /// The fewest readings a rest is made of.
        package var minReadings = 10
        /// The largest magnitude of a rest is at most this fraction above its smallest.
        package var magnitudeSpread = 0.06
        /// The readings of a rest stay within this angle of its first, degrees.
        package var angleDeg = 5.0
        /// A rest within [g / ratio, g × ratio] is a correctly scaled device.
        /// 1.5, not 2: a scale off by 2 (the chip's range set to ±2 g, the
        /// scale given for ±4 g) is a common mistake, and at 2 g the
        /// classifier's acceleration gates already hold the orientation for good.
        package var plausibleRatio = 1.5
        /// A rest within this fraction of the learned value keeps it.
        package var relearnTolerance = 0.1

        /// The defaults (1 s, 10 readings, 6 %, 5°, [g / 1.5, 1.5 g]).
        package init() {}
    }

    /// The settings in force.
    package private(set) var settings: Settings
    /// Whether readings are watched at all; false when the config gives the
    /// scale (`[sensor] scale`): the user said what it is.
    package private(set) var isEnabled: Bool
    /// The magnitude the device reads at rest, in the units its readings
    /// arrive in, when it is far from g; nil while none has been learned.
    package private(set) var learned: Double?
    /// The factor readings are multiplied by before the classifier: g / learned,
    /// g / the first reading's magnitude while that is provisional, or 1.
    package private(set) var gain = 1.0

    // The rest being watched: its first reading, time span, and the squared
    // magnitudes seen (least, greatest, sum).
    private var first = Vector3.zero
    private var firstSquared = 0.0
    private var startMs = 0.0
    private var lastMs = -Double.infinity
    private var count = 0
    private var minSquared = 0.0
    private var maxSquared = 0.0
    private var sumSquared = 0.0
    /// The rest was already judged (a rest is judged once, when it qualifies).
    private var judged = false
    /// A reading was seen since the start or the last `forget`: the next is not the first.
    private var seenReading = false
    /// The gain comes from the first reading, not from a rest.
    package private(set) var isProvisional = false
    private var spreadSquared: Double
    private var cosAngleSquared: Double

    /// Watches readings with `settings`; `enabled` false never learns.
    package init(_ settings: Settings = Settings(), enabled: Bool = true) {
        self.settings = settings
        isEnabled = enabled
        (spreadSquared, cosAngleSquared) = GravityEstimate.derived(settings)
    }

    private static func derived(_ settings: Settings) -> (Double, Double) {
        let spread = 1 + settings.magnitudeSpread
        let c = cos(settings.angleDeg * .pi / 180)
        return (spread * spread, c * c)
    }

    /// Feeds one reading (any frame: only its length and its direction from
    /// the rest's first reading count). Returns true when `learned` changed.
    package mutating func observe(_ a: Vector3, atMs t: Double) -> Bool {
        guard isEnabled else { return false }
        let squared = (a * a).sum()
        // A non-finite component makes the square NaN or infinite.
        guard squared > 0, squared < .infinity, t.isFinite else {
            count = 0
            return false
        }
        // A reading at about 1 g while the first reading's gain holds: that
        // first reading was motion or noise, not a wrong scale.
        if isProvisional, isPlausible(squared: squared) {
            isProvisional = false
            gain = 1
        }
        guard count > 0, t >= lastMs, continues(a, squared) else {
            begin(a, squared, atMs: t)
            if !seenReading, learned == nil, !isPlausible(squared: squared) {
                isProvisional = true
                gain = settings.standardGravity / squared.squareRoot()
            }
            seenReading = true
            return false
        }
        count += 1
        lastMs = t
        sumSquared += squared
        guard !judged, count >= settings.minReadings, t - startMs >= settings.restMs else { return false }
        judged = true
        return judge((sumSquared / Double(count)).squareRoot())
    }

    /// An on-change sensor said nothing since its last reading up to `t`: its
    /// reading held, the rest goes on. Judges the rest once it has lasted
    /// `restMs`, however few readings it holds. Returns true when `learned` changed.
    package mutating func observeHeld(atMs t: Double) -> Bool {
        // The same sum as `heldRestDeadline`'s, so that a tick at that deadline
        // judges the rest whatever the rounding of `t - startMs`.
        guard isEnabled, count > 0, !judged, t.isFinite, t >= lastMs, t >= startMs + settings.restMs else { return false }
        judged = true
        return judge((sumSquared / Double(count)).squareRoot())
    }

    /// When the rest being watched would be judged on an on-change sensor
    /// that stays silent (`observeHeld`), if judging it could change the
    /// gain: nil for a correctly scaled device resting at 1 g.
    package var heldRestDeadline: Double? {
        guard isEnabled, count > 0, !judged else { return nil }
        guard gain != 1 || !isPlausible(squared: sumSquared / Double(count)) else { return nil }
        // Never before its latest reading: a rest of sparse readings may have
        // outlasted `restMs` without the readings `observe` judges it by.
        return max(startMs + settings.restMs, lastMs)
    }

    /// Whether a magnitude (given squared) is within [g / plausibleRatio, g × plausibleRatio].
    private func isPlausible(squared: Double) -> Bool {
        let low = settings.standardGravity / settings.plausibleRatio, high = settings.standardGravity * settings.plausibleRatio
        return squared >= low * low && squared <= high * high
    }

    /// Starts watching for a rest afresh (the sensor was off: its silence
    /// then was not a rest).
    package mutating func restartRest() {
        count = 0
    }

    /// Whether the reading belongs to the rest: magnitudes still within the
    /// spread, direction within the angle of the first reading.
    private mutating func continues(_ a: Vector3, _ squared: Double) -> Bool {
        let low = min(minSquared, squared), high = max(maxSquared, squared)
        guard high <= low * spreadSquared else { return false }
        let dot = (a * first).sum()
        guard dot > 0, dot * dot >= cosAngleSquared * squared * firstSquared else { return false }
        minSquared = low
        maxSquared = high
        return true
    }

    private mutating func begin(_ a: Vector3, _ squared: Double, atMs t: Double) {
        first = a
        firstSquared = squared
        startMs = t
        lastMs = t
        count = 1
        minSquared = squared
        maxSquared = squared
        sumSquared = squared
        judged = false
    }

    /// A rest at `magnitude` (its RMS): learn it, keep the learned value, or
    /// forget it. Returns true when `learned` changed.
    private mutating func judge(_ magnitude: Double) -> Bool {
        // The rest replaces the first reading's gain, whatever it says.
        isProvisional = false
        if isPlausible(squared: magnitude * magnitude) {
            let had = learned != nil
            set(nil)
            return had
        }
        if let learned, abs(magnitude / learned - 1) <= settings.relearnTolerance { return false }
        set(magnitude)
        return true
    }

    private mutating func set(_ value: Double?) {
        learned = value
        gain = value.map { settings.standardGravity / $0 } ?? 1
    }

    /// Forgets the learned value and the rest being watched (another device,
    /// or its calibration changed).
    package mutating func forget() {
        set(nil)
        count = 0
        seenReading = false
        isProvisional = false
    }

    /// Starts or stops watching; stopping forgets the learned value. Returns
    /// true when `learned` changed.
    @discardableResult
    package mutating func setEnabled(_ enabled: Bool) -> Bool {
        isEnabled = enabled
        guard !enabled, gain != 1 else { return false }
        let had = learned != nil
        forget()
        return had
    }

    /// New settings (a new standard gravity); the learned value's gain follows.
    package mutating func reconfigure(_ settings: Settings) {
        guard settings != self.settings else { return }
        let provisional = isProvisional ? self.settings.standardGravity / gain : nil
        self.settings = settings
        (spreadSquared, cosAngleSquared) = GravityEstimate.derived(settings)
        set(learned)
        if let provisional { gain = settings.standardGravity / provisional }
    }
}

// MARK: - What to say about it

extension GravityEstimate {
    /// What the learned value means, for the log and `status`:
    /// `readings at rest are 26.1 g, not 1 g: taking 256 m/s² as g`.
    package static func problem(learned: Double, standardGravity: Double) -> String {
        let inG = rounded(learned / standardGravity, significantDigits: 3)
        return "readings at rest are \(formatNumber(inG)) g, not 1 g: taking "
            + "\(formatNumber(rounded(learned, significantDigits: 4))) m/s² as g"
    }

    /// What to do about it: fix the sysfs scale, or set the config's.
    ///
    /// - Parameters:
    ///   - attribute: the scale attribute the device has (`in_accel_scale`), nil when it has none.
    ///   - missing: what the device lacks when `attribute` is nil.
    ///   - scale: the scale in use on every axis (m/s² per count), nil when the
    ///     axes differ or it is unknown; with it the fix names the value that would be right.
    package static func fix(
        learned: Double, standardGravity: Double, attribute: String?,
        missing: String = "the driver gives no scale (in_accel_scale)", scale: Double?
    ) -> String {
        let setting = scale.map { "`[sensor] scale = \(formatNumber(rounded($0 * standardGravity / learned, significantDigits: 5)))`" }
            ?? "`[sensor] scale`"
        let sysfs = attribute.map { "fix the scale (\($0))" } ?? "\(missing): fix the driver"
        return "\(sysfs) or set \(setting) in the config"
    }

    /// `x` rounded to `significantDigits` significant decimal digits, but
    /// never to fewer than its whole part: 26.1, 0.0981, 16384.
    package static func rounded(_ x: Double, significantDigits digits: Int) -> Double {
        guard x.isFinite, x != 0 else { return x }
        let exponent = Int(log10(abs(x)).rounded(.down))
        // Divide by a power of ten rather than multiply by its inverse: 10^k is
        // exact up to 10^22, its inverse never is.
        let p = pow(10, Double(max(0, digits - 1 - exponent)))
        return (x * p).rounded() / p
    }
}
