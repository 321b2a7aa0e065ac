import Foundation
import Testing

@testable import OrientProtocol

/// docs/protocol.md: the `state` message, byte for byte, and the millisecond formatting
/// its `t_ms` uses.
@Suite("State message")
struct StateMessageTests {
    /// The state of the docs/protocol.md example.
    static let specExample = StateMessage(
        orientation: .leftUp, physical: .leftUp, tilt: .vertical, rotation: 90, layout: .landscape,
        axis: .horizontal, allowed: .allButUpsideDown(natural: .portrait), locked: nil, sensor: .active, tMs: 1234.5)

    /// The docs/protocol.md example line, verbatim.
    static let specLine =
        #"{"type":"state","orientation":"left-up","physical":"left-up","tilt":"vertical","rotation":90,"layout":"landscape","axis":"horizontal","allowed":["normal","left-up","right-up"],"locked":null,"sensor":"active","tablet_mode":"unknown","auto_rotate":"always","t_ms":1234.5}"#

    /// Parses one JSON line into an object, failing the test if it is not one.
    static func parse(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any], sourceLocation: sourceLocation)
    }

    // MARK: The JSON line

    @Test("the state line matches the docs/protocol.md example byte for byte")
    func specExampleLine() {
        let line = Self.specExample.json()
        #expect(line == Self.specLine)
        #expect(Array(line.utf8) == Array(Self.specLine.utf8))
        #expect(!line.contains("\n"), "the line has no trailing newline; the writer adds it")
    }

    @Test("seq goes right after type", arguments: [Int64(0), 7, -3, Int64.max, Int64.min])
    func withSeq(seq: Int64) throws {
        let line = Self.specExample.json(seq: seq)
        let expected = Self.specLine.replacingOccurrences(
            of: #"{"type":"state","#, with: #"{"type":"state","seq":\#(seq),"#)
        #expect(line == expected)
        let object = try Self.parse(line)
        #expect((object["seq"] as? NSNumber)?.int64Value == seq)
    }

    @Test("a locked state names the lock and still shows the physical orientation")
    func withLock() {
        let state = StateMessage(
            orientation: .normal, physical: .leftUp, tilt: .tiltedUp, rotation: 0, layout: .portrait,
            axis: .vertical, allowed: .all, locked: .normal, sensor: .active, tMs: 20)
        #expect(
            state.json()
                == #"{"type":"state","orientation":"normal","physical":"left-up","tilt":"tilted-up","rotation":0,"layout":"portrait","axis":"vertical","allowed":["normal","left-up","bottom-up","right-up"],"locked":"normal","sensor":"active","tablet_mode":"unknown","auto_rotate":"always","t_ms":20}"#
        )
    }

    @Test(
        "the allowed list holds exactly the members, in quarter-turn order",
        arguments: [
            (OrientationMask(), #""allowed":[]"#),
            (.bottomUp, #""allowed":["bottom-up"]"#),
            ([.rightUp, .normal], #""allowed":["normal","right-up"]"#),
            (.all, #""allowed":["normal","left-up","bottom-up","right-up"]"#),
        ] as [(OrientationMask, String)])
    func allowedList(allowed: OrientationMask, fragment: String) throws {
        var state = Self.specExample
        state.allowed = allowed
        let line = state.json()
        #expect(line.contains(fragment + #","locked""#), "\(line)")
        let object = try Self.parse(line)
        #expect(object["allowed"] as? [String] == allowed.names)
    }

    @Test("the startup state, before any classification, is a valid line")
    func startupState() throws {
        let state = StateMessage(
            orientation: .normal, physical: .undefined, tilt: .undefined, rotation: 0, layout: .portrait,
            axis: .vertical, allowed: .all, locked: nil, sensor: .idle, tMs: 0)
        #expect(
            state.json()
                == #"{"type":"state","orientation":"normal","physical":"undefined","tilt":"undefined","rotation":0,"layout":"portrait","axis":"vertical","allowed":["normal","left-up","bottom-up","right-up"],"locked":null,"sensor":"idle","tablet_mode":"unknown","auto_rotate":"always","t_ms":0}"#
        )
    }

    @Test("the line parses with JSONSerialization into the state's values")
    func parsesWithFoundation() throws {
        let object = try Self.parse(Self.specExample.json(seq: 12))
        #expect(
            Set(object.keys)
                == [
                    "type", "seq", "orientation", "physical", "tilt", "rotation", "layout", "axis", "allowed", "locked",
                    "sensor", "tablet_mode", "auto_rotate", "t_ms",
                ])
        #expect(object["type"] as? String == "state")
        #expect(object["orientation"] as? String == "left-up")
        #expect(object["physical"] as? String == "left-up")
        #expect(object["tilt"] as? String == "vertical")
        #expect((object["rotation"] as? NSNumber)?.intValue == 90)
        #expect(object["layout"] as? String == "landscape")
        #expect(object["axis"] as? String == "horizontal")
        #expect(object["allowed"] as? [String] == ["normal", "left-up", "right-up"])
        #expect(object["locked"] is NSNull)
        #expect(object["sensor"] as? String == "active")
        #expect((object["t_ms"] as? NSNumber)?.doubleValue == 1234.5)
    }

    @Test("every combination of names gives a line that parses", arguments: SensorStatus.allCases)
    func everyNameParses(sensor: SensorStatus) throws {
        for orientation in Orientation.allCases {
            for tilt in Tilt.allCases {
                let lock: Orientation? = orientation == .undefined ? nil : orientation
                let state = StateMessage(
                    orientation: orientation, physical: orientation, tilt: tilt, rotation: orientation.rotation,
                    layout: .landscape, axis: .horizontal, allowed: .all, locked: lock, sensor: sensor, tMs: -0.25)
                let object = try Self.parse(state.json())
                #expect(object["physical"] as? String == orientation.rawValue)
                #expect(object["tilt"] as? String == tilt.rawValue)
                #expect(object["sensor"] as? String == sensor.rawValue)
                #expect((object["locked"] as? String) == lock?.rawValue)
            }
        }
    }

    // MARK: Milliseconds

    @Test(
        "milliseconds print with at most three decimals, no trailing zeros, integers bare",
        arguments: [
            (0.0, "0"), (1234.5, "1234.5"), (1000, "1000"), (0.001, "0.001"), (0.0004, "0"), (-1.5, "-1.5"),
            (1e12, "1000000000000"), (123.4567, "123.457"), (Double.nan, "0"), (Double.infinity, "0"),
            (-Double.infinity, "0"), (-0.0, "0"), (-0.25, "-0.25"), (-0.001, "-0.001"), (-0.0004, "0"),
            (0.1, "0.1"), (0.12, "0.12"), (2.05, "2.05"), (1e13, "10000000000000"), (-1234.5, "-1234.5"),
            (999.9996, "1000"), (42.0001, "42"),
        ])
    func formatMillisecondsTable(value: Double, text: String) throws {
        #expect(formatMilliseconds(value) == text)
        // Every output is a JSON number that reads back as the rounded value.
        let object = try Self.parse(#"{"t":\#(formatMilliseconds(value))}"#)
        let parsed = try #require((object["t"] as? NSNumber)?.doubleValue)
        #expect(parsed == Double(text))
    }

    @Test("huge and tiny finite times still give valid JSON numbers", arguments: [1e300, -1e300, 9e12, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude])
    func extremeTimes(value: Double) throws {
        var state = Self.specExample
        state.tMs = value
        let object = try Self.parse(state.json())
        #expect(object["t_ms"] is NSNumber)
    }

    // MARK: sameContent

    /// One field of a state message other than the time.
    enum Field: String, CaseIterable, Sendable {
        case orientation, physical, tilt, rotation, layout, axis, allowed, locked, sensor

        func changed(_ state: StateMessage) -> StateMessage {
            var s = state
            switch self {
            case .orientation: s.orientation = .bottomUp
            case .physical: s.physical = .undefined
            case .tilt: s.tilt = .faceUp
            case .rotation: s.rotation = 270
            case .layout: s.layout = .portrait
            case .axis: s.axis = .vertical
            case .allowed: s.allowed = .all
            case .locked: s.locked = .leftUp
            case .sensor: s.sensor = .mock
            }
            return s
        }
    }

    @Test("sameContent ignores t_ms")
    func sameContentIgnoresTime() {
        var later = Self.specExample
        later.tMs = 99_999.25
        #expect(Self.specExample.sameContent(as: later))
        #expect(later.sameContent(as: Self.specExample))
        #expect(Self.specExample.sameContent(as: Self.specExample))
        #expect(later != Self.specExample, "== still sees the time")
    }

    @Test("sameContent sees every other field", arguments: Field.allCases)
    func sameContentSeesField(field: Field) {
        let changed = field.changed(Self.specExample)
        #expect(changed != Self.specExample, "the table changes \(field)")
        #expect(!Self.specExample.sameContent(as: changed))
        #expect(!changed.sameContent(as: Self.specExample))
        var changedLater = changed
        changedLater.tMs += 500
        #expect(!Self.specExample.sameContent(as: changedLater))
    }

    @Test("sameContent ignores t_ms even when t_ms is not a number")
    func sameContentWithNaNTime() {
        var state = Self.specExample
        state.tMs = .nan
        #expect(state.sameContent(as: state))
        #expect(state.sameContent(as: Self.specExample))
    
        // The other direction works: the NaN is overwritten by a finite time.
        #expect(Self.specExample.sameContent(as: state))
    }
}
