#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import OrientSense

/// orientd's own tablet-mode switch: a uinput device made through libevdev
/// with one event code, `EV_SW SW_TABLET_MODE` (and the `EV_SYN` every
/// device has), named ``PublishedTabletSwitch/name``, on the virtual bus.
/// It can send nothing else: the kernel refuses events the device did not
/// declare. Removed when this object goes (libevdev closes /dev/uinput).
final class UInputTabletSwitch: TabletSwitchDevice {
    private let device: OpaquePointer
    let node: String?

    /// Makes the device, or says why not (no /dev/uinput, no permission).
    init() throws(TabletSwitchError) {
        guard let description = libevdev_new() else { throw TabletSwitchError("libevdev_new failed") }
        defer { libevdev_free(description) }
        libevdev_set_name(description, PublishedTabletSwitch.name)
        libevdev_set_id_bustype(description, Int32(BUS_VIRTUAL))
        libevdev_enable_event_code(description, UInt32(EV_SW), UInt32(SW_TABLET_MODE), nil)
        var made: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(description, LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue, &made)
        guard rc == 0, let made else {
            throw TabletSwitchError("cannot create a uinput device through /dev/uinput: \(String(cString: strerror(rc < 0 ? -rc : EINVAL)))")
        }
        device = made
        node = libevdev_uinput_get_devnode(made).map { String(cString: $0) }
    }

    deinit { libevdev_uinput_destroy(device) }

    /// Says why /dev/uinput cannot be opened as libevdev opens it, without
    /// making a device: asked at start and at SIGHUP, so that a machine
    /// without uinput does not read its accelerometers for a switch it
    /// cannot have.
    static func checkAccess() throws(TabletSwitchError) {
        let fd = open("/dev/uinput", O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw TabletSwitchError("cannot open /dev/uinput: \(String(cString: strerror(errno)))") }
        close(fd)
    }

    func set(_ on: Bool) throws(TabletSwitchError) {
        for (type, code, value) in [(EV_SW, SW_TABLET_MODE, on ? 1 : 0), (EV_SYN, SYN_REPORT, 0)] {
            let rc = libevdev_uinput_write_event(device, UInt32(type), UInt32(code), Int32(value))
            guard rc == 0 else { throw TabletSwitchError("cannot write to the uinput device: \(String(cString: strerror(-rc)))") }
        }
    }
}
