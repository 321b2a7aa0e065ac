import OrientProtocol
import OrientSense

/// The hinge angle's tablet mode from two accelerometers: the latest display
/// and base readings (panel frames, the display's with its learned g), paired
/// as each arrives, and the base's low-pass for its polled rate.
struct HingePairing {
    private(set) var detector: HingeModeDetector
    private var lid: Vector3?
    private var base: Vector3?
    private var baseFiltered: Vector3?

    /// Nothing read yet, the mode unknown.
    init(config: HingeConfig) {
        detector = HingeModeDetector(config: config)
    }

    var mode: TabletMode { detector.mode }
    var angle: Double? { detector.angle }
    var config: HingeConfig { detector.config }

    /// A display reading: whether the mode changed.
    mutating func lidReading(_ reading: Vector3, atMs t: Double) -> Bool {
        lid = reading
        guard let base else { return false }
        return update(atMs: t, lid: reading, base: base)
    }

    /// A base reading: whether the mode changed.
    mutating func baseReading(_ reading: Vector3, atMs t: Double) -> Bool {
        base = reading
        guard let lid else { return false }
        return update(atMs: t, lid: lid, base: reading)
    }

    /// The base's reading low-passed (half of each step), so that its polled
    /// path slows down at rest as the display's does.
    mutating func filterBase(_ reading: Vector3) -> Vector3 {
        let filtered = baseFiltered.map { $0 + (reading - $0) * 0.5 } ?? reading
        baseFiltered = filtered
        return filtered
    }

    private mutating func update(atMs t: Double, lid: Vector3, base: Vector3) -> Bool {
        let before = detector.mode
        return detector.update(tMs: t, lid: lid, base: base) != before
    }
}
