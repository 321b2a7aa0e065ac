/// A name an orientation mask is written with, in a constraint's `allow` list
/// and the config's `default-allowed`: the four orientation names and the four
/// names of SwiftUI's and UIKit's masks.
///
/// `portrait`, `landscape` and `all-but-upside-down` depend on the panel, so the
/// daemon resolves them (``OrientationMask/init(_:natural:portraitOnLandscape:)``);
/// an app sends the name and need not know the panel.
///
/// ```swift
/// let handle = try await client.constrain(id: "player", allow: [.landscape])
/// ```
public enum MaskName: String, Sendable, Hashable, CaseIterable {
    /// Just `normal`.
    case normal
    /// Just `left-up`.
    case leftUp = "left-up"
    /// Just `bottom-up`.
    case bottomUp = "bottom-up"
    /// Just `right-up`.
    case rightUp = "right-up"
    /// The one upright portrait orientation: `normal` on a portrait-native panel,
    /// `right-up` (or `left-up`, ``PortraitOnLandscape``) on a landscape-native one.
    case portrait
    /// Both landscape orientations.
    case landscape
    /// All four orientations.
    case all
    /// `portrait` ∪ `landscape`: all but the upside-down portrait orientation.
    case allButUpsideDown = "all-but-upside-down"
}

/// Which sideways orientation is the upright portrait one on a landscape-native
/// panel, that is what the mask name `portrait` means there (config key
/// `portrait-on-landscape`, docs/configuration.md).
///
/// `right-up` by default: the panel's top edge on the left, as Windows'
/// "Portrait" on a tablet. A portrait-native panel's `portrait` is always `normal`.
public enum PortraitOnLandscape: String, Sendable, Hashable, CaseIterable {
    /// The right edge up (the top edge on the left).
    case rightUp = "right-up"
    /// The left edge up (the top edge on the right).
    case leftUp = "left-up"

    /// The orientation it names.
    public var orientation: Orientation { self == .rightUp ? .rightUp : .leftUp }
}
