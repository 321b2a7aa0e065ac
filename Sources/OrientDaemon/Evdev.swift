#if canImport(Glibc)
import Glibc
#endif
import CEvdev

/// One event from an evdev device, as libevdev hands it over.
package struct EvdevEvent: Sendable, Equatable, CustomStringConvertible {
    /// `EV_SYN`, `EV_ABS`, `EV_SW`, …
    package var type: UInt16
    /// `SYN_REPORT`, `ABS_X`, `SW_FRONT_PROXIMITY`, …
    package var code: UInt16
    package var value: Int32
    /// The kernel's timestamp: CLOCK_REALTIME unless the clock was changed
    /// with `EvdevDevice.setClock(_:)`.
    package var seconds: Int64
    package var microseconds: Int64

    package init(type: UInt16, code: UInt16, value: Int32, seconds: Int64 = 0, microseconds: Int64 = 0) {
        self.type = type
        self.code = code
        self.value = value
        self.seconds = seconds
        self.microseconds = microseconds
    }

    /// The end of a frame: the events since the last one belong together.
    package var isReport: Bool { type == UInt16(EV_SYN) && code == UInt16(SYN_REPORT) }
    /// The kernel's buffer overflowed. Drop the frame in progress: libevdev's
    /// resync follows this event, then a `SYN_REPORT` (see `EvdevDevice.drain`).
    package var isDropped: Bool { type == UInt16(EV_SYN) && code == UInt16(SYN_DROPPED) }

    package var description: String {
        let typeName = libevdev_event_type_get_name(UInt32(type)).map { String(cString: $0) } ?? "type \(type)"
        let codeName = libevdev_event_code_get_name(UInt32(type), UInt32(code)).map { String(cString: $0) } ?? "code \(code)"
        return "\(typeName) \(codeName) \(value)"
    }
}

/// An absolute axis (EVIOCGABS): the last value and its range. `resolution`
/// is in units per g for an accelerometer's ABS_X/Y/Z (0 when the driver
/// does not say).
package struct EvdevAbsInfo: Sendable, Equatable {
    package var value: Int32
    package var minimum: Int32
    package var maximum: Int32
    package var fuzz: Int32
    package var flat: Int32
    package var resolution: Int32

    package init(value: Int32, minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

/// One input-subsystem device (`/dev/input/eventN`) through libevdev: its
/// identity and capabilities, the state the kernel reported when it was opened
/// (axis values, switch states), kept current by `drain()`, and its events.
///
/// The device node is opened read-only, non-blocking and close-on-exec, never
/// grabbed. Poll `fd` for input (epoll, level-triggered) and call `drain()`.
/// A removed device reads ENODEV; `drain()` also throws ENODEV when the fd
/// hung up (POLLHUP) with nothing to read, which is how a device node backed
/// by something other than evdev (umockdev's pty) shows a removal.
///
/// Owned by one thread (the event loop's); deinit frees libevdev and closes the fd.
package final class EvdevDevice {
    /// The device node, for messages.
    package let path: String
    /// The open device node, to poll for input.
    package let fd: Int32
    private let device: OpaquePointer

    /// Opens `path` and reads its description with libevdev_new_from_fd
    /// (EVIOCGBIT, EVIOCGNAME, EVIOCGID, EVIOCGABS, EVIOCGSW, …). Throws with
    /// the errno of the open or of the ioctl that failed (ENOTTY: not an evdev node).
    package init(path: String) throws(SensorError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw SensorError(message: "\(path): cannot open: \(String(cString: strerror(code)))", code: code)
        }
        var device: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &device)
        guard rc == 0, let device else {
            close(fd)
            let code = rc < 0 ? -rc : EINVAL
            throw SensorError(message: "\(path): not a usable evdev device: \(String(cString: strerror(code)))", code: code)
        }
        self.path = path
        self.fd = fd
        self.device = device
    }

    deinit {
        libevdev_free(device)
        close(fd)
    }

    // MARK: Identity

    /// EVIOCGNAME (`ST LIS3LV02DL Accelerometer`).
    package var name: String { libevdev_get_name(device).map { String(cString: $0) } ?? "" }
    /// EVIOCGPHYS, nil when the device has none.
    package var phys: String? { libevdev_get_phys(device).map { String(cString: $0) } }
    /// EVIOCGUNIQ, nil when the device has none.
    package var uniq: String? { libevdev_get_uniq(device).map { String(cString: $0) } }
    /// EVIOCGID.
    package var id: (bustype: Int32, vendor: Int32, product: Int32, version: Int32) {
        (libevdev_get_id_bustype(device), libevdev_get_id_vendor(device),
         libevdev_get_id_product(device), libevdev_get_id_version(device))
    }

    // MARK: Capabilities and state

    /// Whether the device sends events of `type` (`EV_ABS`, `EV_SW`).
    package func has(type: UInt32) -> Bool { libevdev_has_event_type(device, type) != 0 }

    /// Whether the device sends `type`/`code` (`EV_ABS`/`ABS_X`, `EV_SW`/`SW_FRONT_PROXIMITY`).
    package func has(type: UInt32, code: UInt32) -> Bool { libevdev_has_event_code(device, type, code) != 0 }

    /// Whether the device has the input property (`INPUT_PROP_ACCELEROMETER`).
    package func has(property: UInt32) -> Bool { libevdev_has_property(device, property) != 0 }

    /// The absolute axis `code` (`ABS_X`): its current value (the kernel's at
    /// open, then updated by each event `drain()` read) and range; nil when
    /// the device has no such axis.
    package func absInfo(_ code: UInt32) -> EvdevAbsInfo? {
        guard let info = libevdev_get_abs_info(device, code)?.pointee else { return nil }
        return EvdevAbsInfo(
            value: info.value, minimum: info.minimum, maximum: info.maximum,
            fuzz: info.fuzz, flat: info.flat, resolution: info.resolution)
    }

    /// The current value of `type`/`code` (a switch's 0 or 1, a key, an axis);
    /// nil when the device does not have it.
    package func value(type: UInt32, code: UInt32) -> Int32? {
        var value: Int32 = 0
        guard libevdev_fetch_event_value(device, type, code, &value) != 0 else { return nil }
        return value
    }

    /// The switch `code`'s state (`SW_FRONT_PROXIMITY`: 1 near, 0 far): the
    /// kernel's (EVIOCGSW) at open, then as events change it; nil when absent.
    package func switchValue(_ code: UInt32) -> Int32? { value(type: UInt32(EV_SW), code: code) }

    /// Asks the kernel to timestamp events with `clock` (EVIOCSCLOCKID, e.g.
    /// CLOCK_MONOTONIC). umockdev does not emulate this ioctl (ENOENT).
    package func setClock(_ clock: Int32) throws(SensorError) {
        let rc = libevdev_set_clock_id(device, clock)
        guard rc == 0 else { throw failure("cannot set the event clock", -rc) }
    }

    // MARK: Events

    /// Reads every event pending on `fd` (at most `limit`; the rest stay
    /// readable), in order. Empty when there is nothing (EAGAIN).
    ///
    /// When the kernel's buffer overflowed, the `SYN_DROPPED` event is passed
    /// on and libevdev's resync follows it: the changes between the state it
    /// knew and the kernel's (EVIOCGABS, EVIOCGSW, …), then a `SYN_REPORT`.
    /// A reader that drops the frame in progress at `SYN_DROPPED` and applies
    /// the rest stays right.
    ///
    /// Throws with the errno of a failed read: ENODEV when the device was
    /// removed (also when the fd hung up with nothing left to read).
    package func drain(limit: Int = 4096) throws(SensorError) -> [EvdevEvent] {
        var events: [EvdevEvent] = []
        var event = input_event()
        var flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
        while events.count < limit {
            let rc = libevdev_next_event(device, flags, &event)
            if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue || rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                // In normal mode, SYNC comes with the SYN_DROPPED event: resync next.
                if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue { flags = LIBEVDEV_READ_FLAG_SYNC.rawValue }
                events.append(EvdevEvent(
                    type: event.type, code: event.code, value: event.value,
                    seconds: Int64(orientd_input_event_sec(&event)),
                    microseconds: Int64(orientd_input_event_usec(&event))))
                continue
            }
            if rc == -EAGAIN {
                // The resync is over: back to reading the device.
                if flags == LIBEVDEV_READ_FLAG_SYNC.rawValue {
                    flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
                    continue
                }
                break
            }
            throw failure("read failed", -rc)
        }
        if events.isEmpty, hungUp() {
            throw SensorError(message: "\(path): the device hung up", code: ENODEV)
        }
        return events
    }

    /// The states switch `code` (an `SW_…`) took in the events read now, in
    /// order: each event's, and after a resync (SYN_DROPPED) the kernel's.
    package func drainSwitch(_ code: UInt32) throws(SensorError) -> [Bool] {
        var states: [Bool] = []
        var dropped = false
        for event in try drain() {
            if event.isDropped { dropped = true }
            if event.type == UInt16(EV_SW), event.code == UInt16(code) { states.append(event.value != 0) }
            if event.isReport, dropped {
                // After a resync, the state libevdev holds is the kernel's.
                dropped = false
                states.append((switchValue(code) ?? 0) != 0)
            }
        }
        return states
    }

    /// Whether `fd` polls POLLHUP or POLLERR right now.
    private func hungUp() -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) == 1 else { return false }
        return entry.revents & Int16(POLLHUP | POLLERR) != 0
    }

    private func failure(_ what: String, _ code: Int32) -> SensorError {
        SensorError(message: "\(path): \(what): \(String(cString: strerror(code)))", code: code)
    }
}
