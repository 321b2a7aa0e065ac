public import OrientProtocol

/// A device that shows one `SW_TABLET_MODE` switch (a uinput device in the
/// daemon, a recorder in tests). Dropping the last reference removes it.
public protocol TabletSwitchDevice: AnyObject {
    /// Its event node, for `status` (`/dev/input/event9`), if known.
    var node: String? { get }
    /// Sets the switch: `EV_SW SW_TABLET_MODE` with 1 or 0, then `SYN_REPORT`.
    func set(_ on: Bool) throws(TabletSwitchError)
}

/// Why the device could not be made or written, in words.
public struct TabletSwitchError: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// The hinge's tablet-mode decision published as a `SW_TABLET_MODE` switch,
/// so that libinput (and through it GNOME, KDE and sway) follows it
/// (docs/behaviour.md, "Tablet mode": what the desktop sees).
///
/// - The device exists only while it is `wanted` (the config allows it and
///   no kernel switch exists) and the hinge has decided once: it is made with
///   the first `tablet` or `laptop`, and shows each decision after.
/// - While the decision is `unknown` it keeps the last state.
/// - When the hinge goes (the base accelerometer unplugged) it keeps the last
///   state for ``releaseAfterMs``, then shows `laptop` and is removed; a base
///   back before then keeps it.
/// - When it stops being wanted (a kernel switch appeared, the config turned
///   it off) it shows `laptop` and is removed at once.
/// - A device that cannot be made or written is a ``problem``, as is a
///   uinput ``checked`` unusable before any decision; the next decision
///   tries again.
public final class PublishedTabletSwitch {
    /// The device's name, as libinput and `orientctl status` show it.
    public static let name = "orientd tablet-mode switch"
    /// How long the state is held after the hinge goes.
    public static let releaseAfterMs = 10_000.0

    /// The device while it exists.
    public private(set) var device: (any TabletSwitchDevice)?
    /// The state it shows (true: tablet), while it exists.
    public private(set) var state: Bool?
    /// Why the device could not be made or written, until it can.
    public private(set) var problem: String?
    /// When the held state is released, while the hinge is gone.
    public private(set) var releaseAtMs: Double?

    private let make: () throws(TabletSwitchError) -> any TabletSwitchDevice

    /// `make` creates the device (it is called only when a decision needs it).
    public init(make: @escaping () throws(TabletSwitchError) -> any TabletSwitchDevice) {
        self.make = make
    }

    /// Follows the decision. `hinge` is nil where the machine has no hinge
    /// source now (no base accelerometer); `atMs` is the monotonic clock.
    public func update(wanted: Bool, hinge: TabletMode?, atMs t: Double) {
        guard wanted else {
            release()
            problem = nil
            return
        }
        guard let hinge else {
            if device != nil, releaseAtMs == nil { releaseAtMs = t + Self.releaseAfterMs }
            return
        }
        releaseAtMs = nil
        switch hinge {
        case .unknown: return
        case .tablet: show(true)
        case .laptop: show(false)
        }
    }

    /// Releases the held state once its time has come.
    public func releaseIfDue(atMs t: Double) {
        guard let at = releaseAtMs, t >= at else { return }
        release()
    }

    /// Records what a look at uinput found before a decision needed a
    /// device: why none can be made (no /dev/uinput, no permission), or nil.
    public func checked(_ problem: String?) {
        if problem != nil { release() }
        self.problem = problem
    }

    /// Shows `laptop` (if it showed `tablet`) and removes the device.
    public func release() {
        releaseAtMs = nil
        if state == true { try? device?.set(false) }
        device = nil
        state = nil
    }

    private func show(_ on: Bool) {
        do throws(TabletSwitchError) {
            let device: any TabletSwitchDevice
            if let existing = self.device {
                device = existing
            } else {
                device = try make()
                self.device = device
            }
            if state != on {
                try device.set(on)
                state = on
            }
            problem = nil
        } catch {
            problem = error.message
            device = nil
            state = nil
        }
    }
}
