#if canImport(Glibc)
import Glibc
#endif
import CIIO
package import OrientDevices
import OrientSensors
import OrientProtocol

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
    /// An input (evdev) accelerometer rather than an IIO device.
    package var input = false
    /// The Sensor Core's accelerometer (`ssc-accel`), read through libssc.
    package var sensorCore = false
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
    /// Within `batch`: the enumeration the choices are made from.
    private var batchResult: Enumeration?

    /// Both enumerations, as one look at sysfs (`enumerate`).
    package struct Enumeration: Sendable {
        var iio: [UdevIIODevice]
        var sensors: [SensorDevice]
        /// How long the look took, ms.
        var tookMs = 0.0
    }

    /// Enumerates every IIO device and every sensor device (off the loop:
    /// `SensorHub`, with a `Udev` of its own).
    package func enumerate() -> Enumeration {
        let start = MonotonicClock.nowMs()
        var result = Enumeration(iio: enumerateIIO(), sensors: enumerateSensors())
        result.tookMs = MonotonicClock.nowMs() - start
        return result
    }

    /// Runs `body` with `result` standing for every enumeration: a batch of
    /// udev events rescans both accelerometers and every other sensor from
    /// the one look at sysfs made off the loop.
    package func batch(_ result: Enumeration, _ body: () -> Void) {
        batchResult = result
        defer { batchResult = nil }
        body()
    }

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
        batchResult?.iio ?? enumerateIIO()
    }

    private func enumerateIIO() -> [UdevIIODevice] {
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
                if !Udev.isTrigger(sysname: udev_device_get_sysname(device).map { String(cString: $0) } ?? "") {
                    out.append(describe(device))
                }
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
        let attributes = Udev.attributes(of: device, syspath: string(udev_device_get_syspath(device)) ?? "", Udev.attributeNames)
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

    /// Starts a monitor for `iio`, `input` and `platform` events and returns its fd (for the event loop).
    package func startMonitor() throws(SystemError) -> Int32 {
        guard let monitor = udev_monitor_new_from_netlink(udev, "udev") else {
            throw SystemError("udev_monitor_new_from_netlink", code: ENOMEM)
        }
        self.monitor = monitor
        for subsystem in Udev.sensorSubsystems { udev_monitor_filter_add_match_subsystem_devtype(monitor, subsystem, nil) }
        let status = udev_monitor_enable_receiving(monitor)
        guard status >= 0 else { throw SystemError("udev_monitor_enable_receiving", code: -status) }
        let fd = udev_monitor_get_fd(monitor)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// Reads every pending event from the monitor: (action, subsystem, sysname).
    package func receiveEvents() -> [Event] {
        guard let monitor else { return [] }
        var out: [Event] = []
        while let device = udev_monitor_receive_device(monitor) {
            func string(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
            out.append(Event(
                action: Action(rawValue: string(udev_device_get_action(device))) ?? .other,
                subsystem: string(udev_device_get_subsystem(device)), sysname: string(udev_device_get_sysname(device))))
            udev_device_unref(device)
        }
        return out
    }

    /// One hotplug event.
    package struct Event: Sendable, Equatable {
        package var action: Action
        /// `iio`, `input` or `platform`.
        package var subsystem: String
        package var sysname: String
    }

    /// The subsystems sensors live in: IIO devices, evdev nodes (input
    /// accelerometers, proximity switches), platform devices (Apple's SMC,
    /// whose `light` attribute sits on `applesmc.768` itself), and misc
    /// devices that udev tagged for a Qualcomm phone's Sensor Core (the
    /// DSP's `fastrpc-adsp*`, with `IIO_SENSOR_PROXY_TYPE` `ssc-*`).
    package static let sensorSubsystems = ["iio", "input", "platform", "misc"]

    /// The platform devices that can be sensors, by name: Apple's SMC, `applesmc.768`.
    package static let platformSensorPrefix = "applesmc"

    /// Whether a hotplug event can concern a sensor: every IIO, input and
    /// misc event (the Sensor Core's tag is a udev property, which the
    /// enumeration reads), and of the platform's only the SMC's.
    package static func concernsSensors(_ event: Event) -> Bool {
        event.subsystem != "platform" || event.sysname.hasPrefix(platformSensorPrefix)
    }

    /// Whether an IIO device is a trigger (`triggerN`: a `name` and no
    /// channels), which is never a sensor. Every other IIO device, whatever
    /// its name, is judged by its channels and udev's `IIO_SENSOR_PROXY_TYPE`.
    package static func isTrigger(sysname: String) -> Bool {
        sysname.hasPrefix("trigger") && sysname.dropFirst("trigger".count).allSatisfy(\.isNumber)
    }

    /// The values of those of `names` the device has, from one listing of
    /// its directory (`entries`): "" for one whose reading asks the device
    /// (`isReading`), since its existence is all discovery needs (reading a
    /// `_raw` makes a HID sensor hub power the sensor up: seen on the real
    /// driver, where each rescan kept the hub's sensors on for seconds with
    /// nobody listening).
    static func attributes(of device: OpaquePointer, syspath: String, _ names: [String]) -> [String: String] {
        let present = entries(syspath)
        var attributes: [String: String] = [:]
        for name in names where present.contains(name) {
            if isReading(name) {
                attributes[name] = ""
            } else if let value = udev_device_get_sysattr_value(device, name) {
                attributes[name] = String(cString: value)
            }
        }
        return attributes
    }

    /// The names in a device's directory and in its `scan_elements/`
    /// (`scan_elements/in_accel_x_en`): one listing instead of a failed
    /// lookup for each attribute a device does not have.
    static func entries(_ syspath: String) -> Set<String> {
        Set(directoryEntries(syspath) ?? []).union((directoryEntries(syspath + "/scan_elements") ?? []).map { "scan_elements/" + $0 })
    }

    /// Whether reading `name` asks the device: a measurement (`_raw`,
    /// `_input`, the SMC's `light`), or a HID sensor's report interval or
    /// hysteresis (a feature report through the hub, which under a hub's
    /// re-creation waits behind the kernel's probes). Enumeration only notes
    /// that such an attribute exists; a driver reads it when it opens the device.
    static func isReading(_ name: String) -> Bool {
        name.hasSuffix("_raw") || name.hasSuffix("_input") || name == "light"
            || name.hasSuffix("sampling_frequency") || name.hasSuffix("_hysteresis")
    }

    /// udev properties the sensor drivers read.
    static let sensorProperties = [
        "IIO_SENSOR_PROXY_TYPE", "ACCEL_MOUNT_MATRIX", "ACCEL_LOCATION", "PROXIMITY_NEAR_LEVEL",
        "ID_INPUT", "ID_INPUT_ACCELEROMETER", "ID_INPUT_SWITCH",
    ]

    /// sysfs attributes read for the other sensors, per subsystem.
    static let sensorAttributes: [String: [String]] = [
        "iio": {
            var names = ["name", "label", "in_proximity_raw", "in_proximity0_raw", "in_proximity_nearlevel", "in_proximity0_nearlevel",
                "in_proximity_scale", "scan_elements/in_intensity_both_en", "scan_elements/in_intensity_both_type",
                "in_intensity_both_scale", "in_intensity_scale", "in_intensity_both_offset", "in_intensity_offset",
                "scan_elements/in_rot_from_north_magnetic_tilt_comp_en", "scan_elements/in_rot_from_north_magnetic_tilt_comp_type",
                "in_rot_from_north_magnetic_tilt_comp_scale", "in_rot_scale", "in_rot_from_north_magnetic_tilt_comp_offset",
                "in_rot_offset", "in_accel_x_raw", "in_accel_y_raw", "in_accel_z_raw", "scan_elements/in_accel_x_en",
                "scan_elements/in_accel_y_en", "scan_elements/in_accel_z_en"]
            names += LightChannel.attributeNames
            return names
        }(),
        "platform": ["name", "light"],
        "input": [],
        "misc": [],
    ]

    /// Every device of the sensor subsystems that could be a sensor: IIO
    /// devices (not triggers), evdev nodes (`eventN`) and Apple's SMC (a
    /// platform device), with the properties and attributes the drivers
    /// read. An evdev node's attributes are its input device's (`name`,
    /// `capabilities/abs`, `capabilities/sw`).
    package func sensorDevices() -> [SensorDevice] {
        batchResult?.sensors ?? enumerateSensors()
    }

    private func enumerateSensors() -> [SensorDevice] {
        var out: [SensorDevice] = []
        for subsystem in Udev.sensorSubsystems {
            guard let enumerate = udev_enumerate_new(udev) else { continue }
            defer { udev_enumerate_unref(enumerate) }
            udev_enumerate_add_match_subsystem(enumerate, subsystem)
            // Of the many platform devices, only Apple's SMC (matching by
            // attribute would read every platform device's `light`: an SMC
            // read under its mutex at each rescan).
            if subsystem == "platform" { udev_enumerate_add_match_sysname(enumerate, Udev.platformSensorPrefix + "*") }
            // Of the misc devices, only those udev tagged for a driver.
            if subsystem == "misc" { udev_enumerate_add_match_property(enumerate, "IIO_SENSOR_PROXY_TYPE", "*") }
            udev_enumerate_scan_devices(enumerate)
            var entry = udev_enumerate_get_list_entry(enumerate)
            while let current = entry {
                if let syspath = udev_list_entry_get_name(current),
                    let device = udev_device_new_from_syspath(udev, syspath)
                {
                    if let described = describeSensor(device, subsystem: subsystem) { out.append(described) }
                    udev_device_unref(device)
                }
                entry = udev_list_entry_get_next(current)
            }
        }
        return out
    }

    private func describeSensor(_ device: OpaquePointer, subsystem: String) -> SensorDevice? {
        func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        let sysname = string(udev_device_get_sysname(device)) ?? ""
        var attributes: [String: String] = [:]
        switch subsystem {
        case "input":
            // Only the event nodes: libevdev reads those.
            guard sysname.hasPrefix("event"), let parent = udev_device_get_parent_with_subsystem_devtype(device, "input", nil) else { return nil }
            for name in ["name", "capabilities/abs", "capabilities/sw", "capabilities/ev"] {
                if let value = string(udev_device_get_sysattr_value(parent, name)) { attributes[name] = value }
            }
        case "iio":
            guard !Udev.isTrigger(sysname: sysname) else { return nil }
            fallthrough
        default:
            attributes = Udev.attributes(
                of: device, syspath: string(udev_device_get_syspath(device)) ?? "", Udev.sensorAttributes[subsystem] ?? [])
        }
        var properties: [String: String] = [:]
        for key in Udev.sensorProperties {
            if let value = string(udev_device_get_property_value(device, key)) { properties[key] = value }
        }
        var described = SensorDevice(
            subsystem: subsystem, sysname: sysname, syspath: string(udev_device_get_syspath(device)) ?? "",
            devnode: string(udev_device_get_devnode(device)), properties: properties, attributes: attributes)
        var parent = udev_device_get_parent(device)
        while let current = parent {
            if let driver = string(udev_device_get_driver(current)) ?? string(udev_device_get_property_value(current, "DRIVER")) {
                described.driver = driver
                break
            }
            parent = udev_device_get_parent(current)
        }
        return described
    }
}
