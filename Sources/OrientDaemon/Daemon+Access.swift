import OrientAccess
import OrientConfig
import OrientProtocol

/// Who may do what (docs/security.md), and how fast a client may change what
/// the daemon publishes.
extension Daemon {
    /// The file a refused client is told to edit.
    private var configFileName: String { options.configPath ?? DaemonConfig.defaultPath }

    /// Whether `client` may make a request `policy` guards; when not, sends
    /// `not-permitted` naming the policy and where to change it.
    func permits(_ policy: AccessPolicy, key: String, what: String, _ client: ClientConnection, _ seq: Int64?) -> Bool {
        guard !seat.permits(policy, uid: client.uid) else { return true }
        let who: String
        switch policy {
        case .off: who = "\(what) is off (\(key) = off)"
        case .root: who = "\(what) is for root only (\(key) = root)"
        case .seat, .anyone: who = "\(what) is for root and the user at the seat (\(key) = seat), and \(uidName(client)) is neither"
        }
        refuse(client, seq, "\(who); to change that, set \(key) or seat-users in [daemon] of \(configFileName)")
        return false
    }

    /// Whether `client` may lock or unlock now; when not, sends `not-permitted`.
    func permitsLock(_ what: String, _ client: ClientConnection, _ seq: Int64?) -> Bool {
        let principal = seat.principal(of: client.uid)
        let policy = config.lockPermission
        let owner = lock.owner
        if policy.permits(principal, uid: client.uid ?? UInt32.max, lockOwner: owner, ownerHoldsSeat: policy == .sameUser && seat.isSeat(uid: owner)) {
            return true
        }
        let who: String
        switch policy {
        case .root: who = "\(what) is for root only (lock-permission = root)"
        case .sameUser where principal != .other:
            who = "the lock belongs to uid \(owner.map(String.init) ?? "?"), who still holds the seat (lock-permission = same-user)"
        default:
            who = "\(what) is for root and the user at the seat (lock-permission = \(policy.rawValue)), and \(uidName(client)) is neither"
        }
        refuse(client, seq, "\(who); to change that, set lock-permission or seat-users in [daemon] of \(configFileName)")
        return false
    }

    private func uidName(_ client: ClientConnection) -> String {
        client.uid.map { "uid \($0)" } ?? "a client of unknown uid"
    }

    private func refuse(_ client: ClientConnection, _ seq: Int64?, _ message: String) {
        server?.send(ProtocolError(code: .notPermitted, message: message, seq: seq).json(), to: client)
    }

    // MARK: Changes, at most changes-per-second per client

    /// `client` changed its constraints, or asked for `lock`: applied now when
    /// it is root or its budget allows, else once the budget does (coalesced: whatever the client
    /// asked for last is what is applied).
    func changed(_ client: ClientConnection, lock orientation: Orientation?? = nil) {
        if let orientation { client.pendingLock = lock.request(orientation, uid: client.uid, pid: client.pid) }
        guard client.changeTimer == nil else { return }
        let now = MonotonicClock.nowMs()
        // Root is not limited (the administrator, and the tests that drive the
        // daemon as fast as it goes).
        if client.uid == 0 || client.changeBudget.take(atMs: now) {
            applyChanges(of: client)
            return
        }
        let due = client.changeBudget.nextTokenMs(atMs: now)
        client.changeTimer = loop.schedule(atMs: due) { [unowned self] in
            client.changeTimer = nil
            _ = client.changeBudget.take(atMs: MonotonicClock.nowMs())
            self.applyChanges(of: client)
        }
    }

    private func applyChanges(of client: ClientConnection) {
        if let request = client.pendingLock {
            client.pendingLock = nil
            if lock.accept(request) {
                let now = sensorNow
                mutateEngine { $0.setLock(request.orientation, atMs: now) }
                lock.persist(engine.lock)
            }
        }
        let masks = client.masks
        if !client.closing, masks != client.appliedMasks {
            client.appliedMasks = masks
            applyConstraints()
        }
    }

    /// Gives the engine the constraints that count: those of clients who may
    /// constrain now (after a user switch, the last user's apps no longer do).
    func applyConstraints() {
        let policy = config.constrainPermission
        var masks: [OrientationMask] = []
        var permitted: [UInt32?: Bool] = [:]  // one answer per uid, not per client
        for client in server?.connections ?? [] where !client.appliedMasks.isEmpty {
            let permits = permitted[client.uid] ?? seat.permits(policy, uid: client.uid)
            permitted[client.uid] = permits
            if permits { masks += client.appliedMasks }
        }
        let now = sensorNow
        mutateEngine { $0.setConstraints(masks, atMs: now) }
    }
}
