import OrientProtocol

/// Candidate selection: which orientation a vector proposes, for the
/// filtered vector, the newest raw reading and the steady window's mean, each
/// remembered in its `CandidateMemo` while the vector stays clear of every
/// limit the decision consulted.
extension Classifier {
    /// The filtered vector's candidate, decided afresh and remembered (kept out
    /// of line: the memo nearly always answers).
    @inline(never)
    mutating func filteredCandidate(_ f: Vector3, magnitude: Double) -> Orientation? {
        var angles = AngleReading(f, magnitude: magnitude, zSign: config.zSign)
        let k = candidate(&angles, requireNear: nil)
        slowMemo.remember(k, for: angles, zSign: config.zSign, applied: applied, overheadLatched: overheadLatched)
        return k
    }

    /// The candidate of the newest raw reading, decided afresh unless the memo
    /// answers (kept out of line).
    @inline(never)
    mutating func rawCandidate() -> Orientation? {
        let a = lastRaw
        if let recalled = rawMemo.recall(
            a, squaredLength: lastRawSquared, applied: applied, overheadLatched: overheadLatched) {
            return recalled.candidate
        }
        var angles = AngleReading(a, magnitude: lastRawMagnitude, zSign: config.zSign)
        let k = candidate(&angles, requireNear: nil)
        rawMemo.remember(k, for: angles, zSign: config.zSign, applied: applied, overheadLatched: overheadLatched)
        return k
    }

    /// The candidate of the steady window's mean, while the window is steady.
    @inline(__always)
    mutating func steadyWindowCandidate() -> Orientation? {
        // At rest at the current orientation, the cone alone decides (`RestCone`;
        // it is forgotten whenever P, A or the overhead latch changes).
        if restCone.holds(cone: steady.coneSerial, cosSpread: steady.cosSpread) {
            restConeHeld = true
            return orientation
        }
        let k = steadySumCandidate()
        if k == orientation, applied == orientation, !overheadLatched,
            restCone.mayMeasure(cone: steady.coneSerial, orientation: orientation),
            let turns = orientation.quarterTurns,
            let region = limits.restRegion(quarterTurns: turns, allowUpsideDown: config.allowUpsideDown) {
            restCone.measure(
                cone: steady.coneSerial, axis: steady.axis, cosSpread: steady.cosSpread,
                orientation: orientation, region: region, zSign: config.zSign)
        }
        return k
    }

    /// The candidate of the steady window's mean, from its running sum unless
    /// it comes too near a limit.
    @inline(never)
    private mutating func steadySumCandidate() -> Orientation? {
        // The window's running sum decides, unless it comes too near a limit.
        let sum = steady.approximateSum
        if let recalled = steadyMemo.recall(
            sum, squaredLength: (sum * sum).sum(), applied: applied, overheadLatched: overheadLatched) {
            return recalled.candidate
        }
        var approximate = AngleReading(approximating: sum, zSign: config.zSign)
        var k = candidate(&approximate, requireNear: limits.steadyAccept)
        if approximate.isUndecided {
            let mean = steady.mean()
            var angles = AngleReading(mean, magnitude: length(mean), zSign: config.zSign)
            k = candidate(&angles, requireNear: limits.steadyAccept)
            steadyMemo.remember(k, for: angles, zSign: config.zSign, applied: applied, overheadLatched: overheadLatched)
        } else {
            steadyMemo.remember(
                k, for: approximate, zSign: config.zSign, applied: applied, overheadLatched: overheadLatched)
        }
        return k
    }

    /// The accepted candidate for a vector with angles `angles`, or nil (a gate
    /// closed or θ lies in the hysteresis dead zone). `requireNear` additionally
    /// demands θ within that distance of the candidate's centre. The tilt gates
    /// come first, so θ is not looked at for a device lying flat.
    ///
    /// `mutating` only so that it reads the classifier in place: a non-mutating
    /// method called from a mutating one gets a copy of `self` on every reading.
    private mutating func candidate(_ angles: inout AngleReading, requireNear: TurnLimit?) -> Orientation? {
        angles.resetSlack()
        if overheadLatched || angles.tilt(above: limits.maxTilt) || angles.tilt(below: limits.minusMaxTilt) {
            return nil
        }
        // Below the overhead angle only a known z sign rules a candidate out;
        // an assumed one leaves it to the (expiring) latch.
        if config.zSignKnown, angles.tilt(atMost: limits.overheadEnter) { return nil }
        var turns = angles.nearestQuarterTurns()
        var k = Orientation(quarterTurns: turns)
        if let a = applied, let aTurns = a.quarterTurns {
            switch ((turns - aTurns) % 4 + 4) % 4 {
            case 0:
                guard angles.distance(toQuarterTurns: aTurns, atMost: limits.stay) else { return nil }
            case 2:
                if angles.distance(toQuarterTurns: turns, above: limits.oppositeAccept) {
                    // Between the adjacent and opposite zones: fall back to the nearer neighbour of A.
                    let left = aTurns + 1, right = aTurns + 3
                    turns = angles.isCloser(toQuarterTurns: left, thanTo: right) ? left : right
                    k = Orientation(quarterTurns: turns)
                }
                guard angles.distance(toQuarterTurns: aTurns, atLeast: limits.leave) else { return nil }
            default:
                guard angles.distance(toQuarterTurns: aTurns, atLeast: limits.leave) else { return nil }
            }
        } else {
            guard angles.distance(toQuarterTurns: turns, atMost: limits.initialAccept) else { return nil }
        }
        if let near = requireNear, angles.distance(toQuarterTurns: turns, above: near) { return nil }
        let range = limits.tiltRange(quarterTurns: turns)
        if !(angles.tilt(atLeast: range.min) && angles.tilt(atMost: range.max)) {
            // An assumed z sign: the tilt limits hold for the tilt of either sign.
            guard !config.zSignKnown else { return nil }
            let mirrored = limits.mirroredTiltRange(quarterTurns: turns)
            guard angles.tilt(atLeast: mirrored.min), angles.tilt(atMost: mirrored.max) else { return nil }
        }
        if k == .bottomUp, !config.allowUpsideDown { return nil }
        return k
    }
}
