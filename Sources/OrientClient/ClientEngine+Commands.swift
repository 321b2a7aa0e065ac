import OrientProtocol

extension ClientEngine {
    /// Carries out one command from the public API.
    func handle(_ command: EngineCommand) {
        switch command {
        case .request(let request, let completion):
            if let error = ensureConnection() {
                completion(.failure(error))
                return
            }
            submit(request, kind: .caller(completion))

        case .constrain(let id, let allow, let completion):
            if let error = ensureConnection() {
                completion(.failure(error))
                return
            }
            let generation = nextGeneration
            nextGeneration += 1
            submit(.constrain(id: id, allow: allow), kind: .constrain(id: id, allow: allow, generation: generation, completion))

        case .release(let id, let generation, let completion):
            guard let index = constraints.firstIndex(where: { $0.id == id }),
                constraints[index].generation == generation
            else {
                // Already released, or superseded by a newer `constrain` of the same id.
                completion?(.success(()))
                return
            }
            constraints.remove(at: index)
            if phase == .ready {
                send(.release(id: id), kind: .release(completion))
            } else {
                // No connection holds it: the daemon dropped it with the old one,
                // and the next connection will not re-register it.
                completion?(.success(()))
            }

        case .addStateSubscriber(let id, let continuation):
            stateSubscribers[id] = StateSubscriber(continuation: continuation, last: nil)
            switch phase {
            case .ready:
                if serverSubscribed, let latestState {
                    stateSubscribers[id]?.last = latestState
                    continuation.yield(latestState)
                } else {
                    reconcileSubscriptions()
                }
            case .awaitingHello:
                break  // `connectionReady` subscribes
            case .disconnected:
                _ = connect()  // on failure a reconnection is scheduled; the stream waits
            }

        case .removeStateSubscriber(let id):
            guard stateSubscribers.removeValue(forKey: id) != nil else { return }
            reconcileSubscriptions()

        case .addSampleSubscriber(let id, let continuation, let base, let header):
            if phase == .disconnected, let error = connect() {
                header(.failure(error))
                continuation.finish()
                base?.finish()
                return
            }
            sampleSubscribers[id] = SampleSubscriber(continuation: continuation, base: base, header: header)
            if phase == .ready, serverSamples, let samplesHeader {
                sampleSubscribers[id]?.header = nil
                header(.success(samplesHeader))
            } else {
                reconcileSubscriptions()
            }

        case .removeSampleSubscriber(let id):
            guard let removed = sampleSubscribers.removeValue(forKey: id) else { return }
            removed.base?.finish()
            reconcileSubscriptions()

        case .addSensorSubscriber(let id, let sensors, let continuation, let ready):
            if phase == .disconnected, let error = connect() {
                ready(.failure(error))
                continuation.finish()
                return
            }
            sensorSubscribers[id] = SensorSubscriber(sensors: sensors, continuation: continuation, ready: ready)
            reconcileSubscriptions()

        case .removeSensorSubscriber(let id):
            guard sensorSubscribers.removeValue(forKey: id) != nil else { return }
            reconcileSubscriptions()

        case .addConnectionObserver(let id, let continuation):
            connectionObservers[id] = continuation
            if phase == .ready { continuation.yield(.connected) }

        case .removeConnectionObserver(let id):
            connectionObservers[id] = nil

        case .shutdown:
            running = false
        }
    }

    /// Brings this connection's `subscribe` and `samples` in line with the
    /// subscribers. The daemon's `unsubscribe` stops both state and samples, so
    /// stopping samples while states are still wanted unsubscribes and subscribes again.
    func reconcileSubscriptions() {
        guard phase == .ready else { return }
        let wantStates = !stateSubscribers.isEmpty
        let wantSamples = !sampleSubscribers.isEmpty
        if !wantSamples && serverSamples {
            send(.unsubscribe, kind: .unsubscribe)
            serverSamples = false
            samplesHeader = nil
            serverSubscribed = false
            latestState = nil
        }
        if wantStates && !serverSubscribed {
            send(.subscribe, kind: .subscribe)
            serverSubscribed = true
            latestState = nil
        } else if !wantStates && serverSubscribed && !serverSamples {
            send(.unsubscribe, kind: .unsubscribe)
            serverSubscribed = false
            latestState = nil
        }
        if wantSamples && !serverSamples {
            send(.samples, kind: .samples)
            serverSamples = true
        }
        reconcileSensors()
    }

    /// Brings this connection's `watch-sensors` in line with the sensor
    /// subscribers: one request in flight at a time, for the union of their
    /// sets. A subscriber whose sensors are all watched already is ready at once.
    func reconcileSensors() {
        guard phase == .ready, !sensorsInFlight else { return }
        let wanted = sensorSubscribers.values.reduce(into: Set<EnvironmentSensor>()) { $0.formUnion($1.sensors) }
        if wanted != serverSensors {
            send(.watchSensors(wanted), kind: .watchSensors(wanted))
            sensorsInFlight = true
            return
        }
        // Nothing to send, but a new subscriber may wait: it needs the readings,
        // which only a reply carries; ask again for the same set.
        if sensorSubscribers.values.contains(where: { $0.ready != nil }) {
            send(.watchSensors(wanted), kind: .watchSensors(wanted))
            sensorsInFlight = true
        }
    }
}
