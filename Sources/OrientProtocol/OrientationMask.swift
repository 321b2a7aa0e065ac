/// A set of cardinal orientations: what a constraint allows.
///
/// Written in the protocol and the config as a list of names: the four
/// orientation names and the four names of SwiftUI's and UIKit's masks, which
/// resolve against the panel (see ``MaskName``):
///
/// | name | portrait-native panel | landscape-native panel |
/// |---|---|---|
/// | `portrait` | `normal` | `right-up` (or `left-up`, ``PortraitOnLandscape``) |
/// | `landscape` | `left-up`, `right-up` | `normal`, `bottom-up` |
/// | `all-but-upside-down` | `portrait` ∪ `landscape` | `portrait` ∪ `landscape` |
/// | `all` | all four | all four |
///
/// Unknown names are errors.
///
/// ```swift
/// let mask = try OrientationMask(names: ["landscape"], natural: .landscape)
/// mask.contains(.normal) // true on a landscape-native tablet
/// ```
public struct OrientationMask: OptionSet, Sendable, Hashable {
    /// Bit *n* set: the orientation *n* quarter turns from `normal` is in the mask.
    public let rawValue: UInt8
    /// The mask with the bits of `rawValue` (bit *n* is the orientation *n*
    /// quarter turns from `normal`); bits above the fourth are dropped.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0b1111 }

    /// Just `normal`.
    public static let normal = OrientationMask(rawValue: 1 << 0)
    /// Just `left-up`.
    public static let leftUp = OrientationMask(rawValue: 1 << 1)
    /// Just `bottom-up`.
    public static let bottomUp = OrientationMask(rawValue: 1 << 2)
    /// Just `right-up`.
    public static let rightUp = OrientationMask(rawValue: 1 << 3)
    /// All four orientations, upside down included (the name `all`).
    public static let all: OrientationMask = [.normal, .leftUp, .bottomUp, .rightUp]

    /// The mask holding just `orientation` (empty for `undefined`).
    public init(_ orientation: Orientation) {
        guard let turns = orientation.quarterTurns else {
            self.init(rawValue: 0)
            return
        }
        self.init(rawValue: 1 << UInt8(turns))
    }

    /// The one upright portrait orientation (the name `portrait`): `normal` on a
    /// portrait-native panel; on a landscape-native panel the sideways
    /// orientation `side` names (right-up unless configured). Upside-down
    /// portrait is never part of it.
    public static func portrait(natural geometry: NaturalGeometry, portraitOnLandscape side: PortraitOnLandscape = .rightUp) -> OrientationMask {
        geometry == .portrait ? .normal : OrientationMask(side.orientation)
    }

    /// Both landscape orientations (the name `landscape`): `left-up` and
    /// `right-up` on a portrait-native panel, `normal` and `bottom-up` on a
    /// landscape-native one.
    public static func landscape(natural geometry: NaturalGeometry) -> OrientationMask {
        geometry == .portrait ? [.leftUp, .rightUp] : [.normal, .bottomUp]
    }

    /// `portrait` ∪ `landscape` (the name `all-but-upside-down`): every
    /// orientation but the upside-down portrait one.
    ///
    /// ```swift
    /// OrientationMask.allButUpsideDown(natural: .portrait)   // normal, left-up, right-up
    /// OrientationMask.allButUpsideDown(natural: .landscape)  // normal, bottom-up, right-up
    /// ```
    public static func allButUpsideDown(natural geometry: NaturalGeometry, portraitOnLandscape side: PortraitOnLandscape = .rightUp) -> OrientationMask {
        portrait(natural: geometry, portraitOnLandscape: side).union(landscape(natural: geometry))
    }

    /// Whether `orientation` is in the mask (`undefined` never is).
    public func contains(_ orientation: Orientation) -> Bool {
        guard orientation != .undefined else { return false }
        return contains(OrientationMask(orientation))
    }

    /// The member orientations in quarter-turn order (normal, left-up, bottom-up, right-up).
    public var orientations: [Orientation] { Orientation.cardinal.filter { contains($0) } }

    /// Resolves one mask name against the panel; throws `MaskError.unknownName`
    /// for anything that is not a ``MaskName``.
    public init(name: some StringProtocol, natural geometry: NaturalGeometry, portraitOnLandscape side: PortraitOnLandscape = .rightUp) throws(MaskError) {
        guard let known = MaskName(rawValue: String(name)) else { throw MaskError.unknownName(String(name)) }
        self.init(known, natural: geometry, portraitOnLandscape: side)
    }

    /// Resolves one mask name against the panel.
    ///
    /// ```swift
    /// OrientationMask(.portrait, natural: .landscape)  // [.rightUp]
    /// ```
    public init(_ name: MaskName, natural geometry: NaturalGeometry, portraitOnLandscape side: PortraitOnLandscape = .rightUp) {
        switch name {
        case .normal: self = .normal
        case .leftUp: self = .leftUp
        case .bottomUp: self = .bottomUp
        case .rightUp: self = .rightUp
        case .portrait: self = .portrait(natural: geometry, portraitOnLandscape: side)
        case .landscape: self = .landscape(natural: geometry)
        case .allButUpsideDown: self = .allButUpsideDown(natural: geometry, portraitOnLandscape: side)
        case .all: self = .all
        }
    }

    /// The union of a list of mask names. An empty list is an error (it would allow nothing).
    public init(names: some Sequence<some StringProtocol>, natural geometry: NaturalGeometry, portraitOnLandscape side: PortraitOnLandscape = .rightUp) throws(MaskError) {
        var mask: OrientationMask = []
        var any = false
        for name in names {
            any = true
            mask.formUnion(try OrientationMask(name: name, natural: geometry, portraitOnLandscape: side))
        }
        guard any else { throw MaskError.empty }
        self = mask
    }

    /// The names of the members, in quarter-turn order, for the protocol's `allowed` list.
    public var names: [String] { orientations.map(\.rawValue) }
}

/// Why a mask could not be resolved.
public enum MaskError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A name that is none of the orientation names, `portrait`, `landscape`,
    /// `all` or `all-but-upside-down`.
    case unknownName(String)
    /// No names at all.
    case empty

    /// What is wrong, naming the bad value and the names that are accepted.
    public var description: String {
        switch self {
        case .unknownName(let name):
            let shown = name.unicodeScalars.count > 64 ? String(String.UnicodeScalarView(name.unicodeScalars.prefix(64))) + "…" : name
            return "unknown orientation mask name '\(shown)' (expected normal, left-up, bottom-up, right-up, portrait, landscape, all or all-but-upside-down)"
        case .empty:
            return "empty orientation mask (name at least one orientation)"
        }
    }
}
