import Testing

@testable import OrientProtocol

/// SPEC §3: orientation and tilt names, masks, rotation degrees, layout and axis,
/// and the quarter-turn arithmetic the arbiter relies on.
@Suite("Orientation model")
struct OrientationModelTests {
    // MARK: Names

    @Test(
        "every orientation has its iio-sensor-proxy name and parses back from it",
        arguments: [
            (Orientation.undefined, "undefined"), (.normal, "normal"), (.leftUp, "left-up"),
            (.bottomUp, "bottom-up"), (.rightUp, "right-up"),
        ])
    func orientationNames(orientation: Orientation, name: String) {
        #expect(orientation.rawValue == name)
        #expect(Orientation(name: name) == orientation)
        #expect(Orientation(name: name[...]) == orientation, "a Substring parses too")
    }

    @Test("the orientation name table covers every case")
    func orientationNamesCoverEveryCase() {
        #expect(Orientation.allCases.count == 5)
        #expect(Set(Orientation.allCases.map(\.rawValue)).count == Orientation.allCases.count)
        #expect(Orientation.cardinal == [.normal, .leftUp, .bottomUp, .rightUp])
        #expect(Orientation.preference == [.normal, .leftUp, .rightUp, .bottomUp])
    }

    @Test(
        "every tilt has its iio-sensor-proxy name and parses back from it",
        arguments: [
            (Tilt.undefined, "undefined"), (.vertical, "vertical"), (.tiltedUp, "tilted-up"),
            (.tiltedDown, "tilted-down"), (.faceUp, "face-up"), (.faceDown, "face-down"),
        ])
    func tiltNames(tilt: Tilt, name: String) {
        #expect(tilt.rawValue == name)
        #expect(Tilt(rawValue: name) == tilt)
    }

    @Test("the tilt name table covers every case")
    func tiltNamesCoverEveryCase() {
        #expect(Tilt.allCases.count == 6)
        #expect(Set(Tilt.allCases.map(\.rawValue)).count == Tilt.allCases.count)
    }

    @Test(
        "orientation names are exact: case, spaces, underscores and look-alikes do not parse",
        arguments: ["Normal", " normal", "normal ", "left_up", "leftUp", "LEFT-UP", "", "nörmal", "left‐up", "right−up"])
    func orientationNamesAreExact(name: String) {
        #expect(Orientation(name: name) == nil)
    }

    // MARK: Mask errors

    /// Names that are not mask names; each must be rejected with a message that quotes it.
    static let badMaskNames: [String] = [
        "Normal", " normal", "normal ", "left_up", "leftUp", "", "undefined", "portrait,landscape",
        "all-but-upside", "nörmal", "ｎｏｒｍａｌ", "left‐up", "right−up", "縦", "🙃", "normal\u{0}",
    ]

    @Test("an unknown mask name is an error that names the bad value", arguments: badMaskNames)
    func unknownMaskName(name: String) {
        for geometry in NaturalGeometry.allCases {
            do {
                let mask = try OrientationMask(name: name, natural: geometry)
                Issue.record("'\(name)' was accepted as \(mask.names) on a \(geometry) panel")
            } catch {
                #expect(error == .unknownName(name))
                #expect(error.description.contains("'\(name)'"), "\(error.description)")
                #expect(error.description.contains("expected normal, left-up"), "the message lists the valid names")
            }
        }
    }

    @Test("an unknown name in a list is an error, never ignored, even after valid ones", arguments: badMaskNames)
    func unknownNameInList(name: String) {
        #expect(throws: MaskError.unknownName(name)) {
            try OrientationMask(names: ["normal", name, "left-up"], natural: .portrait)
        }
    }

    @Test("a 1 KiB mask name is reported truncated to 64 characters with an ellipsis")
    func longMaskNameIsTruncated() {
        let name = String(repeating: "x", count: 1024)
        do {
            _ = try OrientationMask(name: name, natural: .portrait)
            Issue.record("a 1 KiB name was accepted")
        } catch {
            #expect(error == .unknownName(name), "the error value keeps the whole name")
            let message = error.description
            #expect(message.contains("'" + String(repeating: "x", count: 64) + "…'"), "\(message)")
            #expect(!message.contains(String(repeating: "x", count: 65)))
            #expect(message.utf8.count < 250)
        }
    }

    @Test("a long non-ASCII mask name is truncated on a character boundary")
    func longNonASCIINameIsTruncated() {
        let name = String(repeating: "é", count: 100)
        let message = MaskError.unknownName(name).description
        #expect(message.contains("'" + String(repeating: "é", count: 64) + "…'"), "\(message)")
        #expect(!message.contains(String(repeating: "é", count: 65)))
    }

    @Test("a name of exactly 64 characters is shown whole, without an ellipsis")
    func sixtyFourCharacterNameIsWhole() {
        let name = String(repeating: "y", count: 64)
        let message = MaskError.unknownName(name).description
        #expect(message.contains("'\(name)'"))
        #expect(!message.contains("…"))
    }

    /// Truncation counts grapheme clusters, so a name made of one base letter and
    /// a thousand combining marks (1 character, 2 KiB) is shown whole.
    @Test("a 2 KiB mask name that is a single grapheme cluster is still truncated")
    func longSingleGraphemeNameIsTruncated() {
        let name = "e" + String(repeating: "\u{0301}", count: 1000)
        let message = MaskError.unknownName(name).description
        #expect(message.utf8.count < 512, "message is \(message.utf8.count) bytes")
    
    }

    @Test("an empty list of mask names is an error")
    func emptyMaskList() {
        #expect(throws: MaskError.empty) { try OrientationMask(names: [String](), natural: .portrait) }
        #expect(throws: MaskError.empty) { try OrientationMask(names: [Substring](), natural: .landscape) }
        #expect(MaskError.empty.description.contains("empty"))
    }

    // MARK: Mask names

    @Test(
        "mask names resolve against the natural geometry",
        arguments: [
            ("portrait", NaturalGeometry.portrait, .normal),
            ("portrait", .landscape, .rightUp),
            ("landscape", .portrait, [.leftUp, .rightUp]),
            ("landscape", .landscape, [.normal, .bottomUp]),
            ("all", .portrait, .all),
            ("all", .landscape, .all),
            ("all-but-upside-down", .portrait, [.normal, .leftUp, .rightUp]),
            ("all-but-upside-down", .landscape, [.normal, .bottomUp, .rightUp]),
            ("normal", .portrait, .normal), ("normal", .landscape, .normal),
            ("left-up", .portrait, .leftUp), ("left-up", .landscape, .leftUp),
            ("bottom-up", .portrait, .bottomUp), ("bottom-up", .landscape, .bottomUp),
            ("right-up", .portrait, .rightUp), ("right-up", .landscape, .rightUp),
        ] as [(String, NaturalGeometry, OrientationMask)])
    func maskNames(name: String, geometry: NaturalGeometry, expected: OrientationMask) throws {
        #expect(try OrientationMask(name: name, natural: geometry) == expected)
        #expect(try OrientationMask(names: [name], natural: geometry) == expected)
    }

    @Test(
        "a list of mask names is the union of its members",
        arguments: [
            (["normal", "left-up"], NaturalGeometry.portrait, [.normal, .leftUp]),
            (["portrait", "landscape"], .portrait, [.normal, .leftUp, .rightUp]),
            (["portrait", "landscape"], .landscape, [.normal, .bottomUp, .rightUp]),
            (["landscape", "normal"], .portrait, [.normal, .leftUp, .rightUp]),
            (["portrait", "bottom-up"], .landscape, [.bottomUp, .rightUp]),
            (["portrait", "bottom-up"], .portrait, [.normal, .bottomUp]),
            (["normal", "normal"], .portrait, .normal),
            (["all-but-upside-down", "bottom-up"], .portrait, .all),
            (["all-but-upside-down", "left-up"], .landscape, .all),
            (["left-up", "right-up", "bottom-up"], .portrait, [.leftUp, .bottomUp, .rightUp]),
            (["all", "portrait"], .portrait, .all),
        ] as [([String], NaturalGeometry, OrientationMask)])
    func maskUnion(names: [String], geometry: NaturalGeometry, expected: OrientationMask) throws {
        #expect(try OrientationMask(names: names, natural: geometry) == expected)
        #expect(try OrientationMask(names: names.reversed(), natural: geometry) == expected, "order does not matter")
    }

    @Test("mask names can come from substrings of a comma-separated list")
    func maskNamesFromSubstrings() throws {
        let names = "normal,landscape".split(separator: ",")
        #expect(try OrientationMask(names: names, natural: .portrait) == [.normal, .leftUp, .rightUp])
    }

    @Test("a mask lists its members in quarter-turn order and never contains undefined")
    func maskMembers() {
        #expect(OrientationMask.all.names == ["normal", "left-up", "bottom-up", "right-up"])
        #expect(OrientationMask([.rightUp, .normal]).orientations == [.normal, .rightUp])
        #expect(OrientationMask(Orientation.undefined).isEmpty)
        #expect(!OrientationMask.all.contains(Orientation.undefined))
        #expect(OrientationMask(rawValue: 0xFF) == .all, "bits above the four orientations are dropped")
        for orientation in Orientation.cardinal {
            #expect(OrientationMask(orientation).orientations == [orientation])
        }
    }

    // MARK: Rotation, layout, axis

    @Test(
        "rotation is the degrees counter-clockwise the content turns",
        arguments: [
            (Orientation.normal, 0), (.leftUp, 90), (.bottomUp, 180), (.rightUp, 270), (.undefined, 0),
        ])
    func rotationDegrees(orientation: Orientation, degrees: Int) {
        #expect(orientation.rotation == degrees)
    }

    @Test(
        "layout and axis follow the orientation and the natural geometry",
        arguments: [
            (Orientation.normal, NaturalGeometry.portrait, Layout.portrait, Axis.vertical),
            (.leftUp, .portrait, .landscape, .horizontal),
            (.bottomUp, .portrait, .portrait, .vertical),
            (.rightUp, .portrait, .landscape, .horizontal),
            (.undefined, .portrait, .portrait, .vertical),
            (.normal, .landscape, .landscape, .horizontal),
            (.leftUp, .landscape, .portrait, .vertical),
            (.bottomUp, .landscape, .landscape, .horizontal),
            (.rightUp, .landscape, .portrait, .vertical),
            (.undefined, .landscape, .landscape, .horizontal),
        ])
    func layoutAndAxis(orientation: Orientation, geometry: NaturalGeometry, layout: Layout, axis: Axis) {
        let actual = Layout(orientation: orientation, natural: geometry)
        #expect(actual == layout)
        #expect(actual.axis == axis)
    }

    // MARK: Quarter turns

    @Test(
        "quarter-turn distance is symmetric and at most two",
        arguments: [
            (Orientation.normal, Orientation.normal, 0), (.normal, .leftUp, 1), (.normal, .bottomUp, 2),
            (.normal, .rightUp, 1), (.leftUp, .leftUp, 0), (.leftUp, .bottomUp, 1), (.leftUp, .rightUp, 2),
            (.bottomUp, .bottomUp, 0), (.bottomUp, .rightUp, 1), (.rightUp, .rightUp, 0),
        ])
    func quarterTurnDistance(a: Orientation, b: Orientation, distance: Int) {
        #expect(a.quarterTurnDistance(to: b) == distance)
        #expect(b.quarterTurnDistance(to: a) == distance)
    }

    @Test("quarter-turn distance involving undefined is nil", arguments: Orientation.allCases)
    func quarterTurnDistanceUndefined(other: Orientation) {
        #expect(Orientation.undefined.quarterTurnDistance(to: other) == nil)
        #expect(other.quarterTurnDistance(to: .undefined) == nil)
    }

    @Test(
        "an orientation from any number of quarter turns, negative or large, wraps modulo four",
        arguments: [
            (0, Orientation.normal), (1, .leftUp), (2, .bottomUp), (3, .rightUp), (4, .normal), (5, .leftUp),
            (7, .rightUp), (-1, .rightUp), (-2, .bottomUp), (-3, .leftUp), (-4, .normal), (-5, .rightUp),
            (400_000_001, .leftUp), (-400_000_001, .rightUp), (Int.max, .rightUp), (Int.min, .normal),
            (Int.min + 1, .leftUp), (Int.max - 1, .bottomUp),
        ])
    func quarterTurnsInit(turns: Int, orientation: Orientation) {
        #expect(Orientation(quarterTurns: turns) == orientation)
    }

    @Test("quarter turns round-trip for every cardinal orientation", arguments: Orientation.cardinal)
    func quarterTurnsRoundTrip(orientation: Orientation) throws {
        let turns = try #require(orientation.quarterTurns)
        #expect((0...3).contains(turns))
        #expect(Orientation(quarterTurns: turns) == orientation)
        #expect(Orientation(quarterTurns: turns + 8) == orientation)
        #expect(Orientation(quarterTurns: turns - 12) == orientation)
        #expect(orientation.rotation == turns * 90)
        #expect(Orientation.undefined.quarterTurns == nil)
    }
}
