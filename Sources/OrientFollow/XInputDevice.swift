/// A touchscreen or pen found in `xinput list --long`.
public struct XInputDevice: Sendable, Equatable {
    /// The X input device id (what `xinput set-prop` is given: names repeat,
    /// e.g. a touchscreen and its stylus).
    public var id: Int
    public var name: String

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }

    /// The slave pointers that report absolute positions on the panel:
    /// direct touch (`Touch mode: direct`) or a pen (an absolute valuator
    /// labelled `Abs Pressure`). Touchpads (dependent touch, relative motion)
    /// and mice are left out.
    public static func touchAndPen(inXInputList text: String) -> [XInputDevice] {
        var devices: [XInputDevice] = []
        var current: (device: XInputDevice, slavePointer: Bool)?
        var absolute = false
        var pressure = false
        var direct = false

        func finish() {
            if let current, current.slavePointer, direct || (pressure && absolute) { devices.append(current.device) }
            absolute = false
            pressure = false
            direct = false
        }

        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let header = header(line) {
                finish()
                current = header
                continue
            }
            let trimmed = line.trimmed([" ", "\t"])
            if trimmed == "Touch mode: direct" { direct = true }
            if trimmed == "Label: Abs Pressure" { pressure = true }
            if trimmed == "Mode: absolute" { absolute = true }
        }
        finish()
        return devices
    }

    /// A device's first line: `⎜   ↳ NAME<TAB>id=N<TAB>[slave  pointer  (2)]`.
    private static func header(_ line: Substring) -> (device: XInputDevice, slavePointer: Bool)? {
        guard let idRange = line.firstRange(of: "\tid=") else { return nil }
        let afterID = line[idRange.upperBound...]
        guard let id = Int(afterID.prefix { $0.isNumber }) else { return nil }
        let decoration: Set<Character> = ["⎡", "⎜", "⎣", "↳", " ", "\t"]
        let name = String(line[..<idRange.lowerBound].drop { decoration.contains($0) }).trimmed([" ", "\t"])
        let kind = afterID.drop { $0 != "[" }.split(separator: " ", omittingEmptySubsequences: true)
        return (XInputDevice(id: id, name: name), kind.first == "[slave" && kind.dropFirst().first == "pointer")
    }
}

extension StringProtocol {
    /// The text without leading and trailing characters in `set`.
    func trimmed(_ set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
