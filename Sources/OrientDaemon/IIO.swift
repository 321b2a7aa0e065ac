#if canImport(Glibc)
import Glibc
#endif
package import OrientProtocol

/// A failure talking to the sensor, with errno to tell a vanished device
/// (ENODEV, ENOENT) from a transient error.
package struct SensorError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var code: Int32
    /// The device is gone (removed mid-read): wait for udev to bring it back.
    package var vanished: Bool { code == ENODEV || code == ENOENT || code == ENXIO }
    package var description: String { message }
}

/// One accelerometer: its `sampling_frequency` set, and (when asked) a
/// buffer of scans (`BufferedCapture`); the polled path reads its raw
/// attributes on a thread of its own (`RawAttributes`, `Poller`).
///
/// Both paths read and write sysfs themselves, without libiio: buffered
/// capture sets up the scan elements and reads `/dev/iio:deviceN`
/// (IIOBuffer.swift). libiio would bring libxml2, ICU, avahi, D-Bus,
/// libsystemd and libusb with it (docs/architecture.md, Memory, has the figure).
///
/// Owned by the event loop's thread. Stopping the buffer closes the device
/// node, so an idle daemon holds nothing open.
package final class IIOAccelerometer {
    /// The device id (`iio:device0`).
    package let sysname: String
    /// The device's sysfs directory.
    package let directory: String
    private var capture: BufferedCapture?

    /// Opens the accelerometer `sysname` (`iio:deviceN`): checks that its x, y
    /// and z channels exist (as raw attributes or scan elements).
    package init(sysname: String) throws(SensorError) {
        self.sysname = sysname
        directory = "/sys/bus/iio/devices/\(sysname)"
        guard access(directory, F_OK) == 0 else {
            throw SensorError(message: "\(sysname): no such IIO device (\(String(cString: strerror(errno))))", code: ENODEV)
        }
        for axis in IIOAccelerometer.axisNames {
            guard access("\(directory)/in_accel_\(axis)_raw", F_OK) == 0
                || access("\(directory)/scan_elements/in_accel_\(axis)_en", F_OK) == 0
            else {
                throw SensorError(message: "\(sysname) has no accel_\(axis) channel", code: ENODEV)
            }
        }
    }

    deinit {
        stopBuffer()
    }

    private static let axisNames = ["x", "y", "z"]

    /// Writes `text` to a sysfs attribute of the device in one write(2); false
    /// when it does not exist or refuses the value. (O_TRUNC, as libiio's
    /// fopen "w": sysfs ignores it, but a plain file standing in for the
    /// attribute, as under umockdev, would otherwise keep its old tail.)
    private func writeAttribute(_ name: String, _ text: String) -> Bool {
        let fd = open("\(directory)/\(name)", O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return writeAll(fd: fd, Array(text.utf8))
    }

    /// A sysfs attribute of the device as text (at most 4 KiB), nil when it
    /// does not exist or cannot be read.
    package func readAttribute(_ name: String) -> String? {
        (try? readFile("\(directory)/\(name)", limit: 4096)).map { String(decoding: $0, as: UTF8.self) }
    }

    private func hasAttribute(_ name: String) -> Bool {
        access("\(directory)/\(name)", F_OK) == 0
    }

    /// Writes the sampling frequency (`sampling_frequency`, else
    /// `in_accel_sampling_frequency`, else `in_accel_x_sampling_frequency`);
    /// returns false when none exists or takes it.
    @discardableResult
    package func setSamplingFrequency(_ hz: Double) -> Bool {
        let text = formatFrequency(hz)
        for name in ["sampling_frequency", "in_accel_sampling_frequency", "in_accel_x_sampling_frequency"]
        where hasAttribute(name) {
            return writeAttribute(name, text)
        }
        return false
    }

    /// Writes 0 to `in_accel_hysteresis` (or `in_accel_x_hysteresis`) so an
    /// on-change sensor reports every change; returns false when it has none or refuses.
    @discardableResult
    package func clearHysteresis() -> Bool {
        for name in ["in_accel_hysteresis", "in_accel_x_hysteresis"] where hasAttribute(name) {
            return writeAttribute(name, "0")
        }
        return false
    }

    // MARK: Buffered capture

    /// Enables the x, y, z scan elements (and the timestamp when there is
    /// one), starts the buffer and returns the device node's poll fd; reads
    /// take up to `samples` scans at a time (`BufferedCapture`).
    package func startBuffer(samples: Int) throws(SensorError) -> Int32 {
        stopBuffer()
        let capture = try BufferedCapture(sysname: sysname, samples: samples)
        self.capture = capture
        return capture.pollFD
    }

    /// Reads what the buffer holds: one (timestamp ns or nil, raw x/y/z) per scan.
    /// Returns an empty array when nothing is ready (EAGAIN).
    package func readBuffer() throws(SensorError) -> [(timestampNs: Int64?, raw: Vector3)] {
        try capture?.read() ?? []
    }

    /// Stops the buffer (disables capture and the elements it enabled) and closes the node.
    package func stopBuffer() {
        capture = nil
    }
}

/// A frequency for sysfs: integers bare, otherwise up to six decimals.
func formatFrequency(_ hz: Double) -> String {
    if hz.rounded() == hz, abs(hz) < 1e9 { return String(Int(hz)) }
    var text = String(Int((hz * 1_000_000).rounded()))
    while text.count < 7 { text = "0" + text }
    let cut = text.index(text.endIndex, offsetBy: -6)
    var result = text[..<cut] + "." + text[cut...]
    while result.hasSuffix("0") { result.removeLast() }
    return String(result)
}
