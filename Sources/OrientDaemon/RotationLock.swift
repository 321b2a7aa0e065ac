import OrientProtocol

/// A `lock` or `unlock` a client asked for: the orientation (nil unlocks) and
/// the order it came in, so a late deferred one never undoes a newer one.
struct LockRequest {
    var orientation: Orientation?
    var owner: UInt32?
    /// The requesting client's pid, for `status`.
    var pid: Int32?
    var serial: Int
}

/// The user's rotation lock, apart from the orientation itself (which the
/// engine holds, since it decides what is published): who set it, the order
/// of the requests, and its copy in the state directory, written at most once
/// a second (a burst of locks costs one fsync, and the latest is written).
///
/// Owned by the event loop's thread.
final class RotationLock {
    /// The uid that set the lock in force (nil: none set, or set by nobody known).
    private(set) var owner: UInt32?
    /// The pid of the client that set it, when one did since the daemon started.
    private(set) var setterPID: Int32?
    /// The orientation stored by a previous run, read at start.
    let stored: Orientation?

    private let stateDirectory: StateDirectory
    private let loop: EventLoop
    private let log: Log
    /// The locked orientation to write next.
    private var toWrite: Orientation?
    /// Every request's order, and the newest one applied.
    private var serial = 0
    private var appliedSerial = 0
    private var writeTimer: EventLoop.TimerID?
    private var lastWriteMs = -Double.infinity

    /// Reads the lock a previous run stored.
    init(stateDirectory: StateDirectory, loop: EventLoop, log: Log) {
        self.stateDirectory = stateDirectory
        self.loop = loop
        self.log = log
        let record = stateDirectory.loadLockRecord(warn: log.warning)
        stored = record?.orientation
        owner = record?.owner
    }

    /// A request from a client of `uid` and `pid`, numbered after every earlier one.
    func request(_ orientation: Orientation?, uid: UInt32?, pid: Int32?) -> LockRequest {
        serial += 1
        return LockRequest(orientation: orientation, owner: uid, pid: pid, serial: serial)
    }

    /// Takes `request` as the lock's owner unless a newer one was applied
    /// already; whether it was taken (the caller then sets the engine's lock
    /// and calls ``persist(_:)``).
    func accept(_ request: LockRequest) -> Bool {
        guard request.serial > appliedSerial else { return false }
        appliedSerial = request.serial
        owner = request.orientation == nil ? nil : request.owner
        setterPID = request.orientation == nil ? nil : request.pid
        return true
    }

    /// Writes `orientation` (nil: no lock) now if the last write is a second
    /// old, else a second after it, unless a newer one replaces it by then.
    func persist(_ orientation: Orientation?) {
        toWrite = orientation
        guard writeTimer == nil else { return }
        let now = MonotonicClock.nowMs()
        let due = lastWriteMs + 1000
        guard due > now else {
            write()
            return
        }
        writeTimer = loop.schedule(atMs: due) { [unowned self] in
            self.writeTimer = nil
            self.write()
        }
    }

    /// Writes a lock still waiting for its turn (at shutdown).
    func flush() {
        guard writeTimer != nil else { return }
        loop.cancel(writeTimer)
        writeTimer = nil
        write()
    }

    private func write() {
        lastWriteMs = MonotonicClock.nowMs()
        let orientation = toWrite
        do {
            try stateDirectory.saveLock(orientation, owner: orientation == nil ? nil : owner)
        } catch {
            log.warning("rotation lock not persisted: \(error.reason)")
        }
    }
}
