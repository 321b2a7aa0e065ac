// fuzz-sensors: the sysfs texts of the sensors beside the accelerometer.
//
// Input: up to three texts separated by NUL bytes: a value, a scale and an
// offset (a missing part is an absent attribute).
// - LightChannel.level reads them for a raw channel (in_illuminance0_raw, with
//   its scale and offset) and for a processed one (in_illuminance_input);
// - HwmonLight.level reads the value as hwmon's `(a,b)`;
// - ProximityThreshold.nearLevel reads each text as a near level, and a
//   threshold at the first good one takes the others' levels as readings;
// - CompassHeading.degrees wraps the light levels read;
// - InputCapabilities.has reads the value as a capability bitmap.
//
// Invariants beyond "no crash":
// - a light level is finite, not below 0 and not -0; a processed value takes
//   no scale or offset (the raw channel without them gives the same level);
// - an error names one of the attributes read, and its description is short;
// - an hwmon level is in [0, 100], in the vendor's unit;
// - a near level is finite and above 0; a near decision means the reading was
//   at least the far threshold, a far one that it was below the near level;
// - a heading is in [0, 360) and not -0;
// - a capability bit is set only in a bitmap of hex words, and a bit past the
//   words given is never set.
import FuzzSupport
import OrientSensors

private let raw = LightChannel.find(in: ["in_illuminance0_raw", "in_illuminance0_scale", "in_illuminance0_offset"])
private let bare = LightChannel.find(in: ["in_illuminance0_raw"])
private let processed = LightChannel.find(in: ["in_illuminance_input", "in_illuminance_scale"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSensors(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    let parts = input.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    let value = parts.first ?? ""
    let scale = parts.count > 1 ? parts[1] : nil
    let offset = parts.count > 2 ? parts[2] : nil

    guard let raw, let bare, let processed else {
        fuzzCheck(false, "LightChannel.find missed a light channel")
        return 0
    }
    var levels: [Double] = []
    for (channel, texts) in [(raw, (scale, offset)), (bare, (nil, nil)), (processed, (scale, offset))] {
        do {
            let level = try channel.level(value: value, scale: texts.0, offset: texts.1)
            fuzzCheck(level.isFinite && level >= 0 && level.sign == .plus, "\(channel.value): level \(level)")
            levels.append(level)
        } catch {
            checkError(error, names: [channel.value, "in_illuminance0_scale", "in_illuminance0_offset"])
        }
    }
    let bareLevel = try? bare.level(value: value, scale: nil, offset: nil)
    let processedLevel = try? processed.level(value: value, scale: scale, offset: offset)
    fuzzCheck(bareLevel == processedLevel, "an _input value took a scale or offset: \(String(describing: processedLevel)) vs \(String(describing: bareLevel))")

    do {
        let level = try HwmonLight.level(value)
        fuzzCheck(level.unit == .vendor && level.value >= 0 && level.value <= 100, "hwmon level \(level)")
    } catch {
        checkError(error, names: ["light"])
    }

    var threshold: ProximityThreshold?
    for text in parts {
        do {
            let near = try ProximityThreshold.nearLevel(text, from: "in_proximity_nearlevel")
            fuzzCheck(near.isFinite && near > 0, "near level \(near)")
            if threshold == nil {
                threshold = ProximityThreshold(nearLevel: near)
            } else if var current = threshold {
                let decision = current.update(raw: near)
                fuzzCheck(decision ? near >= current.farBelow : near < current.nearLevel, "near \(decision) at \(near), level \(current.nearLevel)")
                threshold = current
            }
        } catch {
            checkError(error, names: ["in_proximity_nearlevel"])
        }
    }

    let words = value.split(separator: " ")
    for bit in [0, 11, 63, 64, 127, 1000] {
        let set = InputCapabilities.has(bit: bit, in: value)
        if set {
            fuzzCheck(bit / 64 < words.count, "bit \(bit) set past the \(words.count) words of '\(shown(value))'")
        }
    }

    for level in levels {
        guard let heading = CompassHeading.degrees(raw: level, scale: 1, offset: -180) else { continue }
        fuzzCheck(heading >= 0 && heading < 360 && heading.sign == .plus, "heading \(heading)")
    }
    return 0
}

private func checkError(_ error: AttributeError, names: [String]) {
    fuzzCheck(names.contains(error.attribute), "an error about '\(shown(error.attribute))', not an attribute read")
    fuzzCheck(error.description.utf8.count < 400 && !error.message.isEmpty, "error: \(shown(error.description))")
}
