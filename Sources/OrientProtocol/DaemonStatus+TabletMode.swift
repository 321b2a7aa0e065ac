extension DaemonStatus {
    /// Tablet mode as `status` reports it (`tablet_mode`): the mode, the
    /// source that decides it and why, and the auto-rotate policy in force.
    public struct TabletModeStatus: Sendable, Equatable {
        /// Where the mode comes from.
        public enum Source: String, Sendable, Hashable, CaseIterable {
            /// The kernel's `SW_TABLET_MODE` switch.
            case `switch`
            /// The angle between the display's and the base's accelerometers.
            case hinge
            /// Neither: the mode is unknown.
            case none
        }

        /// The mode now.
        public var mode: TabletMode
        /// What decides it.
        public var source: Source
        /// The switch's or the base accelerometer's device (`event5`, `iio:device1`).
        public var device: String?
        /// Why this source, in words (what was found, what was not).
        public var reason: String
        /// The last hinge angle, degrees (the hinge source, once both
        /// accelerometers have read; nil while the hinge is near vertical).
        public var hingeAngle: Double?
        /// The auto-rotate policy in force.
        public var autoRotate: AutoRotate
        /// Why: `configured`, or the default and what it was chosen on.
        public var autoRotateReason: String
        /// orientd's own `SW_TABLET_MODE` switch (the hinge's decision for
        /// libinput): its event node, nil while there is none.
        public var uinputSwitch: String?
        /// What it shows, or why there is none.
        public var uinputSwitchReason: String

        public init(
            mode: TabletMode, source: Source, device: String? = nil, reason: String, hingeAngle: Double? = nil,
            autoRotate: AutoRotate, autoRotateReason: String, uinputSwitch: String? = nil, uinputSwitchReason: String = ""
        ) {
            self.uinputSwitch = uinputSwitch
            self.uinputSwitchReason = uinputSwitchReason
            self.mode = mode
            self.source = source
            self.device = device
            self.reason = reason
            self.hingeAngle = hingeAngle
            self.autoRotate = autoRotate
            self.autoRotateReason = autoRotateReason
        }

        var jsonValue: JSONValue {
            .object([
                JSONMember(key: "mode", value: .string(mode.rawValue)),
                JSONMember(key: "source", value: .string(source.rawValue)),
                JSONMember(key: "device", value: device.map { .string($0) } ?? .null),
                JSONMember(key: "reason", value: .string(reason)),
                JSONMember(key: "hinge_angle", value: hingeAngle.map { .number(($0 * 10).rounded() / 10) } ?? .null),
                JSONMember(key: "auto_rotate", value: .string(autoRotate.rawValue)),
                JSONMember(key: "auto_rotate_reason", value: .string(autoRotateReason)),
                JSONMember(key: "uinput_switch", value: uinputSwitch.map { .string($0) } ?? .null),
                JSONMember(key: "uinput_switch_reason", value: .string(uinputSwitchReason)),
            ])
        }
    }
}
