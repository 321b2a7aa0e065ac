private let comma: UInt8 = 0x2C

/// The sample lines: their fields, the numbers in them, and the optional
/// columns' readings.
extension TraceParser {
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
        let magnitude = Double(mantissa) / DecimalNumber.powersOfTen[fractionDigits]
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
}
