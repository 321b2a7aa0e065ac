/// A set of cardinal orientations: what a constraint allows.
///
/// Written in the protocol and the config as a list of names: the four
/// orientation names, `portrait` and `landscape` (resolved against the natural
/// geometry), `all`, and `all-but-upside-down`. Unknown names are errors.
///
/// ```swift
/// let mask = try OrientationMask(names: ["landscape"], natural: .landscape)
/// mask.contains(.normal) // true on a landscape-native tablet
/// ```
public struct OrientationMask: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0b1111 }

    public static let normal = OrientationMask(rawValue: 1 << 0)
    public static let leftUp = OrientationMask(rawValue: 1 << 1)
    public static let bottomUp = OrientationMask(rawValue: 1 << 2)
    public static let rightUp = OrientationMask(rawValue: 1 << 3)
    public static let all: OrientationMask = [.normal, .leftUp, .bottomUp, .rightUp]
    public static let allButUpsideDown: OrientationMask = [.normal, .leftUp, .rightUp]

    /// The mask holding just `orientation` (empty for `undefined`).
    public init(_ orientation: Orientation) {
        guard let turns = orientation.quarterTurns else {
            self.init(rawValue: 0)
            return
        }
        self.init(rawValue: 1 << UInt8(turns))
    }

    /// The orientations shown portrait-shaped on a panel of `geometry`.
    public static func portrait(natural geometry: NaturalGeometry) -> OrientationMask {
        geometry == .portrait ? [.normal, .bottomUp] : [.leftUp, .rightUp]
    }

    /// The orientations shown landscape-shaped on a panel of `geometry`.
    public static func landscape(natural geometry: NaturalGeometry) -> OrientationMask {
        geometry == .portrait ? [.leftUp, .rightUp] : [.normal, .bottomUp]
    }

    /// Whether `orientation` is in the mask (`undefined` never is).
    public func contains(_ orientation: Orientation) -> Bool {
        guard orientation != .undefined else { return false }
        return contains(OrientationMask(orientation))
    }

    /// The member orientations in quarter-turn order (normal, left-up, bottom-up, right-up).
    public var orientations: [Orientation] { Orientation.cardinal.filter { contains($0) } }

    /// Resolves one mask name; throws `MaskError.unknownName` for anything unknown.
    public init(name: some StringProtocol, natural geometry: NaturalGeometry) throws(MaskError) {
        switch name {
        case "all": self = .all
        case "all-but-upside-down": self = .allButUpsideDown
        case "portrait": self = .portrait(natural: geometry)
        case "landscape": self = .landscape(natural: geometry)
        default:
            guard let orientation = Orientation(name: name), orientation != .undefined else {
                throw MaskError.unknownName(String(name))
            }
            self.init(orientation)
        }
    }

    /// The union of a list of mask names. An empty list is an error (it would allow nothing).
    public init(names: some Sequence<some StringProtocol>, natural geometry: NaturalGeometry) throws(MaskError) {
        var mask: OrientationMask = []
        var any = false
        for name in names {
            any = true
            mask.formUnion(try OrientationMask(name: name, natural: geometry))
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
