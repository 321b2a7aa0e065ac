package import OrientProtocol

/// The three rests a calibration needs, found in recorded samples.
package struct PoseSet: Sendable, Equatable {
    package var upright: Rest
    package var leftUp: Rest
    package var faceUp: Rest

    package init(upright: Rest, leftUp: Rest, faceUp: Rest) {
        self.upright = upright
        self.leftUp = leftUp
        self.faceUp = faceUp
    }

    package subscript(pose: CalibrationPose) -> Rest {
        switch pose {
        case .upright: upright
        case .leftUp: leftUp
        case .faceUp: faceUp
        }
    }

    /// One recording per pose, in the order upright, left-up, face-up: the
    /// longest rest in each.
    package init(perPose recordings: [[Sample]], detector: RestDetector) throws(CalibrationProblem) {
        precondition(recordings.count == 3, "one recording per pose")
        var rests: [Rest] = []
        for (pose, samples) in zip(CalibrationPose.allCases, recordings) {
            do {
                rests.append(try detector.rest(in: samples))
            } catch {
                throw .pose(pose, error)
            }
        }
        self.init(upright: rests[0], leftUp: rests[1], faceUp: rests[2])
    }

    /// One recording holding the three poses in order, the device moved
    /// between them: its rests, with rests in the same direction (within
    /// `sameDegrees`) one after another merged, must be exactly three.
    package init(sequence samples: [Sample], detector: RestDetector, sameDegrees: Double = 20)
        throws(CalibrationSequenceProblem)
    {
        let rests = detector.runs(in: samples).filter(detector.qualifies)
        var merged: [Rest] = []
        for rest in rests {
            if let last = merged.last, angleDegrees(last.mean, rest.mean) <= sameDegrees {
                let count = last.count + rest.count
                let mean = (last.mean * Double(last.count) + rest.mean * Double(rest.count)) / Double(count)
                merged[merged.count - 1] = Rest(
                    mean: mean, startMs: last.startMs, endMs: rest.endMs, count: count,
                    spreadDegrees: max(last.spreadDegrees, rest.spreadDegrees))
            } else {
                merged.append(rest)
            }
        }
        guard merged.count == 3 else {
            throw CalibrationSequenceProblem(
                restsFound: merged.count, restMs: detector.minimumDurationMs,
                starts: merged.map(\.startMs))
        }
        for (pose, rest) in zip(CalibrationPose.allCases, merged) {
            do {
                try detector.checkGravity(rest)
            } catch {
                throw CalibrationSequenceProblem(
                    restsFound: 3, restMs: detector.minimumDurationMs, starts: merged.map(\.startMs), pose: .pose(pose, error))
            }
        }
        self.init(upright: merged[0], leftUp: merged[1], faceUp: merged[2])
    }
}

/// A single recording that does not hold the three poses.
package struct CalibrationSequenceProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package var restsFound: Int
    package var restMs: Double
    /// Where each rest found starts, ms.
    package var starts: [Double]
    /// A rest that was found but cannot be used.
    package var pose: CalibrationProblem?

    package var description: String {
        if let pose { return pose.description }
        let at = starts.map { "\(Int($0.rounded())) ms" }.joined(separator: ", ")
        return
            "the recording holds \(restsFound) rest\(restsFound == 1 ? "" : "s") of at least \(Int(restMs.rounded())) ms\(at.isEmpty ? "" : " (starting at \(at))"); it needs exactly three, in the order upright, left edge up, lying face up, with the device moved between them"
    }
}
