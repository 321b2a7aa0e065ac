import Foundation
import Testing

@testable import OrientSense
import OrientProtocol

/// Every distinct `ACCEL_MOUNT_MATRIX` in systemd's hwdb, read from the installed
/// Debian `udev` package (not copied into the repository).
enum HWDB {
    static let path = "/lib/udev/hwdb.d/60-sensor.hwdb"

    static let matrices: [String] = {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var seen = Set<String>()
        var out: [String] = []
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("#"), let range = trimmed.range(of: "ACCEL_MOUNT_MATRIX=") else { continue }
            let value = String(trimmed[range.upperBound...])
            if seen.insert(value).inserted { out.append(value) }
        }
        return out
    }()
}

/// The panel-frame reading of a device held at in-plane angle θ and tilt φ (SPEC §3).
func panelReading(theta: Double, phi: Double = 0) -> Vector3 {
    let g = 9.80665
    let t = theta * .pi / 180, p = phi * .pi / 180
    return Vector3(g * sin(t) * cos(p), -g * cos(t) * cos(p), g * sin(p))
}

/// A sensor-frame vector whose x and y rows under `matrix` give `panel`'s x and y,
/// built from the x and y rows only (so a stray z row cannot influence it).
func sensorVector(for panel: Vector3, rows r0: Vector3, _ r1: Vector3) -> Vector3 {
    // r = α r0 + β r1 with r0·r = panel.x, r1·r = panel.y (solve the 2×2 Gram system).
    let a = (r0 * r0).sum(), b = (r0 * r1).sum(), d = (r1 * r1).sum()
    let det = a * d - b * b
    let alpha = (panel.x * d - panel.y * b) / det
    let beta = (panel.y * a - panel.x * b) / det
    return r0 * alpha + r1 * beta
}

@Suite("Mount matrix")
struct MountMatrixTests {
    @Test(
        "parses every spelling found in the wild",
        arguments: [
            ("0, 1, 0; 1, 0, 0; 0, 0, 1", [0.0, 1, 0, 1, 0, 0, 0, 0, 1]),
            ("0,1,0;-1,0,0;-1,0,0", [0.0, 1, 0, -1, 0, 0, 0, 0, 1]),  // z row rebuilt: x × y
            ("-0, -1, 0; 0, 0, -1; 1, 0, 0", [0.0, -1, 0, 0, 0, -1, 1, 0, 0]),
            ("0, -1, 0;1, 0, 0;0, 0, 1", [0.0, -1, 0, 1, 0, 0, 0, 0, 1]),
            ("0, -1, 0; 1, 0, 0; 0, 0, -1 ", [0.0, -1, 0, 1, 0, 0, 0, 0, -1]),
            ("-1, 0, 0; 0,-1, 0; 0, 0, 1", [-1.0, 0, 0, 0, -1, 0, 0, 0, 1]),
            ("\t1.0, 0.0, 0.0 ;0.0, 1.0, 0.0; 0.0, 0.0, 1.0", [1.0, 0, 0, 0, 1, 0, 0, 0, 1]),
            ("0.5, 0, 0; 0, 0.5, 0; 0, 0, 0.5", [0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5]),
            ("+1, -0.0, 0; 0, 1e0, 0; 0, 0, 1", [1.0, 0, 0, 0, 1, 0, 0, 0, 1]),
        ])
    func parsesSpellings(text: String, expected: [Double]) throws {
        let m = try MountMatrix(parsing: text)
        let values = [m.rows.0, m.rows.1, m.rows.2].flatMap { [$0.x, $0.y, $0.z] }
        #expect(values == expected)
    }

    @Test(
        "rejects malformed matrices naming the column",
        arguments: [
            ("", 1, "expected a number"),
            ("1, 0, 0; 0, 1, 0", 17, "9 values"),
            ("1, 0, 0; 0, 1, 0; 0, 0, 1; 1", 26, "3 rows"),
            ("1, 0; 0, 1, 0; 0, 0, 1", 5, "this row has 2"),
            ("1, 0, 0, 0; 0, 1, 0; 0, 0, 1", 8, "expected ';'"),
            ("1, x, 0; 0, 1, 0; 0, 0, 1", 4, "'x' is not a decimal number"),
            ("1,,0; 0, 1, 0; 0, 0, 1", 3, "expected a number"),
            ("1, 0, 0; 0, 1, 0; 0, 0, 1;", 26, "3 rows"),
            ("1, 0, 0; 0, 1, 0; 0, 0, 1,", 26, "expected ';'"),
            ("1 0 0; 0 1 0; 0 0 1", 3, "expected ',' or ';'"),
            ("1, 0, 0; 0, 0, 0; 0, 0, 1", 10, "row 2 is all zeros"),
            ("0, 0, 0; 0, 1, 0; 0, 0, 1", 1, "row 1 is all zeros"),
            ("1, 0, 0; 0, 1, 0; -0, 0, 0", 19, "row 3 is all zeros"),
            ("1, 0, 0; 2, 0, 0; 0, 0, 1", 10, "parallel"),
            ("1e999, 0, 0; 0, 1, 0; 0, 0, 1", 1, "not a decimal number"),
            ("0x1, 0, 0; 0, 1, 0; 0, 0, 1", 1, "not a decimal number"),
            ("nan, 0, 0; 0, 1, 0; 0, 0, 1", 1, "not a decimal number"),
            ("1,5, 0, 0; 0, 1, 0; 0, 0, 1", 7, "expected ';'"),
        ])
    func rejectsMalformed(text: String, column: Int, message: String) {
        #expect {
            _ = try MountMatrix(parsing: text)
        } throws: { error in
            guard let error = error as? MountMatrixError else { return false }
            return error.column == column && error.message.contains(message)
        }
    }

    @Test("refuses oversized input without parsing it")
    func oversized() {
        let text = String(repeating: "1, ", count: 1000)
        #expect(throws: MountMatrixError.self) { try MountMatrix(parsing: text) }
    }

    @Test("applies rows to a vector")
    func applies() throws {
        let m = try MountMatrix(parsing: "0, -1, 0; -1, 0, 0; 0, 0, 1")
        #expect(m.apply(Vector3(1, 2, 3)) == Vector3(-2, -1, 3))
        #expect(MountMatrix.identity.apply(Vector3(1, 2, 3)) == Vector3(1, 2, 3))
    }

    @Test("reproduces iio-sensor-proxy's device fixtures through the matrix")
    func iioSensorProxyFixtures() throws {
        let m = try MountMatrix(parsing: "0, -1, 0; -1, 0, 0; 0, 0, 1")
        // These fixtures decide the x/y mapping only: iio-sensor-proxy ignores the z
        // sign, and the Winbook readings are tilted 41° towards face-down under the
        // hwdb z convention (the overhead latch), so those run with the z sign flipped.
        var flipped = ClassifierConfig()
        flipped.zSign = -1
        let cases: [(Vector3, Double, ClassifierConfig, Orientation)] = [
            (Vector3(523, 13, 5), 0.019163, ClassifierConfig(), .normal),
            (Vector3(8, 521, -67), 0.019163, ClassifierConfig(), .rightUp),
            (Vector3(24, 0, -21), 0.306457, flipped, .normal),
            (Vector3(15, -25, -14), 0.306457, flipped, .leftUp),  // at startup (nothing committed yet)
        ]
        for (raw, scale, config, expected) in cases {
            #expect(classifyHeld(m.apply(raw * scale), config: config) == expected, "raw \(raw)")
        }
    }

    @Test("a singular matrix with a stray z row is repaired with a warning")
    func singularRepaired() throws {
        let m = try MountMatrix(parsing: "1, 0, 0; 0, -1, 0; 1, 0, 0")
        #expect(m.rows.2 == Vector3(0, 0, -1))
        #expect(m.warnings.count == 1)
        #expect(m.warnings.first?.contains("row 3") == true)
        #expect(try MountMatrix(parsing: "1, 0, 0; 0, -1, 0; 0, 0, 1").warnings.isEmpty)
    }

    @Test("a non-orthonormal matrix keeps the raw vector's magnitude")
    func magnitudeFromRaw() throws {
        let m = try MountMatrix(parsing: "0.5, 0, 0; 0, 0.5, 0; 0, 0, 0.5")
        let out = m.apply(Vector3(0, -9.8, 0))
        #expect(abs(length(out) - 9.8) < 1e-9)
        #expect(abs(out.y + 9.8) < 1e-9)
    }

    @Test("the installed hwdb holds matrices to test against")
    func hwdbPresent() {
        #expect(HWDB.matrices.count >= 20, "install Debian's udev package for \(HWDB.path)")
    }

    @Test("every hwdb matrix classifies all four upright orientations", arguments: HWDB.matrices)
    func hwdbMatrices(text: String) throws {
        let m = try MountMatrix(parsing: text)
        for orientation in Orientation.cardinal {
            let theta = Double(orientation.quarterTurns ?? 0) * 90
            let panel = panelReading(theta: theta)
            let raw = sensorVector(for: panel, rows: m.rows.0, m.rows.1)
            let applied = m.apply(raw)
            #expect(abs(length(applied) - 9.80665) < 1e-6, "\(text) \(orientation)")
            #expect(classifyHeld(applied) == orientation, "\(text) \(orientation): panel \(applied)")
        }
    }

    @Test("every invertible hwdb matrix classifies orientations held at a tilt", arguments: HWDB.matrices)
    func hwdbTilted(text: String) throws {
        let m = try MountMatrix(parsing: text)
        guard m.warnings.isEmpty else { return }  // singular: covered upright above
        let rows = [m.rows.0, m.rows.1, m.rows.2]
        for orientation in Orientation.cardinal {
            let panel = panelReading(theta: Double(orientation.quarterTurns ?? 0) * 90, phi: 30)
            // Every hwdb matrix is a signed permutation: its inverse is its transpose.
            let raw = rows[0] * panel.x + rows[1] * panel.y + rows[2] * panel.z
            #expect(m.apply(raw) == panel)
            #expect(classifyHeld(m.apply(raw)) == orientation, "\(text) \(orientation)")
        }
    }
}

/// Feeds `vector` (panel frame) for two seconds at 20 Hz to a fresh classifier.
func classifyHeld(_ vector: Vector3, config: ClassifierConfig = ClassifierConfig()) -> Orientation {
    var classifier = Classifier(config: config)
    for i in 0..<40 { _ = classifier.process(Sample(tMs: Double(i) * 50, vector: vector)) }
    return classifier.orientation
}
