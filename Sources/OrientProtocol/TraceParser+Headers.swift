private let space: UInt8 = 0x20
private let tab: UInt8 = 0x09
private let comma: UInt8 = 0x2C
private let colon: UInt8 = 0x3A

/// The header lines: `# key: value` metadata and the column header.
extension TraceParser {
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
}
