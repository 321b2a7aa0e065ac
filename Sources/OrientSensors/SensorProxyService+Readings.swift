// How readings become the interface's published values and its
// PropertiesChanged signals, kind by kind.

extension SensorProxyService {
    /// The daemon published a reading (any sensor's value changed): update the
    /// properties and tell each kind's claimers what changed for them.
    public mutating func update(_ new: Reading) -> [Action] {
        reading = new
        var actions = updateAccelerometer()
        for kind in [SensorKind.light, .proximity, .compass] { actions += updateSensor(kind) }
        return actions
    }

    private mutating func updateAccelerometer() -> [Action] {
        var actions: [Action] = []
        if reading.hasAccelerometer != hasAccelerometer {
            hasAccelerometer = reading.hasAccelerometer
            if !hasAccelerometer {
                orientation = .undefined
                tilt = .undefined
                // Held claims were waiting for a sensor that is gone: answered now.
                actions += answerWaiting(.accelerometer)
            }
            if hasValue(.accelerometer), wants(.accelerometer) {
                orientation = reading.orientation
                tilt = reading.tilt
            }
            actions += signals(.accelerometer, [Change("HasAccelerometer", .bool(hasAccelerometer))] + values(.accelerometer))
        }
        guard hasValue(.accelerometer), wants(.accelerometer) else { return actions }
        // The held replies go before the signals: the properties already hold the
        // reading, and a client that takes its first values from the properties
        // after the reply and then follows the signals (Debian's monitor-sensor)
        // misses nothing.
        let replies = answerWaiting(.accelerometer)
        return actions + replies + publish(.accelerometer)
    }

    /// Light, proximity and compass: a sensor appearing or going is signalled
    /// with its values (`Has…` first) to that kind's claimers; a sensor that
    /// goes takes its values back to their defaults and answers the claims
    /// waiting for it; while claimed, the values follow the readings.
    private mutating func updateSensor(_ kind: SensorKind) -> [Action] {
        var actions: [Action] = []
        let present = readingIsPresent(kind)
        if present != isPresent(kind) {
            setPresent(kind, present)
            if !present {
                resetValues(kind)
                actions += answerWaiting(kind)
            } else if wants(kind) {
                _ = takeReading(kind)
            }
            actions += signals(kind, [Change(Self.presenceName(kind), .bool(present))] + values(kind))
        }
        if kind == .light, !wants(.light), let unit = reading.light.value?.unit {
            // The unit is the sensor's, not a reading: QtSensors reads it
            // before it claims.
            lightLevel.unit = unit
        }
        guard wants(kind) else { return actions }
        let replies = hasValue(kind) ? answerWaiting(kind) : []
        return actions + replies + publish(kind)
    }

    // MARK: Kinds

    /// The published `Has…` of `kind`.
    func isPresent(_ kind: SensorKind) -> Bool {
        switch kind {
        case .accelerometer: hasAccelerometer
        case .light: hasAmbientLight
        case .proximity: hasProximity
        case .compass: hasCompass
        }
    }

    private mutating func setPresent(_ kind: SensorKind, _ present: Bool) {
        switch kind {
        case .accelerometer: hasAccelerometer = present
        case .light: hasAmbientLight = present
        case .proximity: hasProximity = present
        case .compass: hasCompass = present
        }
    }

    private func readingIsPresent(_ kind: SensorKind) -> Bool {
        switch kind {
        case .accelerometer: reading.hasAccelerometer
        case .light: reading.light.isPresent
        case .proximity: reading.proximity.isPresent
        case .compass: reading.compass.isPresent
        }
    }

    /// The reading holds a usable value of `kind` (what a held claim waits for).
    func hasValue(_ kind: SensorKind) -> Bool {
        switch kind {
        case .accelerometer: reading.fresh && reading.hasAccelerometer
        case .light: Self.usable(reading.light.value) != nil
        case .proximity: reading.proximity.value != nil
        case .compass: Self.usableHeading(reading.compass.value) != nil
        }
    }

    /// A light level fit to publish: finite and not below 0 (−0 made 0).
    static func usable(_ level: LightLevel?) -> LightLevel? {
        guard let level, level.value.isFinite, level.value >= 0 else { return nil }
        return LightLevel(level.value + 0, unit: level.unit)
    }

    /// A heading fit to publish: finite, in [0, 360).
    static func usableHeading(_ degrees: Double?) -> Double? {
        guard let degrees, degrees.isFinite, degrees >= 0, degrees < 360 else { return nil }
        return degrees + 0
    }

    /// The property `Has…` of `kind`.
    static func presenceName(_ kind: SensorKind) -> String {
        switch kind {
        case .accelerometer: "HasAccelerometer"
        case .light: "HasAmbientLight"
        case .proximity: "HasProximity"
        case .compass: "HasCompass"
        }
    }

    /// The published values of `kind`, as a `Has…` change carries them after it.
    func values(_ kind: SensorKind) -> [Change] {
        switch kind {
        case .accelerometer:
            [Change("AccelerometerOrientation", .string(orientation.rawValue)), Change("AccelerometerTilt", .string(tilt.rawValue))]
        case .light:
            [Change("LightLevelUnit", .string(lightLevel.unit.rawValue)), Change("LightLevel", .double(lightLevel.value))]
        case .proximity:
            [Change("ProximityNear", .bool(proximityNear))]
        case .compass:
            [Change("CompassHeading", .double(compassHeading))]
        }
    }

    /// A sensor that is gone: its values as without one.
    private mutating func resetValues(_ kind: SensorKind) {
        switch kind {
        case .accelerometer:
            orientation = .undefined
            tilt = .undefined
        case .light: lightLevel = LightLevel(0, unit: .lux)
        case .proximity: proximityNear = false
        case .compass: compassHeading = CompassHeading.unknown
        }
    }

    /// Takes the reading's values of `kind` into the published ones; returns the
    /// signals' contents when they changed, each group in one signal (the
    /// orientation and tilt in one each; the light's unit and level together).
    ///
    /// Without a value, the light's level is kept (a dimmed screen from a level
    /// of 0 would be worse than a stale one), a proximity sensor reads far (a
    /// blanked screen that stays blanked is the worst failure) and the compass
    /// reads unknown.
    private mutating func takeReading(_ kind: SensorKind) -> [[Change]] {
        switch kind {
        case .accelerometer:
            guard hasValue(.accelerometer) else { return [] }
            var changes: [[Change]] = []
            if reading.orientation != orientation {
                orientation = reading.orientation
                changes.append([Change("AccelerometerOrientation", .string(orientation.rawValue))])
            }
            if reading.tilt != tilt {
                tilt = reading.tilt
                changes.append([Change("AccelerometerTilt", .string(tilt.rawValue))])
            }
            return changes
        case .light:
            guard let level = Self.usable(reading.light.value), level != lightLevel else { return [] }
            lightLevel = level
            return [values(.light)]
        case .proximity:
            let near = reading.proximity.value ?? false
            guard near != proximityNear else { return [] }
            proximityNear = near
            return [values(.proximity)]
        case .compass:
            let heading = Self.usableHeading(reading.compass.value) ?? CompassHeading.unknown
            guard heading != compassHeading else { return [] }
            compassHeading = heading
            return [values(.compass)]
        }
    }

    /// Takes the reading's values of `kind` and signals what changed to its claimers.
    mutating func publish(_ kind: SensorKind) -> [Action] {
        takeReading(kind).flatMap { signals(kind, $0) }
    }

    /// One PropertiesChanged with `changes` to each claimer of `kind`, on the
    /// object and interface the kind's properties belong to.
    func signals(_ kind: SensorKind, _ changes: [Change]) -> [Action] {
        let onCompass = kind == .compass
        return claims[kind].sorted().map {
            .signal(
                destination: $0, path: onCompass ? Self.compassPath : Self.path,
                interface: onCompass ? Self.compassInterface : Self.interface, changes: changes)
        }
    }
}
