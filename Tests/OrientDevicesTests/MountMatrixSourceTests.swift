import Testing

@testable import OrientDevices
import OrientProtocol

/// The texts found on a device, nil where a source is absent.
struct MountMatrixTexts: Sendable {
    var config: String? = nil
    var udev: String? = nil
    var mountMatrix: String? = nil
    var inAccelMountMatrix: String? = nil
    var inMountMatrix: String? = nil

    func resolve() throws -> (matrix: MountMatrix, source: MountMatrixSource, warnings: [String]) {
        MountMatrixSource.resolve(
            config: try config.map { try MountMatrix(parsing: $0) }, udev: udev, mountMatrix: mountMatrix,
            inAccelMountMatrix: inAccelMountMatrix, inMountMatrix: inMountMatrix)
    }
}

private let swapXY = "0, 1, 0; 1, 0, 0; 0, 0, -1"
private let negateXY = "-1, 0, 0; 0, -1, 0; 0, 0, 1"
private let rotate = "0, -1, 0; 1, 0, 0; 0, 0, 1"
private let tilt = "1, 0, 0; 0, 0, -1; 0, 1, 0"
private let mirror = "0, 1, 0; -1, 0, 0; 0, 0, 1"

@Suite("Mount matrix source")
struct MountMatrixSourceTests {
    @Test(
        "the first source present wins, in the order docs/behaviour.md gives",
        arguments: [
            (MountMatrixTexts(config: swapXY, udev: negateXY, mountMatrix: rotate, inAccelMountMatrix: tilt, inMountMatrix: mirror),
             MountMatrixSource.config, swapXY),
            (MountMatrixTexts(udev: negateXY, mountMatrix: rotate, inAccelMountMatrix: tilt, inMountMatrix: mirror), .udev, negateXY),
            (MountMatrixTexts(mountMatrix: rotate, inAccelMountMatrix: tilt, inMountMatrix: mirror), .mountMatrix, rotate),
            (MountMatrixTexts(inAccelMountMatrix: tilt, inMountMatrix: mirror), .inAccelMountMatrix, tilt),
            (MountMatrixTexts(inMountMatrix: mirror), .inMountMatrix, mirror),
            (MountMatrixTexts(), .identity, "1, 0, 0; 0, 1, 0; 0, 0, 1"),
            (MountMatrixTexts(config: rotate, inMountMatrix: mirror), .config, rotate),
            (MountMatrixTexts(udev: rotate, inMountMatrix: mirror), .udev, rotate),
        ])
    func precedence(sources: MountMatrixTexts, source: MountMatrixSource, matrix: String) throws {
        let resolved = try sources.resolve()
        #expect(resolved.source == source)
        let expected = try MountMatrix(parsing: matrix)
        #expect(resolved.matrix == expected)
        #expect(resolved.warnings.isEmpty)
    }

    @Test("udev ACCEL_MOUNT_MATRIX (hwdb) overrides the kernel's in_mount_matrix")
    func udevOverridesKernel() throws {
        let resolved = MountMatrixSource.resolve(
            config: nil, udev: "0, -1, 0; -1, 0, 0; 0, 0, 1", mountMatrix: nil, inAccelMountMatrix: nil,
            inMountMatrix: "1, 0, 0; 0, 1, 0; 0, 0, 1\n")
        #expect(resolved.source == .udev)
        #expect(resolved.matrix.apply(Vector3(1, 2, 3)) == Vector3(-2, -1, 3))
    }

    @Test(
        "a broken source is passed over with a warning naming it and the error",
        arguments: [
            (MountMatrixTexts(udev: "0, 1, 0; 1, 0, 0", inMountMatrix: rotate), MountMatrixSource.inMountMatrix,
             "ignoring udev ACCEL_MOUNT_MATRIX '0, 1, 0; 1, 0, 0': column 17: a mount matrix has 9 values"),
            (MountMatrixTexts(udev: "1, 0, 0; 0, 0, 0; 0, 0, 1", mountMatrix: rotate), .mountMatrix,
             "ignoring udev ACCEL_MOUNT_MATRIX '1, 0, 0; 0, 0, 0; 0, 0, 1': column 10: mount matrix row 2 is all zeros"),
            (MountMatrixTexts(mountMatrix: "0,5, 0, 0; 0, 1, 0; 0, 0, 1\n", inAccelMountMatrix: tilt), .inAccelMountMatrix,
             "ignoring sysfs mount_matrix '0,5, 0, 0; 0, 1, 0; 0, 0, 1': column 7: a mount matrix row has 3 values; expected ';' here"),
            (MountMatrixTexts(inAccelMountMatrix: "x", inMountMatrix: mirror), .inMountMatrix,
             "ignoring sysfs in_accel_mount_matrix 'x': column 1: 'x' is not a decimal number"),
            (MountMatrixTexts(inMountMatrix: "0, 0, 0; 0, 0, 0; 0, 0, 0\n"), .identity,
             "ignoring sysfs in_mount_matrix '0, 0, 0; 0, 0, 0; 0, 0, 0': column 1: mount matrix row 1 is all zeros"),
        ])
    func brokenFallsThrough(sources: MountMatrixTexts, source: MountMatrixSource, warning: String) throws {
        let resolved = try sources.resolve()
        #expect(resolved.source == source)
        #expect(resolved.warnings.count == 1)
        #expect(resolved.warnings.first?.hasPrefix(warning) == true, "\(resolved.warnings)")
    }

    @Test("every broken source gets its own warning, in order, before the one that parses")
    func severalBroken() {
        let resolved = MountMatrixSource.resolve(
            config: nil, udev: "junk", mountMatrix: "1, 0, 0; 0, 1, 0", inAccelMountMatrix: "0, 0, 0; 0, 1, 0; 0, 0, 1",
            inMountMatrix: "0, -1, 0; 1, 0, 0; 0, 0, 1\n")
        #expect(resolved.source == .inMountMatrix)
        let prefixes = [
            "ignoring udev ACCEL_MOUNT_MATRIX 'junk': column 1:", "ignoring sysfs mount_matrix '1, 0, 0; 0, 1, 0': column 17:",
            "ignoring sysfs in_accel_mount_matrix '0, 0, 0; 0, 1, 0; 0, 0, 1': column 1:",
        ]
        #expect(resolved.warnings.count == prefixes.count)
        for (warning, prefix) in zip(resolved.warnings, prefixes) {
            #expect(warning.hasPrefix(prefix), "\(warning)")
        }
    }

    @Test(
        "sysfs newlines and trailing whitespace are ignored",
        arguments: ["0, -1, 0; 1, 0, 0; 0, 0, 1\n", "0, -1, 0; 1, 0, 0; 0, 0, 1\r\n", "0, -1, 0; 1, 0, 0; 0, 0, 1 \n",
            " 0, -1, 0; 1, 0, 0; 0, 0, 1\n"])
    func trailingNewline(text: String) throws {
        let resolved = MountMatrixSource.resolve(
            config: nil, udev: nil, mountMatrix: text, inAccelMountMatrix: nil, inMountMatrix: nil)
        let expected = try MountMatrix(parsing: rotate)
        #expect(resolved.source == .mountMatrix)
        #expect(resolved.matrix == expected)
        #expect(resolved.warnings.isEmpty)
    }

    @Test("an empty source means the identity from that source, as in iio-sensor-proxy", arguments: ["", "\n", "  "])
    func emptyMeansIdentity(text: String) {
        let resolved = MountMatrixSource.resolve(
            config: nil, udev: text, mountMatrix: rotate, inAccelMountMatrix: nil, inMountMatrix: nil)
        #expect(resolved.source == .udev)
        #expect(resolved.matrix.isIdentity)
        #expect(resolved.warnings.isEmpty)
    }

    @Test("the chosen matrix's repair warnings are passed on, naming its source")
    func repairWarnings() throws {
        let singular = "1, 0, 0; 0, -1, 0; 1, 0, 0"  // a real hwdb entry with a stray z row
        let resolved = MountMatrixSource.resolve(
            config: nil, udev: singular, mountMatrix: nil, inAccelMountMatrix: nil, inMountMatrix: nil)
        #expect(resolved.source == .udev)
        #expect(resolved.warnings.count == 1)
        #expect(resolved.warnings.first?.hasPrefix("udev ACCEL_MOUNT_MATRIX: mount matrix row 3") == true)
        let fromConfig = MountMatrixSource.resolve(
            config: try MountMatrix(parsing: singular), udev: nil, mountMatrix: nil, inAccelMountMatrix: nil, inMountMatrix: nil)
        #expect(fromConfig.warnings.first?.hasPrefix("config mount_matrix: mount matrix row 3") == true)
    }

    @Test("raw values name the udev property and sysfs attributes")
    func rawValues() {
        #expect(MountMatrixSource.allCases.map(\.rawValue) == [
            "config", "ACCEL_MOUNT_MATRIX", "mount_matrix", "in_accel_mount_matrix", "in_mount_matrix", "identity",
        ])
        #expect(MountMatrixSource.inAccelMountMatrix.description == "sysfs in_accel_mount_matrix")
    }
}
