import OrientSynth
import Testing

@testable import OrientSense
import OrientProtocol

/// docs/classifier.md, What it must do: each behaviour is its own test, on synthetic trajectories
/// from OrientSynth (docs/traces.md, Bundled traces), checking the exact sequence of
/// committed orientations and latency bounds.
@Suite("Classifier behaviour")
struct ClassifierBehaviourTests {
    static let seeds: [UInt64] = [1, 2, 3, 4, 5]

    @Test("cardinal poses are classified from startup", arguments: [0.0, 90, 180, 270])
    func cardinalPoses(theta: Double) {
        let expected = Orientation(quarterTurns: Int(theta / 90))
        for seed in Self.seeds {
            let run = drive(Scenarios.cardinal(theta: theta, seed: seed))
            #expect(run.orientations == [expected], "seed \(seed)")
            #expect((run.changes.first?.tMs ?? .infinity) <= 500, "seed \(seed)")
            // Before the first commit the published orientation is undefined.
            #expect(run.events.first { !$0.orientationChanged }.map { $0.orientation == .undefined } ?? true)
        }
    }

    @Test("a brisk 90° turn gives exactly one event, quickly", arguments: [(0.0, 90.0), (0, 270), (90, 0), (270, 0)])
    func briskTurn(from: Double, to: Double) {
        var latencies: [Double] = []
        for seed in Self.seeds {
            let scenario = Scenarios.brisk90Turn(fromTheta: from, toTheta: to, seed: seed)
            let run = drive(scenario)
            let start = Orientation(quarterTurns: Int(from / 90)), end = Orientation(quarterTurns: Int(to / 90))
            #expect(run.orientations == [start, end], "seed \(seed): \(run.changes)")
            let latency = (run.changes.last?.tMs ?? .infinity) - scenario.mark("turn-end")
            #expect(latency >= 150 && latency <= 300, "seed \(seed): latency \(latency) ms")
            latencies.append(latency)
        }
        // The glance hold sets the floor: the turn crosses the boundary about
        // 100 ms before it ends, so the commit comes about 220 ms after the end.
        #expect(median(latencies) <= 250, "latencies \(latencies)")
    }

    @Test("a slow turn through 45° does not flicker")
    func slowTurn() {
        for seed in Self.seeds {
            let scenario = Scenarios.slowTurn(seed: seed)
            let run = drive(scenario)
            #expect(run.orientations == [.normal, .leftUp], "seed \(seed): \(run.changes)")
            let after = (run.laterChanges.first?.tMs ?? .infinity) - scenario.mark("turn-start")
            #expect(after >= 3400 && after <= 4200, "seed \(seed): switched \(after) ms into the turn")
        }
    }

    @Test("dwelling on the diagonal or just short of the switch point gives no event")
    func dwell() {
        for seed in Self.seeds {
            #expect(drive(Scenarios.dwellOnDiagonal(seed: seed)).orientations == [.normal], "seed \(seed)")
            #expect(drive(Scenarios.dwellOnDiagonal(center: 62, swing: 3, seed: seed)).orientations == [.normal], "seed \(seed)")
        }
    }

    @Test("hysteresis on the way back: 40° keeps left-up, 15° returns to normal")
    func hysteresisBack() {
        for seed in Self.seeds {
            let scenario = Scenarios.hysteresisBack(seed: seed)
            let run = drive(scenario)
            #expect(run.orientations == [.normal, .leftUp, .normal], "seed \(seed): \(run.changes)")
            let back = run.changes.last?.tMs ?? 0
            #expect(back > scenario.mark("at-40") + 5000, "seed \(seed): returned while held at 40°")
            // Not before the device is back within 22.5° of normal.
            let within = scenario.firstTime(from: scenario.mark("at-40")) { $0.theta < 22.5 } ?? .infinity
            #expect(back >= within, "seed \(seed)")
        }
    }

    @Test("lying flat keeps the last orientation")
    func lyingFlat() {
        for seed in Self.seeds {
            let run = drive(Scenarios.lyingFlat(seed: seed))
            #expect(run.orientations == [.leftUp], "seed \(seed): \(run.changes)")
            #expect(run.classifier.tilt == .faceUp)
        }
    }

    @Test("putting the device down while rotated does not rotate it")
    func putDown() {
        for seed in Self.seeds {
            #expect(drive(Scenarios.putDown(seed: seed)).orientations == [.leftUp], "seed \(seed)")
        }
    }

    @Test("picking up from a table commits once, after the flat hold")
    func pickUp() {
        for seed in Self.seeds {
            let scenario = Scenarios.pickUp(seed: seed)
            let run = drive(scenario)
            #expect(run.orientations == [.normal, .leftUp], "seed \(seed): \(run.changes)")
            let unflat = scenario.firstTime(from: scenario.mark("lift-start")) { $0.phi < 80 } ?? 0
            let t = run.changes.last?.tMs ?? 0
            #expect(t - unflat >= 500 && t - unflat <= 900, "seed \(seed): \(t - unflat) ms after leaving flat")
        }
    }

    @Test("tilt limits near flat favour the natural orientation")
    func tiltLimits() {
        for seed in Self.seeds {
            let scenario = Scenarios.tiltLimits(seed: seed)
            let run = drive(scenario)
            // At 72° left-up (limit 65) is refused; once lowered to 40° it commits;
            // at 68° normal (limit 70) is accepted.
            #expect(run.orientations == [.normal, .leftUp, .normal], "seed \(seed): \(run.changes)")
            let turnAt72 = scenario.mark("turn-at-72")
            #expect(run.changes.allSatisfy { $0.tMs < turnAt72 || $0.tMs > turnAt72 + 5400 }, "seed \(seed)")
            #expect((run.changes.last?.tMs ?? 0) > scenario.mark("turn-at-68"))
        }
    }

    @Test("reading overhead in bed does not rotate until the device is raised")
    func overhead() {
        for seed in Self.seeds {
            let scenario = Scenarios.overheadInBed(seed: seed)
            let run = drive(scenario)
            #expect(run.orientations == [.normal, .leftUp], "seed \(seed): \(run.changes)")
            let exit = scenario.mark("exit-latch")
            let t = run.changes.last?.tMs ?? 0
            #expect(t >= exit && t <= exit + 800, "seed \(seed): \(t - exit) ms after the latch released")
        }
    }

    @Test("a short jolt does not rotate")
    func jolt() {
        for seed in Self.seeds {
            #expect(drive(Scenarios.jolt(seed: seed)).orientations == [.normal], "seed \(seed)")
        }
    }

    @Test("a jolt holds off a turn for 500 ms")
    func joltHoldsOff() {
        var scenario = Scenario(start: Pose(theta: 0, phi: 10), seed: 7)
        scenario.hold(1500)
        scenario.move(to: Pose(theta: 90, phi: 10), over: 200)
        scenario.hold(2000)
        scenario.addImpulse(at: 1600, duration: 100, peak: Vector3(0, 0, 2.5 * 9.80665))
        let run = drive(scenario)
        #expect(run.orientations == [.normal, .leftUp])
        #expect((run.changes.last?.tMs ?? 0) >= 1650 + 500)
    }

    @Test("walking with the device in hand does not rotate")
    func walking() {
        for seed in Self.seeds {
            #expect(drive(Scenarios.walking(seed: seed)).orientations == [.normal], "seed \(seed)")
        }
    }

    @Test("shaking does not rotate, and a rest in landscape after it commits after the hold")
    func shaking() {
        for seed in Self.seeds {
            #expect(drive(Scenarios.shaking(seed: seed)).orientations == [.normal], "seed \(seed)")
            let scenario = Scenarios.shaking(restTheta: 90, seed: seed)
            let run = drive(scenario)
            #expect(run.orientations == [.normal, .leftUp], "seed \(seed): \(run.changes)")
            // The 500 ms hold runs from the last reading that looked accelerated; with the
            // device sideways, half the shake's peaks pull |a| towards 0.5 g and stay
            // under the raw gate, so the commit comes ≥ 300 ms after the shake's end.
            let t = run.changes.last?.tMs ?? 0
            #expect(t >= scenario.mark("shake-end") + 300 && t <= scenario.mark("shake-end") + 900, "seed \(seed)")
        }
    }

    @Test("free fall and landing do not rotate")
    func freeFall() {
        for seed in Self.seeds {
            #expect(drive(Scenarios.freeFall(seed: seed)).orientations == [.normal], "seed \(seed)")
        }
    }

    @Test("car-dock vibration does not rotate")
    func carDock() {
        for seed in Self.seeds {
            #expect(drive(Scenarios.carDock(seed: seed)).orientations == [.leftUp], "seed \(seed)")
        }
    }

    @Test("corrupted samples never rotate and leave the filter untouched")
    func corruptedSamples() {
        let scenario = Scenarios.corruptedSamples(seed: 3)
        var clean = Scenario(start: Pose(theta: 0, phi: Scenarios.handTilt), seed: 3)
        clean.hold(4000)
        let dirtySamples = scenario.samples(rateHz: 20), cleanSamples = clean.samples(rateHz: 20)
        #expect(dirtySamples.count == cleanSamples.count + 3)
        var dirty = Classifier(), reference = Classifier()
        var changes = 0
        var index = 0
        for sample in dirtySamples {
            if dirty.process(sample)?.orientationChanged == true { changes += 1 }
            if index < cleanSamples.count, cleanSamples[index] == sample {
                _ = reference.process(sample)
                index += 1
                #expect(dirty.filtered == reference.filtered, "t \(sample.tMs)")
            }
        }
        #expect(changes == 1)
        #expect(dirty.orientation == .normal)
    }

    @Test("a single garbage spike of any kind is dropped", arguments: [
        Vector3(203.7, 266.8, 0), Vector3(0, 0, 0), Vector3(.nan, 0, 0), Vector3(0, .infinity, 0),
        Vector3(-.infinity, 0, 0), Vector3(1e300, 1e300, 1e300), Vector3(0, 0, 45),
    ])
    func garbageDropped(spike: Vector3) {
        var classifier = Classifier()
        for i in 0..<20 { _ = classifier.process(Sample(tMs: Double(i) * 50, vector: panelReading(theta: 90))) }
        let before = classifier.filtered
        #expect(classifier.process(Sample(tMs: 1000, vector: spike)) == nil)
        #expect(classifier.filtered == before)
        #expect(classifier.orientation == .leftUp)
    }

    @Test("a sensor gap re-initialises the filter and the new pose commits promptly")
    func sensorGap() {
        for seed in Self.seeds {
            let scenario = Scenarios.sensorGap(seed: seed)
            let run = drive(scenario)
            #expect(run.orientations == [.normal, .leftUp], "seed \(seed): \(run.changes)")
            let resume = scenario.mark("resume")
            let t = run.changes.last?.tMs ?? 0
            #expect(t >= resume && t <= resume + 600, "seed \(seed): \(t - resume) ms after resume")
        }
    }

    @Test("an on-change sensor that goes silent after a turn still commits")
    func onChangeSilence() {
        for seed in Self.seeds {
            let scenario = Scenarios.brisk90Turn(seed: seed)
            let samples = scenario.samples(rateHz: 20, onChange: true)
            let lastSample = samples.last?.tMs ?? 0
            var config = ClassifierConfig()
            config.onChange = true
            let run = drive(samples, config: config)
            #expect(run.orientations == [.normal, .leftUp], "seed \(seed): \(run.changes)")
            let t = run.changes.last?.tMs ?? 0
            let latency = t - scenario.mark("turn-end")
            #expect(latency >= 0 && latency <= 600, "seed \(seed): \(latency)")
            #expect(t > lastSample || samples.contains { $0.tMs == t }, "seed \(seed)")
            // Silence is not a gap: no deadline is left once the filter has converged.
            #expect(run.classifier.nextDeadline == nil)
        }
    }

    @Test("a silent on-change sensor commits through ticks alone")
    func onChangeTicksAlone() {
        var config = ClassifierConfig()
        config.onChange = true
        // One reading upright, then one at left-up, then silence.
        let samples = [Sample(tMs: 0, vector: panelReading(theta: 0)), Sample(tMs: 1000, vector: panelReading(theta: 90))]
        let run = drive(samples, config: config)
        #expect(run.orientations == [.normal, .leftUp])
        #expect((run.changes.last?.tMs ?? 0) > 1000 && (run.changes.last?.tMs ?? 0) <= 1400)
    }

    @Test("upside-down obeys allow-upside-down")
    func upsideDown() {
        for seed in Self.seeds {
            let scenario = Scenarios.upsideDown(seed: seed)
            let allowed = drive(scenario)
            #expect(allowed.orientations.last == .bottomUp, "seed \(seed)")
            #expect(allowed.laterChanges.count <= 2, "seed \(seed): \(allowed.changes)")
            #expect(allowed.laterChanges.dropLast().allSatisfy { $0.orientation == .leftUp })
            #expect((allowed.changes.last?.tMs ?? .infinity) <= scenario.mark("turn-end") + 1200)
            var config = ClassifierConfig()
            config.allowUpsideDown = false
            let refused = drive(scenario, config: config)
            #expect(!refused.orientations.contains(.bottomUp), "seed \(seed): \(refused.changes)")
        }
    }

    @Test("end over end through face-up ends bottom-up with no landscape event")
    func endOverEnd() {
        for seed in Self.seeds {
            let run = drive(Scenarios.endOverEnd(seed: seed))
            #expect(run.orientations == [.normal, .bottomUp], "seed \(seed): \(run.changes)")
        }
    }

    @Test("the demo trace's handling gives the expected orientation sequence")
    func demo() {
        let run = drive(Scenarios.demo(seed: 1))
        #expect(run.orientations == [.normal, .leftUp, .normal, .rightUp, .normal, .leftUp, .normal, .bottomUp, .normal], "\(run.changes)")
    }
}
