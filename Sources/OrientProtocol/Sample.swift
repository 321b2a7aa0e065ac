/// One accelerometer reading: a time on the sensor's monotonic clock and the
/// acceleration in m/s².
///
/// Whether the vector is in the sensor frame or the panel frame (after the mount
/// matrix) depends on where it is: traces store the sensor frame; the classifier
/// takes the panel frame.
public struct Sample: Sendable, Hashable {
    /// Milliseconds on a monotonic clock (trace time in mock mode).
    public var tMs: Double
    /// Acceleration in m/s².
    public var vector: Vector3

    /// A reading at `tMs` milliseconds of `vector` in m/s².
    public init(tMs: Double, vector: Vector3) {
        self.tMs = tMs
        self.vector = vector
    }

    /// A reading at `tMs` milliseconds of (`x`, `y`, `z`) in m/s².
    public init(tMs: Double, x: Double, y: Double, z: Double) {
        self.init(tMs: tMs, vector: Vector3(x, y, z))
    }
}
