#if canImport(Glibc)
import Glibc
#endif
import OrientSense
import OrientProtocol

/// The protocol's requests (SPEC §7): each line a client sends, answered on the
/// daemon's loop.
extension Daemon {
    func handle(_ line: ArraySlice<UInt8>, from client: ClientConnection) {
        guard let server else { return }
        let request: RequestLine
        switch RequestDecoder.decode(line) {
        case .failure(let error):
            server.send(error.json(), to: client)
            return
        case .success(let decoded):
            request = decoded
        }
        let seq = request.seq
        func fail(_ code: ErrorCode, _ message: String) {
            server.send(ProtocolError(code: code, message: message, seq: seq).json(), to: client)
        }
        switch request.request {
        case .get:
            if let sensor, sensor.status == .idle {
                // Idle sensor: sample briefly for a fresh reading (answered within a second).
                pendingGets.append((client, seq))
                updateDemand()
                if pendingGetTimer == nil {
                    pendingGetTimer = loop.schedule(atMs: MonotonicClock.nowMs() + 500) { [unowned self] in
                        self.pendingGetTimer = nil
                        self.answerPendingGets()
                    }
                }
                return
            }
            server.send(state.json(seq: seq), to: client)
        case .subscribe:
            server.subscribe(client)
            server.send(state.json(seq: seq), to: client)
            updateDemand()
        case .unsubscribe:
            server.unsubscribe(client)
            client.wantsSamples = false
            server.send(Reply.ok(seq: seq), to: client)
            updateDemand()
        case .constrain(let id, let allow):
            let mask: OrientationMask
            do {
                mask = try config.mask(names: allow, natural: natural)
            } catch {
                fail(.badArgument, error.description)
                return
            }
            guard client.setConstraint(id: id, mask: mask, limit: config.limits.constraintsPerClient) else {
                fail(.limit, "too many constraints on this connection (limit \(config.limits.constraintsPerClient))")
                return
            }
            log.info("\(client.name) constrains '\(id)' to \(mask.names.joined(separator: ","))")
            server.send(Reply.ok(seq: seq), to: client)
            applyConstraints()
        case .release(let id):
            guard client.removeConstraint(id: id) else {
                fail(.unknownID, "no constraint '\(id)' on this connection")
                return
            }
            server.send(Reply.ok(seq: seq), to: client)
            applyConstraints()
        case .lock(let target):
            guard config.lockPermission.permits(uid: client.uid ?? UInt32.max, lockOwner: lockOwner) else {
                fail(.notPermitted, "lock-permission is \(config.lockPermission.rawValue): this client may not lock rotation")
                return
            }
            let orientation: Orientation
            switch target {
            case .current: orientation = state.orientation
            case .orientation(let o): orientation = o
            }
            guard orientation != .undefined else {
                fail(.badArgument, "no orientation to lock yet")
                return
            }
            lockOwner = client.uid
            persistLock(orientation)
            server.send(Reply.ok(seq: seq), to: client)
            log.info("\(client.name) locks rotation at \(orientation.rawValue)")
            let now = sensorNow
            mutateEngine { $0.setLock(orientation, atMs: now) }
        case .unlock:
            guard config.lockPermission.permits(uid: client.uid ?? UInt32.max, lockOwner: lockOwner) else {
                fail(.notPermitted, "lock-permission is \(config.lockPermission.rawValue): this client may not unlock rotation")
                return
            }
            lockOwner = nil
            persistLock(nil)
            server.send(Reply.ok(seq: seq), to: client)
            log.info("\(client.name) unlocks rotation")
            let now = sensorNow
            mutateEngine { $0.setLock(nil, atMs: now) }
        case .samples:
            client.wantsSamples = true
            updateDemand()
            server.send(
                Reply.samplesOK(seq: seq, mountMatrix: engine.mountMatrix, rateHz: replay.map { $0.trace.rateHz } ?? config.classifier.sampleRateHz,
                    onChange: replay?.trace.onChange ?? false),
                to: client)
        }
    }

    private func persistLock(_ orientation: Orientation?) {
        do {
            try stateDirectory.saveLock(orientation, owner: orientation == nil ? nil : lockOwner)
        } catch {
            log.warning("rotation lock not persisted: \(error.reason)")
        }
    }

    func applyConstraints() {
        let masks = server.map { Array($0.connections.flatMap { $0.constraints.map(\.mask) }) } ?? []
        let now = sensorNow
        mutateEngine { $0.setConstraints(masks, atMs: now) }
    }

    func clientGone(_ client: ClientConnection) {
        pendingGets.removeAll { $0.client === client }
        if !client.constraints.isEmpty { applyConstraints() }
        updateDemand()
    }
}
