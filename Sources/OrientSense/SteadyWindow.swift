#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OrientProtocol

/// The recent raw readings, to tell when the raw vector has come to rest.
///
/// Steady at time t means: every reading from the last one at or before
/// t − window up to the newest lies within an angle δ of the newest reading and
/// has a magnitude near g. Anchoring on the newest reading and a time window
/// (rounded up to the sample period) makes the test the same at any sample
/// rate: a motion slower than δ per window is steady, anything faster is not.
///
/// The test runs on every reading, and a device at rest passes it on every
/// reading, so it avoids checking each reading of the window each time. A
/// full check that passes also yields a cone: an axis (the readings' mean
/// direction then) and an angle A that holds every reading of the window.
/// Each later reading, at angle B from the axis, widens A to B if need be;
/// while A + B stays under δ, the triangle inequality puts every reading
/// within δ of the newest, and no check of the readings is needed. The margin (a cosine `angleGuardBand` above
/// δ's) makes the answer the full check's, rounding included. Magnitudes are
/// tracked by the number of the last reading not near g. The window's sum,
/// for the mean's direction, is kept by adding and subtracting readings and
/// refreshed exactly by a full check at least every `refreshInterval`
/// readings; the mean itself is summed afresh, in the full check's order, when
/// a commit needs it.
///
/// The readings live in one fixed ring whose capacity is a power of two (a
/// slot is an index masked, not divided). It stays on the heap: inline (an
/// `InlineArray`) it would spare a uniqueness check per append, but make the
/// classifier a 20 KiB value that every copy of an engine or a replay
/// duplicates.
struct SteadyWindow: Sendable {
    /// One raw reading and its magnitude.
    private struct Reading {
        var vector: Vector3
        var tMs: Double
        var magnitude: Double
    }

    /// Room for 2.5 s at 100 Hz, far more than any sensible window; beyond it
    /// the oldest reading is forgotten.
    private static let capacity = 256
    private static let mask = capacity - 1
    /// At most this many readings between full checks, which bounds the rounding
    /// the running sum gathers (far below `angleGuardBand`).
    private static let refreshInterval = 128

    private var ring = ContiguousArray(repeating: Reading(vector: .zero, tMs: 0, magnitude: 0), count: capacity)
    private var head = 0
    private var count = 0
    /// Readings appended so far, and the number of the last one whose magnitude
    /// was not near g: while that one is in the ring, nothing is steady.
    private var appended = 0
    private var lastMagnitudeNotOK = -1
    /// The sum of the ring's vectors, kept by adding and subtracting; exact as a
    /// full check computes it just after a full check.
    private var runningSum: Vector3 = .zero

    // The cone (see above), valid only while `hasCone`.
    private var hasCone = false
    /// Unit vector along the readings' mean at the last full check: the cone's
    /// axis (valid after `isSteady` returned true).
    private(set) var axis: Vector3 = .zero
    /// cos A: no reading of the window lies farther than A from the axis (valid
    /// after `isSteady` returned true).
    private(set) var cosSpread: Double = 1
    /// cos B: the newest reading's angle from the axis.
    private var cosNewest: Double = 1
    private var readingsSinceCheck = 0
    /// The lowest cos B for which the cone still holds, and the cos A and cos δ
    /// it was computed for (see `coneHolds`).
    private var newestFloor = Double.infinity
    private var floorSpread = Double.nan
    private var floorAngle = Double.nan
    /// Numbers the cones: a full check starting one, or a clear, changes it,
    /// so an equal serial means the same cone (`RestCone`).
    private(set) var coneSerial = 0

    mutating func clear() {
        coneSerial &+= 1
        head = 0
        count = 0
        runningSum = .zero
        hasCone = false
    }

    /// Adds a reading, forgetting those no longer needed for a window of `windowMs`.
    @inline(__always)
    mutating func append(tMs: Double, vector: Vector3, magnitude: Double, magnitudeOK ok: Bool, windowMs: Double) {
        var head = self.head, count = self.count
        var sum = runningSum
        // Keep exactly one reading at or before tMs − window (the window's
        // anchor), and at most `capacity`. Times never decrease along the ring,
        // so dropping for the window first and then for room drops the same
        // readings as testing both at each step.
        let cutoff = tMs - windowMs
        ring.withUnsafeMutableBufferPointer { ring in
            while count >= 2 && ring[(head &+ 1) & Self.mask].tMs <= cutoff {
                sum -= ring[head & Self.mask].vector
                head = (head &+ 1) & Self.mask
                count &-= 1
            }
            if count == Self.capacity {
                sum -= ring[head & Self.mask].vector
                head = (head &+ 1) & Self.mask
                count &-= 1
            }
            ring[(head &+ count) & Self.mask] = Reading(vector: vector, tMs: tMs, magnitude: magnitude)
            count &+= 1
        }
        if !ok { lastMagnitudeNotOK = appended }
        appended &+= 1
        self.head = head
        self.count = count
        runningSum = sum + vector
        if hasCone {
            cosNewest = (vector * axis).sum() / magnitude
            // Written so that a NaN spreads rather than being skipped.
            if !(cosNewest >= cosSpread) { cosSpread = cosNewest }
            readingsSinceCheck &+= 1
        }
    }

    /// Whether the raw vector has been at rest for `windowMs` by `tMs`: every
    /// reading of the window within `angle` radians (whose cosine is `cosAngle`)
    /// of the newest, and near g. Then `approximateSum` and `mean()` describe the
    /// window.
    @inline(__always)
    mutating func isSteady(atMs tMs: Double, windowMs: Double, angle: Double, cosAngle: Double) -> Bool {
        guard count >= 2, lastMagnitudeNotOK < appended - count else { return false }
        let anchorTime = ring[head & Self.mask].tMs
        guard anchorTime <= tMs - windowMs + 1e-9 else { return false }
        // An anchor older than the window (low sample rates) is allowed the same
        // angular speed, δ per window, so the test does not depend on the rate.
        let anchorAge = tMs - anchorTime
        let anchorIsOld = anchorAge > windowMs
        let anchorLimit = anchorIsOld ? cos(angle * anchorAge / windowMs) : cosAngle
        guard coneHolds(cosAngle: cosAngle) else { return fullCheck(anchorLimit: anchorLimit, cosAngle: cosAngle) }
        // Every reading passes with δ; an old anchor has its own limit.
        return !anchorIsOld || Self.passes(ring[head & Self.mask], against: ring[(head + count - 1) & Self.mask], limit: anchorLimit)
    }

    /// Whether the cone puts every reading within δ (cosine `cosAngle`) of the
    /// newest: A + B at most δ' (cos δ' = cos δ plus the margin), that is
    /// cos B at least cos(δ' − A) = cos δ' cos A + sin δ' sin A. That floor
    /// changes only with A (and δ), so it is computed again only then, with the
    /// sines rounded up (a cosine near 1 leaves 1 − cos² with little precision)
    /// and the floor raised by far more than its rounding.
    @inline(__always)
    private mutating func coneHolds(cosAngle: Double) -> Bool {
        guard hasCone, readingsSinceCheck < Self.refreshInterval else { return false }
        if cosSpread != floorSpread || cosAngle != floorAngle { setNewestFloor(cosAngle: cosAngle) }
        return cosNewest >= newestFloor
    }

    /// Sets `newestFloor` for the current spread and δ (infinite when A ≥ δ',
    /// or for a spread of 90° or more, or NaN).
    @inline(never)
    private mutating func setNewestFloor(cosAngle: Double) {
        floorSpread = cosSpread
        floorAngle = cosAngle
        let cosLimit = cosAngle + angleGuardBand
        if cosSpread > cosLimit, cosSpread > 0, cosLimit < 1 {
            let sinLimit = (1 - cosLimit * cosLimit + 4e-15).squareRoot()
            let sinSpread = (1 - cosSpread * cosSpread + 4e-15).squareRoot()
            newestFloor = cosLimit * cosSpread + sinLimit * sinSpread + 1e-12
        } else {
            newestFloor = .infinity
        }
    }

    /// The steady test of one reading against the newest.
    @inline(__always)
    private static func passes(_ reading: Reading, against newest: Reading, limit: Double) -> Bool {
        (reading.vector * newest.vector).sum() >= limit * reading.magnitude * newest.magnitude
    }

    /// Checks every reading of the window against the newest; when all pass,
    /// starts a new cone and refreshes the running sum.
    private mutating func fullCheck(anchorLimit: Double, cosAngle: Double) -> Bool {
        hasCone = false
        coneSerial &+= 1
        let newest = ring[(head + count - 1) & Self.mask]
        // A moving device fails soonest at the anchor, the oldest reading: test
        // it first (the answer does not depend on the order).
        guard Self.passes(ring[head & Self.mask], against: newest, limit: anchorLimit) else { return false }
        var sum = Vector3.zero
        var i = count - 1
        while i >= 0 {
            let reading = ring[(head + i) & Self.mask]
            guard Self.passes(reading, against: newest, limit: i == 0 ? anchorLimit : cosAngle) else { return false }
            sum += reading.vector
            i -= 1
        }
        // The cone's axis is the readings' mean direction: the readings lie about
        // half as far from it as from the newest, so the cone lasts longer.
        let centre = sum / (sum * sum).sum().squareRoot()
        var lowestCosine = 1.0
        for j in 0..<count {
            let reading = ring[(head + j) & Self.mask]
            let cosine = (reading.vector * centre).sum() / reading.magnitude
            if !(cosine >= lowestCosine) { lowestCosine = cosine }  // a NaN spreads (and ends the cone)
        }
        runningSum = sum
        axis = centre
        cosSpread = lowestCosine
        cosNewest = (newest.vector * centre).sum() / newest.magnitude
        readingsSinceCheck = 0
        hasCone = true
        return true
    }

    /// The sum of the window's vectors to within rounding, for decisions that
    /// tolerate it (valid after `isSteady` returned true).
    var approximateSum: Vector3 { runningSum }

    /// The mean of the window's readings, summed from the newest back.
    ///
    /// `mutating` only so that it reads the ring in place: a non-mutating
    /// method called on a stored property of a value being mutated gets a copy
    /// of the whole ring.
    mutating func mean() -> Vector3 {
        var sum = Vector3.zero
        var i = count - 1
        while i >= 0 {
            sum += ring[(head + i) & Self.mask].vector
            i -= 1
        }
        return sum / Double(count)
    }
}
