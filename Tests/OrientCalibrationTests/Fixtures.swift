import Foundation
import OrientCalibration
import OrientProtocol

let g = 9.80665

/// Every distinct `ACCEL_MOUNT_MATRIX` in systemd's hwdb, read from the installed
/// udev package (not copied into the repository), as the daemon parses them.
enum SystemHwdb {
    static let path = "/lib/udev/hwdb.d/60-sensor.hwdb"

    static let matrices: [MountMatrix] = {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var seen = Set<MountMatrix>()
        var out: [MountMatrix] = []
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("#"), let range = trimmed.range(of: "ACCEL_MOUNT_MATRIX=") else { continue }
            guard let matrix = try? MountMatrix(parsing: trimmed[range.upperBound...].trimmingCharacters(in: .whitespaces))
            else { continue }
            if seen.insert(matrix).inserted { out.append(matrix) }
        }
        return out
    }()
}

/// What a sensor mounted per `matrix` reads when the panel reads `panel`:
/// M⁻¹ · panel (the z row as the daemon uses it, repaired if it was degenerate).
func sensorReading(panel: Vector3, matrix: MountMatrix) -> Vector3 {
    guard let inverse = Matrix3(matrix).inverse else { return .zero }
    return inverse.apply(panel)
}

/// The rest readings of the three poses for a sensor mounted per `matrix`.
func poseReadings(_ matrix: MountMatrix) -> (upright: Vector3, leftUp: Vector3, faceUp: Vector3) {
    (sensorReading(panel: Vector3(0, -g, 0), matrix: matrix), sensorReading(panel: Vector3(g, 0, 0), matrix: matrix),
        sensorReading(panel: Vector3(0, 0, g), matrix: matrix))
}

/// `vector` turned by `degrees` about `axis` (Rodrigues).
func rotated(_ vector: Vector3, about axis: Vector3, degrees: Double) -> Vector3 {
    let k = axis / (axis * axis).sum().squareRoot()
    let t = degrees * .pi / 180
    let kxv = Vector3(k.y * vector.z - k.z * vector.y, k.z * vector.x - k.x * vector.z, k.x * vector.y - k.y * vector.x)
    return vector * cos(t) + kxv * sin(t) + k * ((k * vector).sum() * (1 - cos(t)))
}

/// `count` samples `intervalMs` apart starting at `startMs`, each `vector` plus
/// seeded Gaussian noise of `noise` m/s² per axis.
func samples(_ vector: Vector3, count: Int, startMs: Double = 0, intervalMs: Double = 50, noise: Double = 0, seed: UInt64 = 1)
    -> [Sample]
{
    var state = seed
    func uniform() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return (Double(state >> 11) + 0.5) / Double(1 << 53)
    }
    func gaussian() -> Double { (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform()) }
    return (0..<count).map { i in
        Sample(tMs: startMs + Double(i) * intervalMs, vector: vector + Vector3(gaussian(), gaussian(), gaussian()) * noise)
    }
}
