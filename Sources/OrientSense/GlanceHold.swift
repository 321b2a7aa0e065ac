import OrientProtocol

/// The glance hold: a new orientation commits only once the raw readings have
/// proposed it for `holdMs`, so a turn that comes straight back (a glance, a
/// wobble) publishes nothing (docs/classifier.md, "Glances and reading posture").
///
/// It keeps two runs of raw readings. The steady path waits on `runCandidate`,
/// which every raw reading since `runSince` has proposed. The slow path, for
/// noisy motion whose raw readings come and go, waits on `proposal`, the latest
/// orientation a raw reading proposed (readings with no candidate do not
/// count), and since when. A run starts where the in-plane angle crossed the
/// boundary between the two readings around it, so the hold is measured from
/// the turn, not from the reading that happened to follow it.
struct GlanceHold: Sendable {
    /// The raw readings' candidate and since when every raw reading has proposed it.
    private(set) var runCandidate: Orientation?
    private(set) var runSince: Double = 0
    /// The latest orientation a raw reading proposed, and since when.
    private(set) var proposal: Orientation?
    private(set) var proposalSince: Double = 0
    /// The time of the reading before the newest (−∞ after a re-initialisation), and that reading.
    private var previousReadingTime = -Double.infinity
    private var previousRaw: Vector3 = .zero
    /// The glance hold that applies now, set for each reading: longer while the
    /// device is tilted far back (`glanceHoldTiltedMs`).
    var holdMs: Double = 0

    /// Forgets both runs (after a resume, a sensor re-enable or a gap).
    mutating func clear() {
        runCandidate = nil
        proposal = nil
    }

    /// A new reading replaces the newest, which was `raw` at `tMs`.
    @inline(__always)
    mutating func replacing(_ raw: Vector3, at tMs: Double) {
        previousReadingTime = tMs
        previousRaw = raw
    }

    /// Whether a new raw reading that proposes `k` (nil for no candidate) ends
    /// the run: it proposes something else, or it is not `usable` at all.
    @inline(__always)
    func endsRun(proposing k: Orientation?, usable: Bool) -> Bool {
        k != runCandidate || !usable
    }

    /// Starts the run of `k` with the newest raw reading, `newest` at `t` (kept
    /// out of line: runs change rarely; the caller has checked `endsRun`, and
    /// passes the config only then, since a copy of it costs on every reading).
    @inline(never)
    mutating func startRun(
        of k: Orientation?, at t: Double, newest: Vector3, applied: Orientation?, config: ClassifierConfig
    ) {
        runCandidate = k
        runSince = runStart(of: k, at: t, newest: newest, applied: applied, config: config)
        if let k, k != proposal {
            proposal = k
            proposalSince = runSince
        }
    }

    /// Whether every raw reading has proposed `k` for the hold, at `t`.
    @inline(__always)
    func runHolds(_ k: Orientation, at t: Double) -> Bool {
        runCandidate == k && t - runSince >= holdMs - 1e-9
    }

    /// Whether `k` is the latest proposal and has been for the hold, at `t`.
    @inline(__always)
    func proposalHolds(_ k: Orientation, at t: Double) -> Bool {
        proposal == k && t - proposalSince >= holdMs - 1e-9
    }

    /// When the run of `k` will have lasted the hold; nil when the run is not `k`.
    func runHoldEnd(for k: Orientation) -> Double? {
        runCandidate == k ? runSince + holdMs : nil
    }

    /// When the proposal `k` will have lasted the hold; nil when the proposal is not `k`.
    func proposalHoldEnd(for k: Orientation) -> Double? {
        proposal == k ? proposalSince + holdMs : nil
    }

    /// When the raw readings began to propose `k`, the newest reading (`newest`
    /// at `t`) being the first to: where the in-plane angle crossed the boundary
    /// between the two readings when that is what changed (a turn away from the
    /// applied orientation), else midway. Never more than one sampling period
    /// back: a silent on-change sensor says nothing about when.
    private func runStart(
        of k: Orientation?, at t: Double, newest: Vector3, applied: Orientation?, config: ClassifierConfig
    ) -> Double {
        let gap = min(t - previousReadingTime, 1000 / config.sampleRateHz)
        guard gap.isFinite, gap > 0 else { return t }
        var fraction = 0.5
        if let k, let a = applied, let aTurns = a.quarterTurns, let kTurns = k.quarterTurns, (kTurns - aTurns) & 3 != 0 {
            let centre = Double(aTurns) * 90
            func distance(_ v: Vector3) -> Double {
                var angles = AngleReading(v, magnitude: length(v), zSign: config.zSign)
                return angularDistance(angles.theta, centre)
            }
            let leave = 45 + config.adjacentGapDeg / 2
            let before = distance(previousRaw), now = distance(newest)
            if before < leave, now >= leave { fraction = (leave - before) / (now - before) }
        }
        return t - gap * (1 - fraction)
    }
}
