import OrientProtocol

extension ClientEngine {
    /// One line from the daemon: the greeting, a reply matched by `seq`, a
    /// subscription push (a `state` without `seq`) or a sample.
    func handleLine(_ line: ArraySlice<UInt8>) {
        let message: ServerMessage
        do {
            message = try ServerMessage.decode(line)
        } catch {
            undecodable(line, error)
            return
        }
        if case .awaitingHello = phase {
            greeting(message)
            return
        }
        switch message {
        case .hello:
            break  // only the first line is a greeting; a repeat is harmless
        case .state(let state, let seq):
            if let seq {
                reply(seq: seq, message)
            } else if serverSubscribed {
                deliver(state)
            }
        case .ok(let seq, _), .status(_, let seq):
            if let seq { reply(seq: seq, message) }
        case .error(let error):
            // An error without seq concerns the connection (e.g. `too-long` before
            // the daemon closes it); the close that follows fails what is in flight.
            if let seq = error.seq { reply(seq: seq, message) }
        case .sample(let tMs, let vector):
            let sample = Sample(tMs: tMs, vector: vector)
            for subscriber in sampleSubscribers.values { subscriber.continuation.yield(sample) }
        case .baseSample(let tMs, let vector):
            let sample = Sample(tMs: tMs, vector: vector)
            for subscriber in sampleSubscribers.values { subscriber.base?.yield(sample) }
        case .sensor(let reading):
            guard serverSensors.contains(reading.sensor) else { return }
            deliver([reading], waitingToo: false)
        }
    }

    private func greeting(_ message: ServerMessage) {
        switch message {
        case .hello(_, let version) where version == Reply.protocolVersion:
            connectionReady()
        case .hello(_, let version):
            connectionLost(.protocol("orientd at \(path) speaks protocol \(version); this client speaks \(Reply.protocolVersion)"))
        case .error(let error):
            connectionLost(.server(error))  // e.g. `limit`: too many clients
        default:
            connectionLost(.protocol("orientd at \(path) did not start with a hello message"))
        }
    }

    /// A line that does not decode fails the request it answers when its `seq`
    /// can still be read; otherwise it is skipped (a newer daemon's push).
    private func undecodable(_ line: ArraySlice<UInt8>, _ error: ProtocolDecodeError) {
        if case .awaitingHello = phase {
            connectionLost(.protocol("orientd's greeting is not a hello message: \(error.message)"))
            return
        }
        guard let value = try? JSONParser.parse(line), let number = value["seq"]?.number,
            let seq = Int64(exactly: number), let entry = pending.removeValue(forKey: seq)
        else { return }
        fail(entry.kind, with: .protocol("bad reply to '\(entry.request.opName)': \(error.message)"))
    }

    private func reply(seq: Int64, _ message: ServerMessage) {
        guard let entry = pending.removeValue(forKey: seq) else { return }  // timed out already
        let serverError: ProtocolError?
        if case .error(let error) = message { serverError = error } else { serverError = nil }
        switch entry.kind {
        case .caller(let completion):
            completion(serverError.map { .failure(.server($0)) } ?? .success(message))

        case .constrain(let id, let allow, let generation, let completion):
            if let serverError {
                completion(.failure(.server(serverError)))
                return
            }
            guard case .ok = message else {
                completion(.failure(.protocol("expected ok in reply to constrain, got \(message.kindName)")))
                return
            }
            if let index = constraints.firstIndex(where: { $0.id == id }) {
                if constraints[index].generation < generation {
                    constraints[index].allow = allow
                    constraints[index].generation = generation
                }
            } else {
                constraints.append(LiveConstraint(id: id, allow: allow, generation: generation))
            }
            completion(.success(generation))

        case .release(let completion):
            completion?(serverError.map { .failure(.server($0)) } ?? .success(()))

        case .reconstrain, .unsubscribe:
            break  // a constraint the restarted daemon refuses stays ours to retry

        case .subscribe:
            if case .state(let state, _) = message { deliver(state) }

        case .samples:
            samplesReply(message, serverError)

        case .watchSensors(let sensors):
            sensorsReply(sensors, message, serverError)
        }
    }

    private func sensorsReply(_ sensors: Set<EnvironmentSensor>, _ message: ServerMessage, _ serverError: ProtocolError?) {
        sensorsInFlight = false
        let readings: [SensorMessage]
        do throws(OrientClientError) {
            if let serverError { throw .server(serverError) }
            guard case .ok(_, let fields) = message else {
                throw .protocol("expected ok in reply to watch-sensors, got \(message.kindName)")
            }
            do {
                readings = try SensorMessage.readings(okFields: fields)
            } catch {
                throw .protocol("bad reply to 'watch-sensors': \(error.message)")
            }
        } catch {
            // The daemon changed nothing: those still waiting fail (they asked
            // for what was refused); the others keep what they had.
            for (id, subscriber) in sensorSubscribers {
                guard let ready = subscriber.ready else { continue }
                sensorSubscribers[id] = nil
                ready(.failure(error))
                subscriber.continuation.finish()
            }
            return
        }
        serverSensors = sensors
        deliver(readings, waitingToo: true)
        reconcileSensors()
    }

    /// Gives each sensor subscriber the readings of its sensors that differ
    /// from the last it was given; with `waitingToo`, subscribers waiting for
    /// the reply whose sensors are all watched now become ready first.
    private func deliver(_ readings: [SensorMessage], waitingToo: Bool) {
        for (id, subscriber) in sensorSubscribers {
            if let ready = subscriber.ready {
                guard waitingToo, subscriber.sensors.isSubset(of: serverSensors) else { continue }
                sensorSubscribers[id]?.ready = nil
                ready(.success(()))
            }
            for reading in readings where subscriber.sensors.contains(reading.sensor) {
                if sensorSubscribers[id]?.last[reading.sensor] == reading { continue }
                sensorSubscribers[id]?.last[reading.sensor] = reading
                subscriber.continuation.yield(reading)
            }
        }
    }

    private func samplesReply(_ message: ServerMessage, _ serverError: ProtocolError?) {
        let result: Result<Trace, OrientClientError>
        if let serverError {
            result = .failure(.server(serverError))
        } else if case .ok(_, let fields) = message {
            do throws(OrientClientError) {
                result = .success(try Trace(samplesReply: fields))
            } catch {
                result = .failure(error)
            }
        } else {
            result = .failure(.protocol("expected ok in reply to samples, got \(message.kindName)"))
        }
        switch result {
        case .success(let header):
            samplesHeader = header
            for (id, subscriber) in sampleSubscribers {
                guard let waiter = subscriber.header else { continue }
                sampleSubscribers[id]?.header = nil
                waiter(.success(header))
            }
        case .failure(let error):
            serverSamples = false
            failSampleWaiters(error)
            reconcileSubscriptions()
        }
    }

    /// Ends the sample streams whose caller is still waiting for the header.
    func failSampleWaiters(_ error: OrientClientError) {
        for (id, subscriber) in sampleSubscribers {
            guard let waiter = subscriber.header else { continue }
            sampleSubscribers[id] = nil
            waiter(.failure(error))
            subscriber.continuation.finish()
            subscriber.base?.finish()
        }
    }

    /// Gives `state` to every subscriber whose last state differs in content.
    func deliver(_ state: StateMessage) {
        latestState = state
        for (id, subscriber) in stateSubscribers {
            if let last = subscriber.last, last.sameContent(as: state) { continue }
            stateSubscribers[id]?.last = state
            subscriber.continuation.yield(state)
        }
    }

    /// Completes a request that will get no reply. A release "succeeds" when the
    /// connection is gone, since the daemon drops a connection's constraints.
    func fail(_ kind: PendingKind, with error: OrientClientError) {
        switch kind {
        case .caller(let completion): completion(.failure(error))
        case .constrain(_, _, _, let completion): completion(.failure(error))
        case .release(let completion):
            if case .timedOut = error { completion?(.failure(error)) } else { completion?(.success(())) }
        case .samples: failSampleWaiters(error)
        case .watchSensors:
            sensorsInFlight = false
            for (id, subscriber) in sensorSubscribers {
                guard let ready = subscriber.ready else { continue }
                sensorSubscribers[id] = nil
                ready(.failure(error))
                subscriber.continuation.finish()
            }
        case .reconstrain, .subscribe, .unsubscribe: break
        }
    }
}

extension ServerMessage {
    /// The message's `type`, for error messages.
    var kindName: String {
        switch self {
        case .hello: return "hello"
        case .state: return "state"
        case .ok: return "ok"
        case .error: return "error"
        case .sample: return "sample"
        case .baseSample: return "base-sample"
        case .status: return "status"
        case .sensor: return "sensor"
        }
    }
}
