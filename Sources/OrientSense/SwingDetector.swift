/// The swing gate: has the tilt risen by at least a given angle above its
/// lowest reading within the last `windowMs` ("20° within 300 ms": being put
/// down)?
///
/// It runs on every reading and almost never fires, so it is built to say no
/// cheaply. It keeps sin φ rather than φ (asin is increasing, so the lowest
/// sine is the lowest tilt), and a lower bound of the window's lowest sine: the
/// lowest of the current block of readings and of the block before it, blocks
/// being at least a window long, so that the two always cover the window.
/// Between two sines φ grows by at most 1/√(1 − s²) per unit of sine (s the
/// larger in size), so a reading whose sine clears the bound by less than the
/// rise in radians times √(1 − s²) cannot be a swing; a threshold on the
/// sine alone, computed once per bound, says so for most readings. Otherwise
/// the window's readings, kept in a ring, give the exact lowest, and the
/// angles decide.
struct SwingDetector: Sendable {
    private struct Reading {
        var tMs: Double
        var sinTilt: Double
    }

    /// A power of two (a slot is an index masked, not divided); doubles when a
    /// window holds more readings, up to `maxCapacity` (65 s at 1000 Hz), beyond
    /// which the oldest are forgotten.
    private static let maxCapacity = 1 << 16
    private var ring = ContiguousArray(repeating: Reading(tMs: 0, sinTilt: 0), count: 512)
    private var head = 0
    private var count = 0
    /// The time of the newest reading.
    private var lastTMs = -Double.infinity

    /// The block the lower bound is kept over (see above), and the window length
    /// it was built for.
    private var blockStart = -Double.infinity
    private var blockWindowMs = Double.nan
    private var blockLowest = Double.infinity
    private var previousBlockLowest = Double.infinity
    /// `setThreshold`'s sine, and the bound it was computed for.
    private var threshold = -Double.infinity
    private var thresholdBound = Double.nan

    mutating func clear() {
        head = 0
        count = 0
        blockStart = -.infinity
        blockLowest = .infinity
        previousBlockLowest = .infinity
    }

    /// Adds a reading (its tilt as sin φ, never NaN) and tells whether φ has
    /// risen by at least `limit` above the lowest reading within the window.
    @inline(__always)
    mutating func rose(by limit: SwingLimit, tMs: Double, sinTilt: Double, windowMs: Double) -> Bool {
        append(tMs: tMs, sinTilt: sinTilt, windowMs: windowMs)
        let bound = min(blockLowest, previousBlockLowest)
        if bound != thresholdBound { setThreshold(bound: bound, limit: limit) }
        if sinTilt < threshold { return false }
        let s = max(abs(sinTilt), abs(bound))
        if sinTilt - bound < limit.radiansBelow * ((1 - s) * (1 + s)).squareRoot() { return false }
        return tiltDegrees(sine: sinTilt) - tiltDegrees(sine: lowestInWindow(tMs: tMs, windowMs: windowMs)) >= limit.degrees
    }

    /// A sine below which the bound test below passes for sure, kept for one
    /// bound: a sine that can pass that test lies under bound + rise, so its
    /// size is at most |bound| + rise, which caps s there.
    @inline(never)
    private mutating func setThreshold(bound: Double, limit: SwingLimit) {
        thresholdBound = bound
        let cap = abs(bound) + limit.radiansBelow
        threshold = bound + limit.radiansBelow * max(0, (1 - cap) * (1 + cap)).squareRoot()
    }

    @inline(__always)
    private mutating func append(tMs: Double, sinTilt: Double, windowMs: Double) {
        if windowMs != blockWindowMs, count > 0 {
            // Readings the old window had dropped stay dropped.
            dropOutOfWindow(cutoff: lastTMs - blockWindowMs, keepingNewest: true)
        }
        lastTMs = tMs
        if count < ring.count {
            // Readings that fell out of the window are dropped only when the ring
            // fills up or the window is scanned: times never decrease, so that
            // drops the same readings.
            store(Reading(tMs: tMs, sinTilt: sinTilt), at: head &+ count)
            count &+= 1
        } else {
            appendToFullRing(tMs: tMs, sinTilt: sinTilt, windowMs: windowMs)
        }

        if windowMs != blockWindowMs {
            // A new window length: the block before this one no longer covers it.
            blockWindowMs = windowMs
            blockStart = tMs
            blockLowest = .infinity
            previousBlockLowest = -.infinity
        } else if tMs - blockStart >= windowMs {
            blockStart = tMs
            previousBlockLowest = blockLowest
            blockLowest = .infinity
        }
        blockLowest = min(blockLowest, sinTilt)
    }

    /// `append` when the ring was full: drops what fell out of the window, then
    /// grows the ring (or, at `maxCapacity`, forgets the oldest) if still full.
    @inline(never)
    private mutating func appendToFullRing(tMs: Double, sinTilt: Double, windowMs: Double) {
        dropOutOfWindow(cutoff: tMs - windowMs, keepingNewest: false)
        if count == ring.count {
            if count < Self.maxCapacity {
                grow()
            } else {
                head = (head &+ 1) & (ring.count - 1)
                count -= 1
            }
        }
        store(Reading(tMs: tMs, sinTilt: sinTilt), at: head &+ count)
        count += 1
    }

    /// The reading in slot `slot` (masked).
    @inline(__always)
    private func reading(at slot: Int) -> Reading {
        ring[slot & (ring.count - 1)]
    }

    @inline(__always)
    private mutating func store(_ reading: Reading, at slot: Int) {
        let slot = slot & (ring.count - 1)
        ring.withUnsafeMutableBufferPointer { $0[slot] = reading }
    }

    /// Doubles the ring, keeping the readings in order from slot 0.
    private mutating func grow() {
        var larger = ContiguousArray(repeating: Reading(tMs: 0, sinTilt: 0), count: ring.count * 2)
        for i in 0..<count { larger[i] = reading(at: head + i) }
        ring = larger
        head = 0
    }

    /// Drops the readings older than `cutoff` (ms), except the newest when
    /// `keepingNewest` (a reading is never dropped at its own append, whatever
    /// the window).
    private mutating func dropOutOfWindow(cutoff: Double, keepingNewest: Bool) {
        // Times never decrease along the ring: the readings to drop are a
        // prefix, found by bisection.
        var low = 0, high = count - (keepingNewest ? 1 : 0)
        while low < high {
            let middle = (low + high) / 2
            if reading(at: head &+ middle).tMs < cutoff { low = middle + 1 } else { high = middle }
        }
        head = (head &+ low) & (ring.count - 1)
        count -= low
    }

    /// The lowest sin φ among the readings of the window ending at `tMs`.
    @inline(never)
    private mutating func lowestInWindow(tMs: Double, windowMs: Double) -> Double {
        dropOutOfWindow(cutoff: tMs - windowMs, keepingNewest: true)
        var lowest = Double.infinity
        for i in 0..<count { lowest = min(lowest, reading(at: head + i).sinTilt) }
        return lowest
    }
}

/// The swing gate's rise in degrees, and the same just under it in radians
/// (below by the guard band and more than any rounding), for ruling a swing
/// out from sines alone.
struct SwingLimit: Sendable {
    let degrees: Double
    let radiansBelow: Double

    init(degrees: Double) {
        self.degrees = degrees
        radiansBelow = degrees * .pi / 180 * (1 - angleGuardBand) - 1e-12
    }
}
