/// What discovery knows about one IIO device, gathered from udev and sysfs by
/// the daemon; the input to `AccelerometerChoice.choose`.
///
/// Attribute texts may carry the sysfs newline; it is ignored.
package struct IIODeviceInfo: Sendable, Equatable {
    /// The kernel name, e.g. `iio:device0`.
    package var sysname: String
    /// The sysfs path, e.g. `/sys/devices/…/iio:device0`.
    package var syspath: String
    /// The character device, e.g. `/dev/iio:device0`; nil when there is none.
    package var devnode: String?
    /// The `name` attribute, e.g. `accel_3d` or `mxc4005`.
    package var name: String?
    /// The `label` attribute, e.g. `accel-display` or `accel-base`.
    package var label: String?
    /// The `location` attribute of older cros-ec sensors: `display`, `lid` or `base`.
    package var location: String?
    /// The udev property `ACCEL_LOCATION` (from hwdb): `display` or `base`.
    package var accelLocation: String?
    /// True when `in_accel_x_raw`, `in_accel_y_raw` and `in_accel_z_raw` all exist.
    package var hasRawAxes: Bool
    /// True when `scan_elements/in_accel_{x,y,z}_en` all exist.
    package var hasScanElements: Bool

    /// A device description; everything but the names is optional.
    package init(
        sysname: String, syspath: String, devnode: String? = nil, name: String? = nil, label: String? = nil,
        location: String? = nil, accelLocation: String? = nil, hasRawAxes: Bool = false,
        hasScanElements: Bool = false
    ) {
        self.sysname = sysname
        self.syspath = syspath
        self.devnode = devnode
        self.name = name
        self.label = label
        self.location = location
        self.accelLocation = accelLocation
        self.hasRawAxes = hasRawAxes
        self.hasScanElements = hasScanElements
    }

    /// True when x, y and z can be read, by polling or through the buffer.
    package var isAccelerometer: Bool { hasRawAxes || hasScanElements }

    /// Where the sensor sits, iio-sensor-proxy's way: the first recognised value of
    /// udev `ACCEL_LOCATION` (`display`, `lid`, `base`), then sysfs `label`
    /// (`accel-display`, `accel-base`), then sysfs `location` (`display`, `lid`,
    /// `base`) decides; with none, or an empty location, the display. Values are
    /// case-sensitive.
    var placement: (inBase: Bool, evidence: String?, unrecognised: [String]) {
        var unrecognised: [String] = []
        let sources: [(String, String?, [String: Bool])] = [
            ("udev ACCEL_LOCATION", accelLocation, ["display": false, "lid": false, "base": true]),
            ("label", label, ["accel-display": false, "accel-base": true]),
            ("location", location, ["display": false, "lid": false, "base": true]),
        ]
        for case let (what, text?, meanings) in sources {
            let value = String(sysfsTrimmed(text))
            if let inBase = meanings[value] { return (inBase, "\(what)=\(value)", unrecognised) }
            // An empty location means the display in iio-sensor-proxy; an empty
            // label is simply no label.
            if value.isEmpty {
                if what == "label" { continue }
                return (false, nil, unrecognised)
            }
            if what != "label" {
                unrecognised.append("\(sysname): unrecognised \(what) '\(value.prefix(40))'; ignored")
            }
        }
        return (false, nil, unrecognised)
    }
}

/// Picks the one accelerometer orientd reads (docs/behaviour.md).
///
/// Without a pin: accelerometers only (raw axes or scan elements), never one in
/// the base; one that declares the display location before one that declares
/// nothing; then the lowest device number (`iio:device2` before `iio:device10`).
///
/// With a pin (the config `device` key), the device whose syspath, devnode,
/// sysname or `name` equals it wins, even in the base (the user asked; a note
/// says so). No other device is chosen while the pinned one is missing.
package enum AccelerometerChoice {
    /// A device that was not chosen and why.
    package struct Skipped: Sendable, Equatable {
        /// The device.
        package var device: IIODeviceInfo
        /// Why it was not chosen, for a log line.
        package var reason: String
    }

    /// The outcome of `choose`.
    package struct Decision: Sendable, Equatable {
        /// The accelerometer to read; nil when there is none (or the pinned one is missing).
        package var chosen: IIODeviceInfo?
        /// Every other device with the reason it was passed over, in input order.
        package var skipped: [Skipped]
        /// Things a log should say about the choice: a base-located device chosen
        /// because it is pinned, a pin that matches nothing, unrecognised locations.
        package var notes: [String]

        package init(chosen: IIODeviceInfo?, skipped: [Skipped], notes: [String]) {
            self.chosen = chosen
            self.skipped = skipped
            self.notes = notes
        }
    }

    /// Chooses among `devices` (all IIO devices present), honouring `pinned`
    /// (nil or empty for automatic choice). Pure: paths are compared as given,
    /// not resolved.
    package static func choose(_ devices: [IIODeviceInfo], pinned: String?) -> Decision {
        var notes: [String] = []
        for device in devices where device.isAccelerometer {
            notes += device.placement.unrecognised
        }
        let pin = pinned.map { String(sysfsTrimmed($0)) } ?? ""

        var candidates: [IIODeviceInfo]
        var reasons: [Int: String] = [:]
        if pin.isEmpty {
            candidates = []
            for (i, device) in devices.enumerated() {
                if !device.isAccelerometer {
                    reasons[i] = "not an accelerometer (no in_accel_{x,y,z}_raw or scan elements)"
                } else if device.placement.inBase {
                    reasons[i] = "located in the base (\(device.placement.evidence ?? "base"))"
                } else {
                    candidates.append(device)
                }
            }
        } else {
            let matching = devices.indices.filter { matches(devices[$0], pin) }
            for i in devices.indices where !matching.contains(i) {
                reasons[i] = "not the pinned device '\(pin)'"
            }
            candidates = matching.filter { devices[$0].isAccelerometer }.map { devices[$0] }
            for i in matching where !devices[i].isAccelerometer {
                reasons[i] = "pinned, but not an accelerometer (no in_accel_{x,y,z}_raw or scan elements)"
            }
            if matching.isEmpty {
                notes.append("the pinned device '\(pin)' is not present; waiting for it")
            } else if candidates.isEmpty {
                notes.append("the pinned device '\(pin)' is not an accelerometer")
            } else if candidates.count > 1 {
                notes.append("the pin '\(pin)' matches \(candidates.count) accelerometers: \(candidates.map(\.sysname).joined(separator: ", "))")
            }
        }

        let ranked = candidates.sorted(by: preferred)
        guard let chosen = ranked.first else {
            return Decision(chosen: nil, skipped: skipped(devices, reasons), notes: notes)
        }
        for (i, device) in devices.enumerated() where reasons[i] == nil && device != chosen {
            reasons[i] = "\(chosen.sysname) is preferred"
        }
        if !pin.isEmpty, chosen.placement.inBase {
            notes.append(
                "using \(chosen.sysname) although it is located in the base (\(chosen.placement.evidence ?? "base")), because it is pinned")
        }
        if let chosenIndex = devices.firstIndex(of: chosen) {
            reasons[chosenIndex] = nil
            // An identical duplicate of the chosen entry is still listed as skipped.
            for i in devices.indices where i != chosenIndex && devices[i] == chosen {
                reasons[i] = "listed twice"
            }
        }
        return Decision(chosen: chosen, skipped: skipped(devices, reasons), notes: notes)
    }

    /// The base's accelerometer of a 2-in-1 (the hinge angle's second
    /// sensor): the first accelerometer located in the base (udev
    /// `ACCEL_LOCATION=base`, `label` `accel-base`, `location` `base`), in
    /// natural sysname order; nil when none is.
    package static func base(_ devices: [IIODeviceInfo]) -> IIODeviceInfo? {
        devices.filter { $0.isAccelerometer && $0.placement.inBase }.min { naturalSysnameOrder($0.sysname, $1.sysname) }
    }

    private static func skipped(_ devices: [IIODeviceInfo], _ reasons: [Int: String]) -> [Skipped] {
        devices.indices.compactMap { i in reasons[i].map { Skipped(device: devices[i], reason: $0) } }
    }

    private static func matches(_ device: IIODeviceInfo, _ pin: String) -> Bool {
        [device.syspath, device.devnode, device.sysname, device.name.map { String(sysfsTrimmed($0)) }]
            .contains { $0 == pin }
    }

    /// Not in the base, then an explicit display location, then natural sysname order.
    private static func preferred(_ a: IIODeviceInfo, _ b: IIODeviceInfo) -> Bool {
        let pa = a.placement, pb = b.placement
        if pa.inBase != pb.inBase { return !pa.inBase }
        let explicitA = pa.evidence != nil, explicitB = pb.evidence != nil
        if explicitA != explicitB { return explicitA }
        if naturalSysnameOrder(a.sysname, b.sysname) != naturalSysnameOrder(b.sysname, a.sysname) {
            return naturalSysnameOrder(a.sysname, b.sysname)
        }
        return a.syspath < b.syspath
    }
}

/// Natural order: digit runs compare by number (`iio:device2` < `iio:device10`),
/// the rest by Unicode scalar.
func naturalSysnameOrder(_ a: String, _ b: String) -> Bool {
    var i = a.unicodeScalars.makeIterator(), j = b.unicodeScalars.makeIterator()
    var x = i.next(), y = j.next()
    func isDigit(_ s: Unicode.Scalar?) -> Bool { s.map { $0 >= "0" && $0 <= "9" } ?? false }
    while let cx = x, let cy = y {
        if isDigit(cx), isDigit(cy) {
            var runA: [Unicode.Scalar] = [], runB: [Unicode.Scalar] = []
            while let d = x, isDigit(d) { runA.append(d); x = i.next() }
            while let d = y, isDigit(d) { runB.append(d); y = j.next() }
            let trimmedA = runA.drop { $0 == "0" }, trimmedB = runB.drop { $0 == "0" }
            if trimmedA.count != trimmedB.count { return trimmedA.count < trimmedB.count }
            for (da, db) in zip(trimmedA, trimmedB) where da != db { return da < db }
            if runA.count != runB.count { return runA.count < runB.count }
        } else {
            if cx != cy { return cx < cy }
            x = i.next(); y = j.next()
        }
    }
    return x == nil && y != nil
}
