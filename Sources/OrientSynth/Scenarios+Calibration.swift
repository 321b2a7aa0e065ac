extension Scenarios {
    /// The three poses `orientctl calibrate` asks for, as a person does them:
    /// held upright (leaning back 5°) for 2 s, turned left edge up over 600 ms
    /// and held 2 s, then laid flat face up over 1 s and left 2 s. Marks
    /// `upright`, `left-up` and `face-up` where each rest starts.
    public static func calibrationPoses(seed: UInt64 = 1) -> Scenario {
        var s = Scenario(start: Pose(theta: 0, phi: 5), seed: seed)
        s.summary = "the calibration poses: upright, left edge up, lying face up, 2 s each"
        s.mark("upright")
        s.hold(2000)
        s.move(to: Pose(theta: 90, phi: 5), over: 600)
        s.mark("left-up")
        s.hold(2000)
        s.move(to: Pose(theta: 90, phi: 90), over: 1000)
        s.mark("face-up")
        s.hold(2000)
        return s
    }
}
