public import OrientProtocol

extension StateMessage {
    /// One line for people and logs:
    /// `left-up (physical left-up, tilt vertical, rotation 90, landscape, allowed normal,left-up,right-up, unlocked, sensor active)`.
    ///
    /// ```swift
    /// print(try await client.get().summary)
    /// ```
    ///
    /// A lock shows as `locked left-up`; an empty allowed set as `allowed none`.
    /// The tablet mode and the auto-rotate policy follow where they say
    /// something (`…, sensor active, laptop mode, auto-rotate tablet-mode)`):
    /// not for `always` without a tablet-mode source.
    public var summary: String {
        let allowedText = allowed.isEmpty ? "none" : allowed.names.joined(separator: ",")
        let lockText = locked.map { "locked \($0.rawValue)" } ?? "unlocked"
        return "\(orientation.rawValue) (physical \(physical.rawValue), tilt \(tilt.rawValue), rotation \(rotation), "
            + "\(layout.rawValue), allowed \(allowedText), \(lockText), sensor \(sensor.rawValue)\(modeText))"
    }

    private var modeText: String {
        guard tabletMode != .unknown || autoRotate != .always else { return "" }
        let mode = tabletMode == .unknown ? "mode unknown" : "\(tabletMode.rawValue) mode"
        return ", \(mode), auto-rotate \(autoRotate.rawValue)"
    }
}
