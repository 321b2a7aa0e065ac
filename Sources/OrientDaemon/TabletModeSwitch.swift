#if canImport(Glibc)
import Glibc
#endif
import CEvdev
package import OrientProtocol
import OrientSensors
import OrientSense

/// The kernel's tablet-mode switch: an evdev device with `SW_TABLET_MODE`
/// (intel-vbtn, intel-hid, thinkpad_acpi, asus-wmi, surface, cros-ec,
/// gpio-keys), read through libevdev as events. Tablet while the switch is
/// on; its state at start is the kernel's (EVIOCGSW, read when libevdev opens
/// the device).
///
/// Open for as long as the device is there: a switch sends an event only when
/// the machine is folded, so it costs no wakeups. The lowest event number is
/// used where there are several. A read failure closes it (the mode becomes
/// unknown) and a rescan or a slow retry, from the loop, opens it again.
package final class TabletModeSwitch {
    /// The device in use, if any.
    package private(set) var chosen: SensorDevice?
    /// Other devices with the switch, not used.
    package private(set) var others: [SensorDevice] = []
    /// What the switch says: unknown without one, or while it cannot be read.
    package private(set) var mode: TabletMode = .unknown
    /// Told when `mode` or the chosen device changed.
    package var onChange: () -> Void = {}

    private let loop: EventLoop
    private let log: Log
    private var device: EvdevDevice?
    private var retryTimer: EventLoop.TimerID?
    private var loggedFailure = false

    package init(loop: EventLoop, log: Log) {
        self.loop = loop
        self.log = log
    }

    /// Whether `device` is an evdev node with the switch, and not orientd's own
    /// (the hinge's decision published for the desktop, PublishedTabletSwitch).
    package static func discover(_ device: SensorDevice) -> Bool {
        guard device.subsystem == "input", device.devnode != nil, let switches = device.attributes["capabilities/sw"] else { return false }
        if device.attributes["name"]?.trimmingWhitespace() == PublishedTabletSwitch.name { return false }
        return InputCapabilities.has(bit: Int(SW_TABLET_MODE), in: switches)
    }

    /// What is read, for `status`.
    package var sources: [String] { chosen.map { [$0.devnode ?? $0.sysname, "SW_TABLET_MODE"] } ?? [] }

    /// Chooses again among `devices` (start, hotplug, reload).
    package func rescan(_ devices: [SensorDevice]) {
        let found = devices.filter(TabletModeSwitch.discover).sorted { deviceNumber($0) < deviceNumber($1) }
        others = Array(found.dropFirst())
        let pick = found.first
        if pick?.syspath == chosen?.syspath {
            if let pick { chosen = pick }
            if device == nil, retryTimer == nil, pick != nil { open() }
            return
        }
        close()
        if let pick {
            log.notice("tablet mode: \(pick.sysname) (\(pick.attributes["name"].map { $0.trimmingWhitespace() } ?? "unnamed")), SW_TABLET_MODE")
        } else if let previous = chosen {
            log.notice("tablet mode: \(previous.sysname) gone; no tablet-mode switch")
        }
        chosen = pick
        if pick != nil { open() }
        set(.unknown, force: true)
    }

    private func open() {
        guard let chosen, let node = chosen.devnode else { return }
        let code = UInt32(SW_TABLET_MODE)
        do {
            let opened = try EvdevDevice(path: node)
            guard opened.has(type: UInt32(EV_SW), code: code) else {
                log.warning("tablet mode: \(node) (\(opened.name)) has no SW_TABLET_MODE")
                return
            }
            device = opened
            loggedFailure = false
            loop.watch(opened.fd, for: .readable) { [unowned self] _ in self.readable() }
            // The kernel's state now, delivered from the loop (never from inside a rescan).
            let first: TabletMode = (opened.switchValue(code) ?? 0) != 0 ? .tablet : .laptop
            retryTimer = loop.schedule(atMs: MonotonicClock.nowMs()) { [unowned self] in
                self.retryTimer = nil
                self.set(first)
            }
        } catch {
            failed("cannot open \(node): \(error)")
        }
    }

    private func readable() {
        guard let device else { return }
        do throws(SensorError) {
            for on in try device.drainSwitch(UInt32(SW_TABLET_MODE)) { set(on ? .tablet : .laptop) }
        } catch {
            failed("\(error)")
        }
    }

    /// Closes the switch, forgets its state, and tries again in 2 s (a udev
    /// event rescans sooner); said once until it reads again.
    private func failed(_ why: String) {
        if !loggedFailure { log.warning("tablet mode: \(why); the mode is unknown until it reads again") }
        loggedFailure = true
        close()
        set(.unknown)
        retryTimer = loop.schedule(atMs: MonotonicClock.nowMs() + 2000) { [unowned self] in
            self.retryTimer = nil
            if self.device == nil { self.open() }
        }
    }

    private func set(_ new: TabletMode, force: Bool = false) {
        guard new != mode || force else { return }
        if new != mode { log.info("tablet mode: \(new.rawValue) (SW_TABLET_MODE)") }
        mode = new
        onChange()
    }

    /// Stops watching and closes the device.
    package func close() {
        loop.cancel(retryTimer)
        retryTimer = nil
        if let device { loop.unwatch(device.fd) }
        device = nil
    }
}
