/// Reads the trace format (docs/traces.md) from bytes: metadata headers, then samples in
/// the **sensor frame** (before the mount matrix).
///
/// ```swift
/// let trace = try TraceReader.parse(bytes, file: "traces/turn-left.trace")
/// for sample in trace.samples { … }
/// ```
///
/// The format, line by line (lines end in LF or CRLF; blank lines are ignored;
/// a UTF-8 byte order mark at the start is skipped):
/// - `# key: value` before the first sample is a header. Known keys:
///   `orientd-trace` (must be `1`), `mount_matrix` (the text form of docs/behaviour.md, Sensors; its repair
///   warnings stay in `Trace.mountMatrix.warnings`; `base_mount_matrix` likewise
///   for the base columns), `rate_hz` (a positive
///   decimal), `on_change` (`true` or `false`), `description` (free text). Other
///   keys are kept in `Trace.extraHeaders`, in order. A key appears at most once.
///   A key is an ASCII letter followed by letters, digits, `_`, `-` or `.`, and
///   its `:` is followed by a space, a tab or the end of the line; any other
///   `#` line is a plain comment. After the first sample every `#` line is a
///   plain comment.
/// - The first line that is neither blank nor a comment is the column header
///   `t_ms,x,y,z` (spaces and tabs around the names are tolerated), optionally
///   followed by the optional columns (``Trace/columns``): `light`,
///   `proximity` and the base's `base_x,base_y,base_z` (three names, together
///   and in that order), each at most once, in any order.
/// - Then one sample a line: `t_ms,x,y,z`, spaces and tabs around fields allowed.
///   With optional columns, a line may go on with a value for each (an empty
///   field, or a line that stops after `z`, gives no reading): `light` a
///   decimal of 0 or more in the `light_unit` header's unit (`lux`, the
///   default, or `vendor`), `proximity` `1` (near) or `0` (far). A line may
///   leave `x`, `y` and `z` all empty to give only such readings
///   (`1500,,,,5`); those go to ``Trace/environment``, not to the samples.
///   The base's three fields are all given (a reading of the base, in
///   ``Trace/baseSamples``; `nan`, `inf`, `-inf` allowed as for x, y, z) or all
///   empty (none); `base_mount_matrix` is its mount matrix, as `mount_matrix`.
///   Numbers are strict, locale-free decimals (`-9.81`, `1e3`; never `0x10` or
///   `9,81`). `t_ms` must be finite and must not decrease. `x`, `y` and `z` may
///   also be the tokens `nan`, `inf` and `-inf`, so that traces recorded from a
///   corrupted sensor can be replayed to test how garbage samples are handled.
///
/// Limits: a line is at most ``maxLineBytes`` bytes (line terminator excluded),
/// a trace at most ``maxSamples`` samples. The text must be UTF-8 without
/// control characters other than tab (and the CR of a CRLF).
///
/// Nothing is returned from a bad file: the first problem is thrown as a
/// ``TraceError`` naming the file, line and column. Pure: no I/O; the caller
/// reads the file.
public enum TraceReader {
    /// The longest line accepted, in bytes, not counting the LF or CRLF.
    public static let maxLineBytes = 4096
    /// The most samples a trace may hold.
    public static let maxSamples = 10_000_000

    /// Parses a whole trace file's bytes.
    ///
    /// - Parameters:
    ///   - bytes: the file's contents (`[UInt8]`, `Data`, `String.UTF8View`, …);
    ///     contiguous storage is read in place, anything else is copied once.
    ///   - file: the name to put in errors (usually the path as the user gave it).
    /// - Throws: ``TraceError`` at the first malformed line.
    public static func parse(_ bytes: some Collection<UInt8>, file: String) throws(TraceError) -> Trace {
        try parse(bytes, file: file, maxSamples: maxSamples)
    }

    /// `parse(_:file:)` with a lower sample limit, so tests can reach it.
    static func parse(_ bytes: some Collection<UInt8>, file: String, maxSamples: Int) throws(TraceError) -> Trace {
        let run = { (buffer: UnsafeBufferPointer<UInt8>) -> Result<Trace, TraceError> in
            var parser = TraceParser(buffer: buffer, file: file, maxSamples: maxSamples)
            return Result { () throws(TraceError) in try parser.run() }
        }
        if let result = bytes.withContiguousStorageIfAvailable(run) {
            return try result.get()
        }
        return try Array(bytes).withUnsafeBufferPointer(run).get()
    }

    /// The header keys this reader interprets (everything else is an extra header).
    static let knownHeaderKeys: Set<String> = [
        "orientd-trace", "mount_matrix", "rate_hz", "on_change", "description", "light_unit", "base_mount_matrix",
    ]

    /// Whether `key` has the shape of a header key (see the type's documentation).
    static func isHeaderKey(_ key: some StringProtocol) -> Bool {
        var bytes = key.utf8.makeIterator()
        guard let first = bytes.next(), isLetter(first) else { return false }
        while let byte = bytes.next() {
            guard isKeyByte(byte) else { return false }
        }
        return true
    }

    static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }

    static func isKeyByte(_ b: UInt8) -> Bool {
        isLetter(b) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x2D || b == 0x2E  // 0-9 _ - .
    }
}

private let lf: UInt8 = 0x0A
private let space: UInt8 = 0x20
private let tab: UInt8 = 0x09
private let comma: UInt8 = 0x2C
private let hash: UInt8 = 0x23
private let colon: UInt8 = 0x3A

/// 10^0 … 10^22, the powers of ten a Double holds exactly.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

/// One pass over the bytes; state for the line being read and the trace so far.
private struct TraceParser {
    let buf: UnsafeBufferPointer<UInt8>
    let file: String
    let maxSamples: Int

    var lineNumber = 0
    var lineStart = 0
    var trace = Trace()
    /// Header key → the line it appeared on, to name it when repeated.
    var headerLines: [String: Int] = [:]
    var columnHeaderLine: Int?
    /// The optional column each field after z belongs to, and its component
    /// (0 for light and proximity; 0, 1, 2 for base_x, base_y, base_z).
    var fieldColumns: [(column: TraceColumn, component: Int)] = []
    var lastTime = -Double.infinity
    var lastTimeLine = 0

    init(buffer: UnsafeBufferPointer<UInt8>, file: String, maxSamples: Int) {
        self.buf = buffer
        self.file = file
        self.maxSamples = maxSamples
    }

    mutating func run() throws(TraceError) -> Trace {
        let maxLine = TraceReader.maxLineBytes
        var lines = TextLines(buf, maxLineBytes: maxLine)
        let start = lines.firstLineStart
        var lastLineEnd = start
        while let line = lines.next(in: buf) {
            lineNumber = line.number
            lineStart = line.start
            let (pos, end) = (line.start, line.end)
            if line.tooLong {
                if line.specials > 0 { try checkText(pos, pos + maxLine, truncated: true) }
                // The limit can cut a character; point at that character.
                var cut = pos + maxLine
                while cut > pos, buf[cut] & 0xC0 == 0x80 { cut -= 1 }
                throw error(
                    at: cut,
                    "line is longer than \(maxLine) bytes (is this a trace file?); a trace line holds one header or sample")
            }
            if line.specials > 0 { try checkText(pos, end, truncated: false) }
            try parseLine(pos, end)
            lastLineEnd = end
        }

        // Where "the end of the file" is, for errors about what never came.
        let endsWithNewline = buf.count == start || buf[buf.count - 1] == lf
        let eofLine = endsWithNewline ? lineNumber + 1 : lineNumber
        let eofColumn = endsWithNewline ? 1 : column(lastLineEnd)

        guard let headerLine = columnHeaderLine else {
            let what = buf.count == start ? "the file is empty" : "the file has only comments and blank lines"
            throw TraceError(
                file: file, line: eofLine, column: eofColumn,
                message: "missing header line t_ms,x,y,z: \(what); a trace is '# key: value' headers, the line t_ms,x,y,z, then one sample a line")
        }
        guard !trace.samples.isEmpty else {
            throw TraceError(
                file: file, line: eofLine, column: eofColumn,
                message: "no samples: the header line t_ms,x,y,z is on line \(headerLine) but no sample line follows it")
        }
        return trace
    }

    // MARK: Lines

    mutating func parseLine(_ s: Int, _ e: Int) throws(TraceError) {
        var f = s
        while f < e, buf[f] == space || buf[f] == tab { f += 1 }
        var e = e
        while e > f, buf[e - 1] == space || buf[e - 1] == tab { e -= 1 }
        if f == e { return }
        if buf[f] == hash {
            if trace.samples.isEmpty { try parseHeader(f + 1, e) }
            return
        }
        if columnHeaderLine == nil {
            try parseColumnHeader(f, e)
        } else {
            try parseSample(f, e)
        }
    }

    /// `# key: value`; anything else after `#` is a plain comment.
    mutating func parseHeader(_ s: Int, _ e: Int) throws(TraceError) {
        var k = s
        while k < e, buf[k] == space || buf[k] == tab { k += 1 }
        let keyStart = k
        guard k < e, TraceReader.isLetter(buf[k]) else { return }
        while k < e, TraceReader.isKeyByte(buf[k]) { k += 1 }
        guard k < e, buf[k] == colon else { return }
        let keyEnd = k
        k += 1
        guard k == e || buf[k] == space || buf[k] == tab else { return }
        while k < e, buf[k] == space || buf[k] == tab { k += 1 }
        let valueStart = k
        let key = text(keyStart, keyEnd)

        // A known key decides how the trace replays, so it may appear once; other
        // `key: value` comments are free-form metadata and may repeat.
        if TraceReader.knownHeaderKeys.contains(key) {
            if let first = headerLines[key] {
                throw error(at: keyStart, "header '\(key)' is repeated (first on line \(first)); each known header key appears once")
            }
            headerLines[key] = lineNumber
        }

        switch key {
        case "orientd-trace":
            guard e - valueStart == 1, buf[valueStart] == 0x31 else {
                throw error(at: valueStart, "unsupported trace version: found \(found(valueStart, e)); this reader reads version 1")
            }
            trace.version = 1
        case "mount_matrix", "base_mount_matrix":
            let matrix: MountMatrix
            do {
                matrix = try MountMatrix(parsing: text(valueStart, e))
            } catch {
                let offset = min(valueStart + max(error.column - 1, 0), e)
                throw self.error(at: offset, "\(key): \(error.message) (expected x1, y1, z1; x2, y2, z2; x3, y3, z3)")
            }
            if key == "mount_matrix" { trace.mountMatrix = matrix } else { trace.baseMountMatrix = matrix }
        case "rate_hz":
            guard let rate = DecimalNumber.parse(buf[valueStart..<e]), rate > 0 else {
                throw error(
                    at: valueStart,
                    "rate_hz must be a positive decimal number of samples per second (like 100); found \(found(valueStart, e))")
            }
            trace.rateHz = rate
        case "on_change":
            switch text(valueStart, e) {
            case "true": trace.onChange = true
            case "false": trace.onChange = false
            default:
                throw error(at: valueStart, "on_change must be 'true' or 'false'; found \(found(valueStart, e))")
            }
        case "description":
            trace.description = text(valueStart, e)
        case "light_unit":
            guard let unit = LightUnitName(rawValue: text(valueStart, e)) else {
                throw error(at: valueStart, "light_unit must be 'lux' or 'vendor'; found \(found(valueStart, e))")
            }
            trace.lightUnit = unit
        default:
            trace.extraHeaders.append((key: key, value: text(valueStart, e)))
        }
    }

    mutating func parseColumnHeader(_ s: Int, _ e: Int) throws(TraceError) {
        let expected: [[UInt8]] = [Array("t_ms".utf8), [0x78], [0x79], [0x7A]]
        let optionalNames = TraceColumn.allCases.reduce(0) { $0 + $1.headerNames.count }
        var fields: [(Int, Int)] = []
        var fieldStart = s
        while fields.count <= expected.count + optionalNames {
            var k = fieldStart
            while k < e, buf[k] != comma { k += 1 }
            fields.append(trimmed(fieldStart, k))
            if k == e { break }
            fieldStart = k + 1
        }
        let basic = fields.count >= expected.count
            && zip(fields, expected).allSatisfy { field, name in buf[field.0..<field.1].elementsEqual(name) }
        guard basic else {
            let b = buf[s]
            let looksLikeSample = (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2B || b == 0x2E
            let hint = looksLikeSample ? " (add the line t_ms,x,y,z before the first sample)" : ""
            throw error(at: s, "expected the header line t_ms,x,y,z; found \(found(s, e))\(hint)")
        }
        // After t_ms,x,y,z: the optional columns, each once; the base's three
        // together, in order.
        var index = expected.count
        while index < fields.count {
            let (a, b) = fields[index]
            let name = text(a, b)
            let column: TraceColumn?
            switch name {
            case "base_x": column = .base
            case "base_y", "base_z":
                throw error(at: a, "column '\(name)' must follow base_x: the base's columns are base_x,base_y,base_z, together and in that order")
            default: column = TraceColumn(rawValue: name).flatMap { $0 == .base ? nil : $0 }
            }
            guard let column else {
                throw error(
                    at: s,
                    "expected the header line t_ms,x,y,z; found \(found(s, e)): unknown column \(found(a, b)) (the optional columns after z are base_x,base_y,base_z, light and proximity)")
            }
            guard !trace.columns.contains(column) else {
                throw error(at: a, "column '\(name)' is repeated; each column appears once")
            }
            for (offset, part) in column.headerNames.enumerated().dropFirst() {
                let at = index + offset
                let next = at < fields.count ? text(fields[at].0, fields[at].1) : ""
                guard next == part else {
                    let offsetAt = at < fields.count ? fields[at].0 : e
                    throw error(at: offsetAt, "expected column '\(part)' after '\(column.headerNames[offset - 1])'; the base's columns are base_x,base_y,base_z, together and in that order")
                }
            }
            trace.columns.append(column)
            fieldColumns += column.headerNames.indices.map { (column, $0) }
            index += column.headerNames.count
        }
        if fields.count > expected.count + optionalNames {
            throw error(at: fields[fields.count - 1].0, "too many columns: after t_ms,x,y,z come at most base_x,base_y,base_z, light and proximity")
        }
        columnHeaderLine = lineNumber
    }

    mutating func parseSample(_ s: Int, _ e: Int) throws(TraceError) {
        if !trace.columns.isEmpty { return try parseRow(s, e) }
        guard trace.samples.count < maxSamples else {
            throw error(at: s, "too many samples: a trace holds at most \(maxSamples)")
        }
        var t = 0.0, x = 0.0, y = 0.0, z = 0.0
        var index = 0
        var fieldStart = s
        while true {
            var k = fieldStart
            while k < e, buf[k] != comma { k += 1 }
            switch index {
            case 0: t = try time(fieldStart, k)
            case 1: x = try component("x", fieldStart, k)
            case 2: y = try component("y", fieldStart, k)
            default: z = try component("z", fieldStart, k)
            }
            index += 1
            if k == e { break }
            if index == 4 {
                var fields = 5
                for m in (k + 1)..<e where buf[m] == comma { fields += 1 }
                if fields == 5, k + 1 == e {
                    throw error(at: k, "expected 4 fields (t_ms,x,y,z); found a trailing ',' after z")
                }
                throw error(
                    at: k,
                    "expected 4 fields (t_ms,x,y,z); found \(fields) (numbers use '.' as the decimal separator, never ',')")
            }
            fieldStart = k + 1
        }
        guard index == 4 else {
            let missing = ["t_ms", "x", "y", "z"][index...].joined(separator: ",")
            throw error(at: e, "expected 4 fields (t_ms,x,y,z); found \(index) (missing \(missing))")
        }
        trace.samples.append(Sample(tMs: t, x: x, y: y, z: z))
    }

    /// A line of a trace with optional columns: `t_ms,x,y,z` and a field per
    /// column, trailing ones optional; x, y and z all empty for a line of readings only.
    mutating func parseRow(_ s: Int, _ e: Int) throws(TraceError) {
        guard trace.samples.count + trace.environment.count + trace.baseSamples.count < maxSamples else {
            throw error(at: s, "too many samples: a trace holds at most \(maxSamples)")
        }
        let names = (["t_ms", "x", "y", "z"] + trace.columns.flatMap(\.headerNames)).joined(separator: ",")
        let most = 4 + fieldColumns.count
        var fields: [(Int, Int)] = []
        var fieldStart = s
        while true {
            var k = fieldStart
            while k < e, buf[k] != comma { k += 1 }
            if fields.count == most {
                var count = most + 1
                for m in k..<e where buf[m] == comma { count += 1 }
                throw error(
                    at: fieldStart - 1,
                    "expected 4 to \(most) fields (\(names)); found \(count) (numbers use '.' as the decimal separator, never ',')")
            }
            fields.append((fieldStart, k))
            if k == e { break }
            fieldStart = k + 1
        }
        guard fields.count >= 4 else {
            let missing = ["t_ms", "x", "y", "z"][fields.count...].joined(separator: ",")
            throw error(at: e, "expected 4 to \(most) fields (\(names)); found \(fields.count) (missing \(missing))")
        }
        let t = try time(fields[0].0, fields[0].1)
        let readingsOnly = fields.count > 4 && fields[1...3].allSatisfy { field in
            let (a, b) = buf.trimmedRange(field.0, field.1)
            return a == b
        }
        var sample: Sample?
        if !readingsOnly {
            sample = Sample(
                tMs: t, x: try component("x", fields[1].0, fields[1].1), y: try component("y", fields[2].0, fields[2].1),
                z: try component("z", fields[3].0, fields[3].1))
        }
        var reading = EnvironmentSample(tMs: t)
        var base: [Double] = []
        var baseFirstEmpty: Int?
        for (index, field) in fields.enumerated().dropFirst(4) {
            let (a, b) = trimmed(field.0, field.1)
            let (column, part) = fieldColumns[index - 4]
            if column == .base {
                if a < b {
                    base.append(try component(column.headerNames[part], a, b))
                } else if baseFirstEmpty == nil {
                    baseFirstEmpty = part
                }
                continue
            }
            guard a < b else { continue }
            switch column {
            case .light:
                guard let level = shortDecimal(a, b) ?? DecimalNumber.parse(buf[a..<b]), level.isFinite, level >= 0 else {
                    throw error(
                        at: a,
                        "expected a light level of 0 or more in \(trace.lightUnit.rawValue) (like 312.5), or nothing for no reading; found \(found(a, b))")
                }
                reading.light = level
            case .proximity:
                switch text(a, b) {
                case "1": reading.proximity = true
                case "0": reading.proximity = false
                default:
                    throw error(at: a, "expected proximity 1 (near) or 0 (far), or nothing for no reading; found \(found(a, b))")
                }
            case .base:
                break
            }
        }
        if !base.isEmpty, base.count < 3 {
            // A line that stops inside the base's columns left the rest empty.
            let missing = baseFirstEmpty ?? base.count
            let name = TraceColumn.base.headerNames[missing]
            let at = fields.indices.dropFirst(4).first { fieldColumns[$0 - 4] == (.base, missing) }
            throw error(
                at: at.map { fields[$0].0 } ?? e,
                "\(name) is empty while the base's other columns are given: the base's reading is base_x, base_y and base_z together, or none of them")
        }
        if readingsOnly, base.isEmpty, reading.light == nil, reading.proximity == nil {
            throw error(at: fields[1].0, "a line with x, y and z empty must give a reading of \(trace.columns.map(\.rawValue).joined(separator: " or ")); it gives none")
        }
        if let sample { trace.samples.append(sample) }
        if base.count == 3 { trace.baseSamples.append(Sample(tMs: t, x: base[0], y: base[1], z: base[2])) }
        if reading.light != nil || reading.proximity != nil { trace.environment.append(reading) }
    }

    // MARK: Fields

    mutating func time(_ s: Int, _ e: Int) throws(TraceError) -> Double {
        let (a, b) = trimmed(s, e)
        guard a < b else { throw error(at: a, "expected a number of milliseconds for t_ms; found nothing") }
        guard let t = shortDecimal(a, b) ?? DecimalNumber.parse(buf[a..<b]) else {
            if DecimalNumber.isDecimal(buf[a..<b]) {
                throw error(at: a, "t_ms \(found(a, b)) is out of range (beyond ±1.8e308)")
            }
            if nonFinite(a, b) != nil {
                throw error(at: a, "t_ms must be a finite decimal number of milliseconds; found \(found(a, b))")
            }
            throw error(
                at: a, "expected a decimal number of milliseconds for t_ms (like 1250 or 12.5); found \(found(a, b))")
        }
        guard t >= lastTime else {
            throw error(
                at: a,
                "time goes backwards: t_ms \(traceNumberText(t)) is before \(traceNumberText(lastTime)) on line \(lastTimeLine); times must not decrease")
        }
        lastTime = t
        lastTimeLine = lineNumber
        return t
    }

    func component(_ name: String, _ s: Int, _ e: Int) throws(TraceError) -> Double {
        let (a, b) = trimmed(s, e)
        guard a < b else { throw error(at: a, "expected a number in m/s² for \(name); found nothing") }
        if let value = shortDecimal(a, b) ?? DecimalNumber.parse(buf[a..<b]) { return value }
        if let value = nonFinite(a, b) { return value }
        if DecimalNumber.isDecimal(buf[a..<b]) {
            throw error(at: a, "\(name) \(found(a, b)) is out of range (beyond ±1.8e308; write inf or -inf)")
        }
        throw error(
            at: a, "expected a decimal number in m/s² for \(name) (like -9.81), or nan, inf, -inf; found \(found(a, b))")
    }

    /// The common case of `DecimalNumber.parse`, without building a String:
    /// `[+-]digits[.digits]` with at most 2^53 as the digits and at most 22 after
    /// the point. Then the digits and the power of ten are both exact doubles and
    /// one division rounds correctly (Clinger's fast path), so the result is the
    /// same as the full parser's. Anything else returns nil for the full parser.
    func shortDecimal(_ a: Int, _ b: Int) -> Double? {
        var k = a
        let negative = k < b && buf[k] == 0x2D
        if k < b, buf[k] == 0x2D || buf[k] == 0x2B { k += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        while k < b {
            let c = buf[k]
            if c >= 0x30, c <= 0x39 {
                guard mantissa < 100_000_000_000_000_000 else { return nil }  // keeps 10 × m + 9 in UInt64
                mantissa = mantissa * 10 + UInt64(c - 0x30)
                digits += 1
                if seenPoint { fractionDigits += 1 }
            } else if c == 0x2E, !seenPoint {
                seenPoint = true
            } else {
                return nil
            }
            k += 1
        }
        guard digits > 0, mantissa <= 1 << 53, fractionDigits <= 22 else { return nil }
        let magnitude = Double(mantissa) / exactPowersOfTen[fractionDigits]
        return negative ? -magnitude : magnitude
    }

    /// The tokens `nan`, `inf`, `-inf`.
    func nonFinite(_ a: Int, _ b: Int) -> Double? {
        let token = buf[a..<b]
        if token.elementsEqual("nan".utf8) { return .nan }
        if token.elementsEqual("inf".utf8) { return .infinity }
        if token.elementsEqual("-inf".utf8) { return -.infinity }
        return nil
    }

    // MARK: Text checks and helpers

    /// Finds the first invalid UTF-8 sequence or control character in `s..<e`.
    /// With `truncated`, a sequence cut off by `e` is not an error (the line
    /// goes on past the range).
    func checkText(_ s: Int, _ e: Int, truncated: Bool) throws(TraceError) {
        switch firstTextProblem(in: buf, from: s, to: e, truncatedTail: truncated) {
        case nil: return
        case .controlCharacter(let k, let scalar)?:
            throw error(at: k, "control character \(scalarName(scalar)) is not allowed in a trace (is this a text file?)")
        case .invalidUTF8(let k)?: throw invalidUTF8(k)
        }
    }

    func invalidUTF8(_ k: Int) -> TraceError {
        return error(at: k, "invalid UTF-8 (byte \(TextProblem.byteName(buf[k]))); a trace is UTF-8 text")
    }

    func scalarName(_ value: UInt32) -> String { TextProblem.scalarName(value) }

    /// The 1-based column of the byte at `offset` on the current line.
    func column(_ offset: Int) -> Int { buf.textColumn(of: offset, lineStart: lineStart) }

    func error(at offset: Int, _ message: String) -> TraceError {
        TraceError(file: file, line: lineNumber, column: column(offset), message: message)
    }

    func trimmed(_ s: Int, _ e: Int) -> (Int, Int) { buf.trimmedRange(s, e) }

    func text(_ s: Int, _ e: Int) -> String { buf.text(s, e) }

    func found(_ s: Int, _ e: Int) -> String { buf.foundText(s, e) }
}
