#if canImport(Glibc)
import Glibc
#endif
import CLinux
import OrientAccess
package import OrientProtocol

/// One connected client: its socket, buffers, subscriptions and constraints.
///
/// Owned by `SocketServer`; touched only on the event loop's thread.
package final class ClientConnection {
    /// A serial number for logs (never reused while the daemon runs).
    package let serial: Int
    let fd: Int32
    /// The peer's credentials (SO_PEERCRED), nil if the kernel did not say.
    package let uid: UInt32?
    package let pid: Int32?

    /// Receives a `state` on every change (set through `SocketServer.subscribe`).
    package var subscribed: Bool { subscriberIndex >= 0 }
    /// Receives a `sample` for every sensor sample.
    package var wantsSamples = false
    /// Constraint id → the mask it allows, in registration order.
    package private(set) var constraints: [(id: String, mask: OrientationMask)] = []

    var readBuffer: [UInt8] = []
    var writeBuffer: [UInt8] = []
    var writeOffset = 0
    /// A state change happened while replies were still queued: send the latest
    /// state once the queue drains (coalescing; never a stale one).
    var stateOwed = false
    var closing = false
    /// Position in the server's list of all clients, and in its list of
    /// subscribers (-1 when not subscribed): removal without a search.
    var index = -1
    var subscriberIndex = -1
    /// The events epoll watches now, so a change costs a syscall only when it is one.
    var watched: EventLoop.Events = [.readable, .hangup]
    /// The client closed its sending side: finish writing the replies it asked
    /// for, then close.
    var readClosed = false
    /// Counted in the server's clients per uid (accepted, not refused).
    var counted = false

    /// The masks of `constraints` the daemon applies now: they follow
    /// `constraints` at most `changes-per-second` times a second.
    var appliedMasks: [OrientationMask] = []
    /// How often this client may change what the daemon publishes.
    var changeBudget = TokenBucket(rate: 20, burst: 20)
    /// Applies what the client changed beyond its budget, when the budget allows.
    var changeTimer: EventLoop.TimerID?
    /// A lock or unlock beyond the budget, applied by `changeTimer` (the latest wins).
    var pendingLock: LockRequest?
    /// Thins `sample` messages to a non-root client; nil sends every one.
    var sampleThinning: SampleThinning?
    /// The sensors this client watches (`watch-sensors`).
    package var watchedSensors: Set<EnvironmentSensor> = []
    /// Sensors that changed while replies were still queued: their latest
    /// readings are sent once the queue drains (coalescing, as `stateOwed`).
    var sensorsOwed: Set<EnvironmentSensor> = []

    init(serial: Int, fd: Int32) {
        self.serial = serial
        self.fd = fd
        var cred = orientd_ucred()
        var size = socklen_t(MemoryLayout<orientd_ucred>.size)
        if getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) == 0 {
            uid = cred.uid
            pid = cred.pid
        } else {
            uid = nil
            pid = nil
        }
    }

    /// Bytes queued and not yet written.
    var queuedBytes: Int { writeBuffer.count - writeOffset }

    /// A short name for logs: `client 7 (uid 1000, pid 4242)`.
    package var name: String {
        "client \(serial) (uid \(uid.map { String($0) } ?? "?"), pid \(pid.map { String($0) } ?? "?"))"
    }

    /// The masks of the client's current constraints.
    var masks: [OrientationMask] { constraints.map(\.mask) }

    /// Adds or updates a constraint; returns false when that would pass `limit`.
    func setConstraint(id: String, mask: OrientationMask, limit: Int) -> Bool {
        if let index = constraints.firstIndex(where: { $0.id == id }) {
            constraints[index].mask = mask
            return true
        }
        guard constraints.count < limit else { return false }
        constraints.append((id: id, mask: mask))
        return true
    }

    /// Removes a constraint; returns false when there is none with that id.
    func removeConstraint(id: String) -> Bool {
        guard let index = constraints.firstIndex(where: { $0.id == id }) else { return false }
        constraints.remove(at: index)
        return true
    }
}
