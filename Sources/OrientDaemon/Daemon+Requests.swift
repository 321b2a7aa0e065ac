#if canImport(Glibc)
import Glibc
#endif
import OrientAccess
import OrientProtocol

/// The protocol's requests (docs/protocol.md): each line a client sends, answered on the
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
                pendingGets.add(client, seq: seq)
                updateDemand()
                pendingGets.wait { [unowned self] in self.answerPendingGets() }
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
            guard permits(config.constrainPermission, key: "constrain-permission", what: "constrain", client, seq) else { return }
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
            changed(client)
        case .release(let id):
            // Anyone may: it only removes the client's own constraint (one set
            // while its user held the seat must not come back when they return).
            guard client.removeConstraint(id: id) else {
                fail(.unknownID, "no constraint '\(id)' on this connection")
                return
            }
            server.send(Reply.ok(seq: seq), to: client)
            changed(client)
        case .lock(let target):
            guard permitsLock("lock", client, seq) else { return }
            let orientation: Orientation
            switch target {
            case .current: orientation = state.orientation
            case .orientation(let o): orientation = o
            }
            guard orientation != .undefined else {
                fail(.badArgument, "no orientation to lock yet")
                return
            }
            server.send(Reply.ok(seq: seq), to: client)
            log.info("\(client.name) locks rotation at \(orientation.rawValue)")
            changed(client, lock: .some(orientation))
        case .unlock:
            guard permitsLock("unlock", client, seq) else { return }
            server.send(Reply.ok(seq: seq), to: client)
            log.info("\(client.name) unlocks rotation")
            changed(client, lock: .some(nil))
        case .samples:
            guard permits(config.samplesPermission, key: "samples-permission", what: "samples", client, seq) else { return }
            let rate = replay.map { $0.trace.rateHz } ?? sensor?.rateHz ?? config.classifier.sampleRateHz
            // Root gets every sample; anyone else at most samples-rate a second.
            client.sampleThinning = client.uid == 0 ? nil : SampleThinning(rateHz: Double(config.limits.samplesRate))
            client.wantsSamples = true
            updateDemand()
            server.send(
                Reply.samplesOK(
                    seq: seq, mountMatrix: engine.mountMatrix,
                    rateHz: client.sampleThinning.map { thinning in rate.map { min($0, thinning.rateHz) } ?? thinning.rateHz } ?? rate,
                    onChange: replay?.trace.onChange ?? sensor?.isOnChange ?? false,
                    baseMountMatrix: client.sampleThinning == nil ? baseMountMatrixForSamples : nil, provenance: samplesProvenance),
                to: client)
        case .status:
            server.send(status.json(seq: seq, limit: RequestDecoder.defaultMaxLineBytes), to: client)
        case .watchSensors(let sensors):
            watchSensors(sensors, from: client, seq: seq)
        }
    }

    func clientGone(_ client: ClientConnection) {
        pendingGets.remove(client)
        // A pending lock still applies (`orientctl lock` does not wait for it);
        // the client's constraints are gone with it.
        if client.pendingLock == nil {
            loop.cancel(client.changeTimer)
            client.changeTimer = nil
        }
        if !client.appliedMasks.isEmpty { applyConstraints() }
        updateDemand()
    }
}
