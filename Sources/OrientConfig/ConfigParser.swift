import OrientProtocol
import OrientSense
import OrientDevices
import OrientAccess

/// Reads `/etc/orientd/orientd.conf` (docs/configuration.md) from bytes into a ``DaemonConfig``.
///
/// ```swift
/// let (config, warnings) = try ConfigParser.parse(bytes, file: "/etc/orientd/orientd.conf")
/// ```
///
/// The format, line by line (LF or CRLF; a UTF-8 byte order mark at the start is
/// skipped; blank lines are ignored):
/// - `# text` is a comment (leading spaces allowed).
/// - `[section]` starts a section: `classifier`, `orientation`, `sensor`,
///   `limits` or `daemon`. A section may be opened again; its keys still appear
///   once each.
/// - `key = value` sets a key of the current section; spaces around `=` are
///   optional. A `#` at the start of the value or after a space or tab starts a
///   trailing comment. Values are written without quotes. Keys are kebab-case
///   and known; see ``knownKeys`` and docs/configuration.md.
///
/// Numbers are strict, locale-free decimals (`100`, `0.5`, `-25`, `1e3`), written
/// without their unit. Booleans are `true`/`false`, `yes`/`no`, `on`/`off`,
/// `1`/`0` (any case). An empty value is an error, except for the keys whose
/// default is "not set" (`device`, `mount-matrix`, `scale`, `socket`, `seat-users`, `auto-rotate`),
/// where it means exactly that.
///
/// The text must be UTF-8 without control characters other than tab; a line is
/// at most ``maxLineBytes`` bytes. Nothing is returned from a bad file: the first
/// problem is thrown as a ``ConfigError``. Pure: no I/O; the caller reads the
/// file (and bounds its size).
public enum ConfigParser {
    /// The longest line accepted, in bytes, not counting the LF or CRLF.
    public static let maxLineBytes = 4096

    /// Every section and its keys, in the order docs/configuration.md and the
    /// example file list them.
    public static let knownKeys: [(section: String, keys: [String])] = sectionNames.map { section in
        (section, keyTable.filter { $0.section == section }.map(\.name))
    }

    /// Parses a whole config file's bytes.
    ///
    /// - Parameters:
    ///   - bytes: the file's contents (`[UInt8]`, `Data`, `String.UTF8View`, …).
    ///   - file: the name to put in errors and warnings (the path as given).
    /// - Returns: the config (defaults for everything the file does not set) and
    ///   warnings, each `file:line: message` (a repaired mount matrix).
    /// - Throws: ``ConfigError`` at the first problem: a malformed line, an
    ///   unknown section or key, a repeated key or a bad value.
    public static func parse(_ bytes: some Collection<UInt8>, file: String) throws(ConfigError) -> (config: DaemonConfig, warnings: [String]) {
        var parser = Parser(buf: Array(bytes), file: file)
        try parser.run()
        return (parser.config, parser.warnings)
    }
}

/// A config file that cannot be used: where the first problem is and what to do.
///
/// `description` is `file:line: message` (docs/configuration.md), or `file: message` when the
/// problem belongs to no line (`line` 0).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file name given to `ConfigParser.parse`.
    public var file: String
    /// 1-based line number; 0 when the problem belongs to no one line.
    public var line: Int
    /// What is wrong and what was expected.
    public var message: String

    /// Makes an error; `line` is 1-based, or 0 for none.
    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `file:line: message`, or `file: message` for line 0.
    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}

// MARK: - Parser

private let space: UInt8 = 0x20, tab: UInt8 = 0x09
private let hash: UInt8 = 0x23, equals: UInt8 = 0x3D, openBracket: UInt8 = 0x5B, closeBracket: UInt8 = 0x5D

private struct Parser {
    let buf: [UInt8]
    let file: String
    var config = DaemonConfig()
    var warnings: [String] = []
    var section: String?
    /// "section key" → the line that set it, for duplicates.
    var keyLines: [String: Int] = [:]
    var lineNumber = 0
    var lineStart = 0

    init(buf: [UInt8], file: String) {
        self.buf = buf
        self.file = file
    }

    mutating func run() throws(ConfigError) {
        let maxLine = ConfigParser.maxLineBytes
        var lines = TextLines(buf, maxLineBytes: maxLine)
        while let line = lines.next(in: buf) {
            lineNumber = line.number
            lineStart = line.start
            if line.tooLong {
                throw fail("line is longer than \(maxLine) bytes (is this a config file?)")
            }
            if line.specials > 0 { try checkText(line.start, line.end) }
            try parseLine(line.start, line.end)
        }
    }

    // MARK: Lines

    mutating func parseLine(_ s: Int, _ e: Int) throws(ConfigError) {
        let (f, e) = trimmed(s, e)
        if f == e || buf[f] == hash { return }
        if buf[f] == openBracket { return try parseSection(f, e) }
        guard let eq = buf[f..<e].firstIndex(of: equals) else {
            throw fail("expected 'key = value', '[section]' or '# comment'; found \(found(f, e))")
        }
        let (keyStart, keyEnd) = trimmed(f, eq)
        guard keyStart < keyEnd else { throw fail("expected a key name before '='") }
        let key = text(keyStart, keyEnd)
        guard let section else {
            let home = keyTable.first { $0.name == key }.map { " (it belongs in [\($0.section)])" } ?? ""
            throw fail("key \(quotedForMessage(key)) is outside a section; put it under a [section] header\(home)")
        }
        guard let spec = keyTable.first(where: { $0.section == section && $0.name == key }) else {
            if let removed = removedKeys.first(where: { $0.section == section && $0.name == key }) {
                warnings.append("\(file):\(lineNumber): [\(section)] \(key) is ignored: \(removed.why)")
                return
            }
            throw fail(unknownKey(key, in: section))
        }
        if let first = keyLines["\(section) \(key)"] {
            throw fail("duplicate key '\(key)' in [\(section)] (first set on line \(first))")
        }
        keyLines["\(section) \(key)"] = lineNumber
        let (valueStart, valueEnd) = valueRange(eq + 1, e)
        try assign(spec, valueStart, valueEnd)
    }

    /// The value after `=`: trimmed, without a trailing comment.
    func valueRange(_ s: Int, _ e: Int) -> (Int, Int) {
        var k = s
        while k < e, buf[k] == space || buf[k] == tab { k += 1 }
        let start = k
        while k < e {
            if buf[k] == hash, k == start || buf[k - 1] == space || buf[k - 1] == tab { break }
            k += 1
        }
        return trimmed(start, k)
    }

    mutating func parseSection(_ s: Int, _ e: Int) throws(ConfigError) {
        guard let close = buf[s..<e].firstIndex(of: closeBracket) else {
            throw fail("section header \(found(s, e)) is missing its closing ']'")
        }
        let (a, b) = trimmed(close + 1, e)
        guard a == b || buf[a] == hash else {
            throw fail("unexpected \(found(a, b)) after the section header (only a '# comment' may follow)")
        }
        let (nameStart, nameEnd) = trimmed(s + 1, close)
        guard nameStart < nameEnd else {
            throw fail("empty section name; the sections are \(sectionNames.map { "[\($0)]" }.joined(separator: ", "))")
        }
        let name = text(nameStart, nameEnd)
        guard sectionNames.contains(name) else {
            let hint = suggestion(for: name, among: sectionNames).map { "; did you mean [\($0)]?" }
                ?? " (the sections are \(sectionNames.map { "[\($0)]" }.joined(separator: ", ")))"
            throw fail("unknown section [\(clippedForMessage(name))]\(hint)")
        }
        section = name
    }

    func unknownKey(_ key: String, in section: String) -> String {
        let message = "unknown key \(quotedForMessage(key)) in [\(section)]"
        if let other = keyTable.first(where: { $0.name == key }) {
            return "\(message); '\(key)' belongs in [\(other.section)]"
        }
        let names = keyTable.filter { $0.section == section }.map(\.name)
        if let near = suggestion(for: key, among: names) { return "\(message); did you mean '\(near)'?" }
        return message
    }

    // MARK: Values

    mutating func assign(_ spec: KeySpec, _ s: Int, _ e: Int) throws(ConfigError) {
        let key = spec.name
        guard s < e else {
            if spec.kind.emptyMeansUnset { return }
            throw fail("\(key) has no value (write '\(key) = value', or comment the line out for the default)")
        }
        let value = text(s, e)
        if let first = value.utf8.first, first == 0x22 || first == 0x27 {  // " '
            throw fail("\(key): values are written without quotes; found \(found(s, e))")
        }
        switch spec.kind {
        case .boundedNumber(let range, let unit, let set):
            let x = try number(key, unit: unit, s, e)
            guard range.contains(x) else {
                throw fail("\(key) must be from \(formatNumber(range.lowerBound)) to \(formatNumber(range.upperBound))\(unit.isEmpty ? "" : " \(unit)"); found \(found(s, e))")
            }
            set(&config, x)
        case .integer(let range, let unit, let set):
            guard let x = DecimalNumber.parse(buf[s..<e]), x.rounded() == x,
                  x >= Double(range.lowerBound), x <= Double(range.upperBound)
            else {
                throw fail("\(key) must be a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound); found \(found(s, e))\(unitHint(s, e))")
            }
            set(&config, Int(x))
        case .bool(let set):
            switch value.lowercased() {
            case "true", "yes", "on", "1": set(&config, true)
            case "false", "no", "off", "0": set(&config, false)
            default: throw fail("\(key) must be true or false (or yes/no, on/off, 1/0); found \(found(s, e))")
            }
        case .choice(let words, let set):
            guard words.contains(value) else {
                throw fail("\(key) must be one of \(words.joined(separator: ", ")); found \(found(s, e))")
            }
            set(&config, value)
        case .zSign:
            if value == "auto" {
                config.zSign = .auto
            } else {
                guard let x = DecimalNumber.parse(buf[s..<e]), x == 1 || x == -1 else {
                    throw fail("z-sign must be auto, 1 (lying face up reads +z) or -1; found \(found(s, e))")
                }
                config.zSign = .fixed(x)
            }
        case .maskList:
            config.defaultAllowed = try maskNames(key, s, e)
        case .device:
            try device(s, e)
        case .mountMatrix:
            do {
                let matrix = try MountMatrix(parsing: value)
                config.mountMatrix = matrix
                warnings += matrix.warnings.map { "\(file):\(lineNumber): mount-matrix: \($0)" }
            } catch {
                let at = column(s) + max(error.column - 1, 0)
                let form = "x1, y1, z1; x2, y2, z2; x3, y3, z3"
                let hint = error.message.containsText(form) ? "" : " (expected \(form))"
                throw fail("mount-matrix, column \(at): \(error.message)\(hint)")
            }
        case .scale:
            let x = try number(key, unit: "m/s² per count", s, e)
            guard x > 0, x <= maxSensorScale else {
                throw fail("scale must be greater than 0 and at most \(formatNumber(maxSensorScale)) (m/s² per raw count, as in_accel_scale); found \(found(s, e))")
            }
            config.scale = x
        case .socket:
            guard value.utf8.first == 0x2F else {
                throw fail("socket must be an absolute path (like \(DaemonConfig.defaultSocketPath)); found \(found(s, e))")
            }
            guard value.utf8.count <= maxSocketPathBytes else {
                throw fail("socket path is \(value.utf8.count) bytes; a Unix socket path holds at most \(maxSocketPathBytes)")
            }
            config.socket = value
        case .seatUsers:
            switch SeatUsers.parse(value) {
            case .success(let users): config.seatUsers = users
            case .failure(let error): throw fail("seat-users: \(error.description); found \(found(s, e))")
            }
        case .autoRotate:
            guard let policy = AutoRotate(rawValue: value) else {
                let words = AutoRotate.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail("auto-rotate must be one of \(words) (or empty for the default: tablet-mode where a tablet-mode source exists, else always); found \(found(s, e))")
            }
            config.autoRotate = policy
        }
    }

    func number(_ key: String, unit: String, _ s: Int, _ e: Int) throws(ConfigError) -> Double {
        if let x = DecimalNumber.parse(buf[s..<e]) { return x }
        if DecimalNumber.isDecimal(buf[s..<e]) { throw fail("\(key) \(found(s, e)) is out of range") }
        let of = unit.isEmpty ? "" : " of \(unit)"
        throw fail("\(key) must be a decimal number\(of) (like 100 or 0.5, '.' as decimal point); found \(found(s, e))\(unitHint(s, e))")
    }

    /// A hint for a number followed by something else, most likely its unit.
    func unitHint(_ s: Int, _ e: Int) -> String {
        var k = s
        while k < e, DecimalNumber.isDecimal(buf[s..<(k + 1)]) { k += 1 }
        return k > s && k < e ? " (write the number without its unit)" : ""
    }

    func maskNames(_ key: String, _ s: Int, _ e: Int) throws(ConfigError) -> [String] {
        var names: [String] = []
        for item in buf[s..<e].split(separator: 0x2C, omittingEmptySubsequences: false) {
            let (a, b) = trimmed(item.startIndex, item.endIndex)
            guard a < b else {
                throw fail("\(key) has an empty name in its list; found \(found(s, e)) (names are separated by single commas)")
            }
            let name = text(a, b)
            do {
                _ = try OrientationMask(name: name, natural: .portrait)
            } catch {
                throw fail("\(key): \(error.description)")
            }
            names.append(name)
        }
        return names
    }

    mutating func device(_ s: Int, _ e: Int) throws(ConfigError) {
        let value = text(s, e)
        if value.utf8.first == 0x2F {
            guard value.hasPrefix("/sys/") || value.hasPrefix("/dev/") else {
                throw fail("device must be a path under /sys/ or /dev/, or an IIO device name; found \(found(s, e))")
            }
        } else if value.utf8.contains(0x2F) {
            throw fail("device must be an absolute path under /sys/ or /dev/, or an IIO device name (no '/'); found \(found(s, e))")
        }
        config.device = value
    }

    // MARK: Text

    /// Rejects invalid UTF-8 and control characters other than tab in `s..<e`.
    func checkText(_ s: Int, _ e: Int) throws(ConfigError) {
        switch firstTextProblem(in: buf, from: s, to: e) {
        case nil: return
        case .controlCharacter(let k, let scalar)?: throw controlCharacter(scalar, at: k)
        case .invalidUTF8(let k)?: throw invalidUTF8(k)
        }
    }

    func controlCharacter(_ scalar: UInt32, at k: Int) -> ConfigError {
        let name = TextProblem.scalarName(scalar)
        return fail("control character \(name) at column \(column(k)) is not allowed (is this a text file?)")
    }

    func invalidUTF8(_ k: Int) -> ConfigError {
        return fail("invalid UTF-8 (byte \(TextProblem.byteName(buf[k])) at column \(column(k))); the config is UTF-8 text")
    }

    /// The 1-based column of the byte at `offset` on the current line, in characters.
    func column(_ offset: Int) -> Int { buf.textColumn(of: offset, lineStart: lineStart) }

    func fail(_ message: String) -> ConfigError {
        ConfigError(file: file, line: lineNumber, message: message)
    }

    func trimmed(_ s: Int, _ e: Int) -> (Int, Int) { buf.trimmedRange(s, e) }

    func text(_ s: Int, _ e: Int) -> String { buf.text(s, e) }

    func found(_ s: Int, _ e: Int) -> String { buf.foundText(s, e) }
}

