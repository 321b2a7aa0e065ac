import OrientProtocol

/// The tilt: the gates it closes (the overhead latch, the flat hold-off) and
/// the tilt class the classifier publishes.
extension Classifier {
    mutating func setQuietTilt() {
        let range = limits.quietRange(for: tilt)
        quietLower = range?.lowerBound ?? .infinity
        quietUpper = range?.upperBound ?? -.infinity
    }

    /// The overhead latch and the flat hold-off, for a tilt of sine `sinTilt`.
    @inline(__always)
    mutating func updateTiltGates(t: Double, sinTilt: Double) {
        if limits.overheadEnter.isAtOrAbove(tiltOfSine: sinTilt) {
            if !overheadLatched, !overheadExpired {
                restCone.forget()
                overheadLatched = true
                overheadSince = t
            }
        } else if limits.overheadExit.isReached(byTiltOfSine: sinTilt) {
            if overheadLatched { restCone.forget() }
            overheadLatched = false
            overheadExpired = false
        }
        // With an assumed z sign the "overhead" reading may be a device tilted
        // back in the hand: the latch holds only briefly.
        if overheadLatched, !config.zSignKnown, t - overheadSince >= config.overheadExpiryMs {
            restCone.forget()
            overheadLatched = false
            overheadExpired = true
        }
        let flatSine = config.zSignKnown ? sinTilt : abs(sinTilt)
        if limits.flat.isReached(byTiltOfSine: flatSine) {
            let since = flatSince ?? t
            flatSince = since
            if t - since >= config.flatTimeMs {
                holdUntil = max(holdUntil, t + config.holdAfterFlatMs)
            }
        } else {
            flatSince = nil
        }
    }

    /// The tilt class of φ, moving off the current class only past the hysteresis
    /// band and after the class has held for the tilt settle time.
    @inline(__always)
    mutating func publishTilt(sinTilt: Double, at t: Double) -> Bool {
        // Nearly always φ stays in the published class, which sin φ tells.
        if limits.clearlyInside(tilt, sinTilt: sinTilt) {
            tiltCandidate = .undefined
            return false
        }
        func classify(_ p: Double) -> Tilt {
            let size = abs(p)
            if size <= config.tiltedDeg { return .vertical }
            if size < config.faceDeg { return p > 0 ? .tiltedUp : .tiltedDown }
            return p > 0 ? .faceUp : .faceDown
        }
        let phi = tiltDegrees(sine: sinTilt)
        let proposed = classify(phi)
        guard proposed != tilt else {
            tiltCandidate = .undefined
            return false
        }
        if tilt != .undefined {
            let h = config.tiltHysteresisDeg
            guard classify(phi - h) == proposed, classify(phi + h) == proposed else { return false }
            if tiltCandidate != proposed {
                tiltCandidate = proposed
                tiltCandidateSince = t
            }
            guard t - tiltCandidateSince >= config.tiltSettleMs - 1e-9 else { return false }
        }
        tilt = proposed
        setQuietTilt()
        tiltCandidate = .undefined
        return true
    }
}
