/// A pointer device in `xinput list --long`, with what kind it is.
public struct XInputDevice: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Direct touch (`Touch mode: direct`): follows the panel.
        case touchscreen
        /// An absolute valuator labelled `Abs Pressure`: follows the panel.
        case pen
        /// Dependent touch (`Touch mode: dependent`).
        case touchpad
        /// Mice, trackpoints, XTEST devices.
        case other
    }

    /// The X input device id (what `xinput` is given: names repeat, e.g. a
    /// touchscreen and its stylus).
    public var id: Int
    public var name: String
    public var kind: Kind

    public init(id: Int, name: String, kind: Kind) {
        self.id = id
        self.name = name
        self.kind = kind
    }

    /// The slave pointers in `xinput list --long`'s output, in order.
    public static func pointers(inXInputList text: String) -> [XInputDevice] {
        var devices: [XInputDevice] = []
        var current: (device: XInputDevice, slavePointer: Bool)?
        var absolute = false
        var pressure = false
        var touch: String?

        func finish() {
            guard var device = current?.device, current?.slavePointer == true else { return }
            switch touch {
            case "direct": device.kind = .touchscreen
            case "dependent": device.kind = .touchpad
            default: device.kind = pressure && absolute ? .pen : .other
            }
            devices.append(device)
        }

        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let header = header(line) {
                finish()
                current = header
                (absolute, pressure, touch) = (false, false, nil)
                continue
            }
            let trimmed = line.trimmed([" ", "\t"])
            if trimmed.hasPrefix("Touch mode: ") { touch = String(trimmed.dropFirst("Touch mode: ".count)) }
            if trimmed == "Label: Abs Pressure" { pressure = true }
            if trimmed == "Mode: absolute" { absolute = true }
        }
        finish()
        return devices
    }

    /// The devices whose input must turn with the panel: touchscreens and pens.
    public static func touchAndPen(inXInputList text: String) -> [XInputDevice] {
        pointers(inXInputList: text).filter { $0.kind == .touchscreen || $0.kind == .pen }
    }

    /// A device's first line: `⎜   ↳ NAME<TAB>id=N<TAB>[slave  pointer  (2)]`.
    private static func header(_ line: Substring) -> (device: XInputDevice, slavePointer: Bool)? {
        guard let idRange = line.firstRange(of: "\tid=") else { return nil }
        let afterID = line[idRange.upperBound...]
        guard let id = Int(afterID.prefix { $0.isNumber }) else { return nil }
        let decoration: Set<Character> = ["⎡", "⎜", "⎣", "↳", " ", "\t"]
        let name = String(line[..<idRange.lowerBound].drop { decoration.contains($0) }).trimmed([" ", "\t"])
        let kind = afterID.drop { $0 != "[" }.split(separator: " ", omittingEmptySubsequences: true)
        return (XInputDevice(id: id, name: name, kind: .other), kind.first == "[slave" && kind.dropFirst().first == "pointer")
    }
}

extension StringProtocol {
    /// The text without leading and trailing characters in `set`.
    func trimmed(_ set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
