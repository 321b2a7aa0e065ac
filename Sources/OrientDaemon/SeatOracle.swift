#if canImport(Glibc)
import Glibc
#endif
import CSystemd
package import OrientAccess

/// Who is at the device: root, the uid logind says holds the seat's active
/// session, or a uid the config names (`[daemon] seat-users`, for systems
/// without logind). docs/security.md has the policy built on it.
///
/// Asked per request, never cached across a change: after a fast user switch
/// the new session's uid is the seat at once. logind's view comes from sd-login,
/// which reads /run/systemd (no D-Bus, and it works under ProtectProc).
/// Without logind, sd-login finds no session and only root and the configured
/// users are the seat.
///
/// Shared by every front end that authorises a request (the socket protocol,
/// and D-Bus claims), so both have one notion of "the seat".
package final class SeatOracle {
    /// The seat whose active session counts (a tablet or laptop has one: seat0).
    package static let seatName = "seat0"

    private var users: SeatUsers
    private var listedUIDs: Set<UInt32> = []
    /// Configured names that are no user on this system.
    package private(set) var unknownNames: [String] = []
    private var monitor: OpaquePointer?
    private var monitorFD: Int32 = -1
    private weak var loop: EventLoop?

    /// Resolves the configured names now (`reconfigure` resolves them again).
    package init(users: SeatUsers) {
        self.users = users
        resolve()
    }

    deinit { stopWatching() }

    /// Takes a new `seat-users` (SIGHUP).
    package func reconfigure(_ users: SeatUsers) {
        self.users = users
        resolve()
    }

    private func resolve() {
        listedUIDs = []
        unknownNames = []
        guard case .listed(let names) = users else { return }
        for name in names {
            if let uid = UInt32(name) {
                listedUIDs.insert(uid)
            } else if let uid = Self.uid(ofUser: name) {
                listedUIDs.insert(uid)
            } else {
                unknownNames.append(name)
            }
        }
    }

    private static func uid(ofUser name: String) -> UInt32? {
        var record = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let status = getpwnam_r(name, &record, &buffer, buffer.count, &result)
        guard status == 0, result != nil else { return nil }
        return record.pw_uid
    }

    /// Whether `uid` is the seat: root, a configured seat user, or the owner of
    /// the active session on ``seatName``. nil (credentials unknown) never is.
    package func isSeat(uid: UInt32?) -> Bool {
        guard let uid else { return false }
        if uid == 0 || listedUIDs.contains(uid) { return true }
        if case .everyone = users { return true }
        return sd_uid_is_on_seat(uid, 1, Self.seatName) > 0
    }

    /// The principal a client running as `uid` is now.
    package func principal(of uid: UInt32?) -> Principal {
        Principal(uid: uid, isSeat: isSeat(uid: uid))
    }

    /// Whether a client running as `uid` may make a request `policy` guards;
    /// logind is asked only when the policy turns on the seat.
    package func permits(_ policy: AccessPolicy, uid: UInt32?) -> Bool {
        policy.permits(Principal(uid: uid, isSeat: policy == .seat && isSeat(uid: uid)))
    }

    /// Whether logind is running: systemd booted the system and seat0 exists.
    package var logindRunning: Bool {
        sd_booted() > 0 && access("/run/systemd/seats/\(Self.seatName)", F_OK) == 0
    }

    /// What makes up the seat, for the log at start and on SIGHUP.
    package var summary: String {
        let source = logindRunning ? "root, logind's active session on \(Self.seatName)" : "root (logind is not running)"
        switch users {
        case .everyone: return "every uid (seat-users = everyone)"
        case .listed(let names) where names.isEmpty: return source
        case .listed: return "\(source), seat-users \(listedUIDs.sorted().map(String.init).joined(separator: ", "))"
        }
    }

    /// Calls `onChange` on `loop` whenever logind's sessions, seats or users
    /// change (a login, a logout, a user switch), so that what non-seat clients
    /// set stops counting at once. Without logind's directories, nothing is watched.
    package func watch(loop: EventLoop, onChange: @escaping () -> Void) {
        stopWatching()
        var created: OpaquePointer?
        guard sd_login_monitor_new(nil, &created) >= 0, let created else { return }
        let fd = sd_login_monitor_get_fd(created)
        guard fd >= 0 else {
            sd_login_monitor_unref(created)
            return
        }
        monitor = created
        monitorFD = fd
        self.loop = loop
        loop.watch(fd, for: .readable) { [unowned self] _ in
            if let monitor = self.monitor { sd_login_monitor_flush(monitor) }
            onChange()
        }
    }

    /// Stops watching logind (at shutdown).
    package func stopWatching() {
        guard let monitor else { return }
        loop?.unwatch(monitorFD)
        sd_login_monitor_unref(monitor)
        self.monitor = nil
        monitorFD = -1
    }
}
