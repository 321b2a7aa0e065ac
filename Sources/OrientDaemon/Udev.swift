#if canImport(Glibc)
import Glibc
#endif
import CIIO
package import OrientSense

/// What the daemon needs to know about one IIO device, read through libudev.
package struct UdevIIODevice: Sendable, Equatable {
    package var info: IIODeviceInfo
    /// udev properties the sensor layer uses (ACCEL_MOUNT_MATRIX, ACCEL_LOCATION).
    package var properties: [String: String]
    /// sysfs attributes the sensor layer uses, by file name relative to the device
    /// (`in_accel_scale`, `scan_elements/in_accel_x_type`, …); absent ones are missing.
    package var attributes: [String: String]
    /// The driver and modalias of the nearest parent that has a driver (the
    /// chip's bus device: `mxc4005`, `acpi:MXC4005:MXC4005:`), for `status`.
    package var driver: String? = nil
    package var modalias: String? = nil
}

/// Every libudev call of the daemon: enumerating IIO devices, reading their
/// properties and attributes, and a monitor for add/remove/change events.
///
/// Owned by the event loop's thread.
package final class Udev {
    /// Attributes read for each device (all small text files).
    package static let attributeNames: [String] = {
        var names = ["name", "label", "location", "mount_matrix", "in_accel_mount_matrix", "in_mount_matrix",
            "in_accel_scale", "in_accel_offset", "scale", "offset", "sampling_frequency", "sampling_frequency_available",
            "in_accel_sampling_frequency", "in_accel_sampling_frequency_available", "in_accel_hysteresis"]
        for axis in ["x", "y", "z"] {
            names += ["in_accel_\(axis)_raw", "in_accel_\(axis)_scale", "in_accel_\(axis)_offset",
                "scan_elements/in_accel_\(axis)_en", "scan_elements/in_accel_\(axis)_type", "scan_elements/in_accel_\(axis)_index"]
        }
        names += ["scan_elements/in_timestamp_en", "scan_elements/in_timestamp_type", "scan_elements/in_timestamp_index"]
        return names
    }()

    /// The kind of a hotplug event.
    package enum Action: String, Sendable {
        case add, remove, change, other
    }

    private let udev: OpaquePointer
    private var monitor: OpaquePointer?

    /// Connects to libudev. Fails only when libudev cannot allocate its context.
    package init() throws(SystemError) {
        guard let udev = udev_new() else { throw SystemError("udev_new") }
        self.udev = udev
    }

    deinit {
        if let monitor { udev_monitor_unref(monitor) }
        udev_unref(udev)
    }

    /// Every device of the `iio` subsystem, with the properties and attributes the
    /// sensor layer needs.
    package func iioDevices() -> [UdevIIODevice] {
        guard let enumerate = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(enumerate) }
        udev_enumerate_add_match_subsystem(enumerate, "iio")
        udev_enumerate_scan_devices(enumerate)
        var out: [UdevIIODevice] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            if let syspath = udev_list_entry_get_name(current),
                let device = udev_device_new_from_syspath(udev, syspath)
            {
                out.append(describe(device))
                udev_device_unref(device)
            }
            entry = udev_list_entry_get_next(current)
        }
        return out
    }

    private func describe(_ device: OpaquePointer) -> UdevIIODevice {
        func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        var properties: [String: String] = [:]
        for key in ["ACCEL_MOUNT_MATRIX", "ACCEL_LOCATION"] {
            if let value = string(udev_device_get_property_value(device, key)) { properties[key] = value }
        }
        var attributes: [String: String] = [:]
        for name in Udev.attributeNames {
            if let value = string(udev_device_get_sysattr_value(device, name)) { attributes[name] = value }
        }
        func trimmed(_ key: String) -> String? {
            attributes[key].map { $0.trimmingWhitespace() }
        }
        let axes = ["x", "y", "z"]
        let info = IIODeviceInfo(
            sysname: string(udev_device_get_sysname(device)) ?? "",
            syspath: string(udev_device_get_syspath(device)) ?? "",
            devnode: string(udev_device_get_devnode(device)),
            name: trimmed("name"),
            label: trimmed("label"),
            location: trimmed("location"),
            accelLocation: properties["ACCEL_LOCATION"],
            hasRawAxes: axes.allSatisfy { attributes["in_accel_\($0)_raw"] != nil },
            hasScanElements: axes.allSatisfy { attributes["scan_elements/in_accel_\($0)_en"] != nil })
        var described = UdevIIODevice(info: info, properties: properties, attributes: attributes)
        // The IIO device has no driver of its own: the chip's device above it does.
        var parent = udev_device_get_parent(device)
        while let current = parent {
            if let driver = string(udev_device_get_driver(current)) ?? string(udev_device_get_property_value(current, "DRIVER")) {
                described.driver = driver
                described.modalias = string(udev_device_get_property_value(current, "MODALIAS"))
                    ?? string(udev_device_get_sysattr_value(current, "modalias")).map { $0.trimmingWhitespace() }
                break
            }
            parent = udev_device_get_parent(current)
        }
        return described
    }

    /// Starts a monitor for `iio` events and returns its fd (for the event loop).
    package func startMonitor() throws(SystemError) -> Int32 {
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            throw SystemError("udev_monitor_new_from_netlink", code: ENOMEM)
        }
        self.monitor = monitor
        udev_monitor_filter_add_match_subsystem_devtype(monitor, "iio", nil)
        let status = udev_monitor_enable_receiving(monitor)
        guard status >= 0 else { throw SystemError("udev_monitor_enable_receiving", code: -status) }
        let fd = udev_monitor_get_fd(monitor)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// Reads every pending event from the monitor: (action, sysname) pairs.
    package func receiveEvents() -> [(action: Action, sysname: String)] {
        guard let monitor else { return [] }
        var out: [(action: Action, sysname: String)] = []
        while let device = udev_monitor_receive_device(monitor) {
            let action = udev_device_get_action(device).map { String(cString: $0) } ?? ""
            let sysname = udev_device_get_sysname(device).map { String(cString: $0) } ?? ""
            out.append((Action(rawValue: action) ?? .other, sysname))
            udev_device_unref(device)
        }
        return out
    }
}
