import Foundation

/// One `state` line as `--print` writes it, checked against docs/protocol.md.
///
/// `init(parsing:)` decodes the line with JSONSerialization and checks the raw
/// text too: the keys in the documented order (docs/protocol.md), nothing more, nothing less.
struct StateLine: Equatable, CustomStringConvertible {
    /// The keys of a state message, in the order docs/protocol.md writes them.
    static let keyOrder = [
        "type", "orientation", "physical", "tilt", "rotation", "layout", "axis", "allowed", "locked", "sensor", "tablet_mode", "auto_rotate", "t_ms",
    ]
    /// The four orientations, in quarter-turn order (the order of `allowed`).
    static let orientations = ["normal", "left-up", "bottom-up", "right-up"]
    static let tilts = ["vertical", "tilted-up", "tilted-down", "face-up", "face-down"]
    static let rotations = ["normal": 0, "left-up": 90, "bottom-up": 180, "right-up": 270]

    let raw: String
    let orientation: String
    let physical: String
    let tilt: String
    let rotation: Int
    let layout: String
    let axis: String
    let allowed: [String]
    let locked: String?
    let sensor: String
    let tMs: Double

    /// Everything but the time: two states with the same content are one state.
    var content: String {
        guard let range = raw.range(of: ",\"t_ms\":") else { return raw }
        return String(raw[..<range.lowerBound])
    }

    var description: String { raw }

    /// Parses and checks one line; throws a message naming what is wrong.
    init(parsing raw: String) throws {
        func fail(_ message: String) -> StateLineError { StateLineError(message: "\(message) in \(raw)") }
        self.raw = raw
        guard raw.utf8.count <= 4096 else { throw fail("line longer than 4096 bytes") }
        guard raw.first == "{", raw.last == "}" else { throw fail("not a single JSON object on one line") }
        let keys = topLevelKeys(raw)
        guard keys == StateLine.keyOrder else {
            throw fail("keys \(keys) are not exactly \(StateLine.keyOrder) in that order")
        }
        let object: [String: Any]
        do {
            guard let decoded = try JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any] else {
                throw fail("not a JSON object")
            }
            object = decoded
        } catch let error as StateLineError {
            throw error
        } catch {
            throw fail("invalid JSON (\(error))")
        }
        guard object["type"] as? String == "state" else { throw fail("type is not \"state\"") }

        guard let orientation = object["orientation"] as? String, StateLine.orientations.contains(orientation) else {
            throw fail("orientation is not one of \(StateLine.orientations)")
        }
        guard let physical = object["physical"] as? String,
            StateLine.orientations.contains(physical) || physical == "undefined"
        else { throw fail("physical is not an orientation or undefined") }
        // docs/behaviour.md lists five tilts; before the first reading there is no tilt to
        // report, so `undefined` is accepted then (and only while physical is undefined).
        guard let tilt = object["tilt"] as? String,
            StateLine.tilts.contains(tilt) || (tilt == "undefined" && physical == "undefined")
        else { throw fail("tilt is not one of \(StateLine.tilts)") }
        guard let rotation = object["rotation"] as? Int, raw.contains("\"rotation\":\(rotation),") else {
            throw fail("rotation is not an integer")
        }
        guard rotation == StateLine.rotations[orientation] else {
            throw fail("rotation \(rotation) does not match orientation \(orientation)")
        }
        guard let layout = object["layout"] as? String, layout == "portrait" || layout == "landscape" else {
            throw fail("layout is not portrait or landscape")
        }
        guard let axis = object["axis"] as? String, axis == (layout == "portrait" ? "vertical" : "horizontal") else {
            throw fail("axis does not match layout \(layout)")
        }
        guard let allowed = object["allowed"] as? [String], !allowed.isEmpty,
            allowed == StateLine.orientations.filter(allowed.contains), Set(allowed).count == allowed.count
        else { throw fail("allowed is not a non-empty list of orientations in quarter-turn order") }
        guard allowed.contains(orientation) else { throw fail("orientation \(orientation) is not allowed") }
        let locked: String?
        if object["locked"] is NSNull {
            locked = nil
        } else if let name = object["locked"] as? String, StateLine.orientations.contains(name) {
            locked = name
        } else {
            throw fail("locked is neither null nor an orientation")
        }
        guard let sensor = object["sensor"] as? String, ["active", "idle", "absent", "mock"].contains(sensor) else {
            throw fail("sensor is not active, idle, absent or mock")
        }
        guard let tMs = (object["t_ms"] as? NSNumber)?.doubleValue, tMs.isFinite else {
            throw fail("t_ms is not a finite number")
        }
        self.orientation = orientation
        self.physical = physical
        self.tilt = tilt
        self.rotation = rotation
        self.layout = layout
        self.axis = axis
        self.allowed = allowed
        self.locked = locked
        self.sensor = sensor
        self.tMs = tMs
    }

    /// Parses every line.
    static func parseAll(_ lines: [String]) throws -> [StateLine] {
        try lines.map(StateLine.init(parsing:))
    }
}

struct StateLineError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// What is wrong with a sequence of published states, as a list of sentences
/// (empty when nothing is): time runs backwards, a state repeats its predecessor,
/// `physical` falls back to `undefined`, or the layout of an orientation changes.
func sequenceProblems(_ states: [StateLine]) -> [String] {
    var problems: [String] = []
    for (previous, next) in zip(states, states.dropFirst()) {
        if next.tMs < previous.tMs { problems.append("t_ms goes backwards: \(previous.tMs) then \(next.tMs)") }
        if next.content == previous.content { problems.append("a state is published twice: \(next.raw)") }
        if previous.physical != "undefined", next.physical == "undefined" {
            problems.append("physical falls back to undefined at t_ms \(next.tMs)")
        }
    }
    // normal and bottom-up share one layout, left-up and right-up the other.
    let upright = Set(states.filter { ["normal", "bottom-up"].contains($0.orientation) }.map(\.layout))
    let sideways = Set(states.filter { ["left-up", "right-up"].contains($0.orientation) }.map(\.layout))
    if upright.count > 1 || sideways.count > 1 || (!upright.isEmpty && upright == sideways) {
        problems.append("layouts are inconsistent: normal/bottom-up \(upright.sorted()), left-up/right-up \(sideways.sorted())")
    }
    return problems
}

/// Physical orientations in order of appearance, repeats and `undefined` dropped.
func physicalSequence(_ states: [StateLine]) -> [String] {
    var sequence: [String] = []
    for state in states where state.physical != "undefined" && state.physical != sequence.last {
        sequence.append(state.physical)
    }
    return sequence
}

/// The top-level keys of a one-line JSON object, in order of appearance.
private func topLevelKeys(_ text: String) -> [String] {
    var keys: [String] = []
    var depth = 0
    var expectKey = false
    var inString = false
    var escaped = false
    var current: [UInt8] = []
    for byte in text.utf8 {
        if inString {
            if escaped {
                escaped = false
                current.append(byte)
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
                current.append(byte)
            } else if byte == UInt8(ascii: "\"") {
                inString = false
                if depth == 1, expectKey {
                    keys.append(String(decoding: current, as: UTF8.self))
                    expectKey = false
                }
            } else {
                current.append(byte)
            }
            continue
        }
        switch byte {
        case UInt8(ascii: "\""):
            inString = true
            current = []
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
            if depth == 1 { expectKey = true }
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
        case UInt8(ascii: ","):
            if depth == 1 { expectKey = true }
        default:
            break
        }
    }
    return keys
}
