extension Trace {
    /// The trace in the trace format (docs/traces.md), as `TraceReader.parse` reads it.
    ///
    /// ```swift
    /// let text = trace.serialized()
    /// let again = try TraceReader.parse(text.utf8, file: "copy.trace")  // == trace
    /// ```
    ///
    /// Writes `# orientd-trace: 1`, then only the headers that differ from the
    /// defaults (`mount_matrix` unless identity, `rate_hz` if set, `on_change` if
    /// true, `description` if set, `light_unit` unless lux), the extra headers in
    /// order, the line `t_ms,x,y,z` (with the optional `columns`, and any
    /// `environment` or `baseSamples` has values for) and one sample a line,
    /// each line of `environment` readings before the samples of its time or
    /// later; a base sample shares the line of a sample of its time (the first
    /// not yet written), else has a line of its own (`base_mount_matrix` is
    /// written unless identity). Numbers are the shortest text that reads
    /// back as the same `Double`; integral values have no fraction (`1000`), `-0`
    /// is `0`, and non-finite components are `nan`, `inf`, `-inf`.
    ///
    /// `parse(serialized())` equals the trace when the trace is one the reader
    /// could have produced: at least one sample, finite non-decreasing times,
    /// `rateHz` positive and finite, and header values on one line without
    /// surrounding spaces. The writer cannot do better than that, so:
    /// - it always writes format version 1, whatever `version` says;
    /// - line breaks and other control characters in header values become spaces,
    ///   and surrounding spaces and tabs are dropped;
    /// - extra headers whose key is not a header key (an ASCII letter, then
    ///   letters, digits, `_`, `-`, `.`) or is a known key are left out, since the
    ///   reader would misread or reject them (free-form keys may repeat).
    public func serialized() -> String {
        var out = ""
        out.reserveCapacity(128 + samples.count * 40)
        out += "# orientd-trace: 1\n"
        if !mountMatrix.isIdentity {
            out += "# mount_matrix: \(mountMatrix.description)\n"
        }
        if !baseMountMatrix.isIdentity {
            out += "# base_mount_matrix: \(baseMountMatrix.description)\n"
        }
        if let rateHz {
            out += "# rate_hz: \(traceNumberText(rateHz))\n"
        }
        if onChange {
            out += "# on_change: true\n"
        }
        if let description {
            out += headerLine("description", description)
        }
        if lightUnit != .lux {
            out += "# light_unit: \(lightUnit.rawValue)\n"
        }
        for (key, value) in extraHeaders where TraceReader.isHeaderKey(key) && !TraceReader.knownHeaderKeys.contains(key) {
            out += headerLine(key, value)
        }
        let columns = writtenColumns
        out += Trace.columnHeader(columns)
        // A line of readings goes before the samples of its time or later; a
        // base reading shares the line of a sample of its time, else has its own.
        var next = environment.startIndex
        var nextBase = baseSamples.startIndex
        func readingsBefore(_ t: Double) {
            while true {
                let reading = next < environment.endIndex && environment[next].tMs <= t ? environment[next] : nil
                let base = nextBase < baseSamples.endIndex && baseSamples[nextBase].tMs < t ? baseSamples[nextBase] : nil
                if let reading, base.map({ reading.tMs <= $0.tMs }) ?? true {
                    out += reading.traceLine(columns: columns)
                    next += 1
                } else if let base {
                    out += base.baseTraceLine(columns: columns)
                    nextBase += 1
                } else {
                    return
                }
            }
        }
        for sample in samples {
            readingsBefore(sample.tMs)
            if nextBase < baseSamples.endIndex, baseSamples[nextBase].tMs == sample.tMs {
                out += sample.traceLine(base: baseSamples[nextBase].vector, columns: columns)
                nextBase += 1
            } else {
                out += sample.traceLine
            }
        }
        readingsBefore(.infinity)
        for base in baseSamples[nextBase...] { out += base.baseTraceLine(columns: columns) }
        return out
    }

    /// `columns`, and any column `environment` gives a value for that it lacks.
    var writtenColumns: [TraceColumn] {
        var columns = self.columns
        if !columns.contains(.light), environment.contains(where: { $0.light != nil }) { columns.append(.light) }
        if !columns.contains(.proximity), environment.contains(where: { $0.proximity != nil }) { columns.append(.proximity) }
        if !columns.contains(.base), !baseSamples.isEmpty { columns.append(.base) }
        return columns
    }
}

extension Trace {
    /// The column header line with its newline: `t_ms,x,y,z` and the optional
    /// columns (`t_ms,x,y,z,light,proximity`, `t_ms,x,y,z,base_x,base_y,base_z`).
    public static func columnHeader(_ columns: [TraceColumn]) -> String {
        (["t_ms,x,y,z"] + columns.flatMap(\.headerNames)).joined(separator: ",") + "\n"
    }
}

extension EnvironmentSample {
    /// The readings as a trace line with its newline, x, y and z left empty:
    /// `1500,,,,312.5` (light), `1500,,,,,1` (proximity near, after a light
    /// column); a field per column in `columns` (three, empty, for the base),
    /// trailing empty ones left out.
    /// Empty when there is no reading for any of `columns`. A recorder writes
    /// these between `Sample.traceLine`s, in time order.
    public func traceLine(columns: [TraceColumn]) -> String {
        let fields = columns.flatMap { column -> [String] in
            switch column {
            case .light: return [light.map(traceNumberText) ?? ""]
            case .proximity: return [proximity.map { $0 ? "1" : "0" } ?? ""]
            case .base: return ["", "", ""]
            }
        }
        guard fields.contains(where: { !$0.isEmpty }) else { return "" }
        return traceRow(tMs, ["", "", ""] + fields)
    }
}

extension Sample {
    /// The sample as a trace line with its newline: `t_ms,x,y,z`, numbers written
    /// as `Trace.serialized()` writes them. A recorder writes the header from
    /// `serialized()` of a trace without samples, then one of these per sample.
    ///
    /// ```swift
    /// Sample(tMs: 50, x: 0, y: -9.81, z: 0.2).traceLine  // "50,0,-9.81,0.2\n"
    /// ```
    public var traceLine: String {
        traceNumberText(tMs) + "," + traceNumberText(vector.x) + "," + traceNumberText(vector.y) + ","
            + traceNumberText(vector.z) + "\n"
    }
}

extension Sample {
    /// The sample as a trace line with the base's reading `base` (sensor frame)
    /// in its columns: `50,0,-9.81,0.2,0,-9.79,0.3` with the base first in
    /// `columns`; light and proximity fields left empty (trailing ones out).
    public func traceLine(base: Vector3, columns: [TraceColumn]) -> String {
        traceRow(tMs, [vector.x, vector.y, vector.z].map(traceNumberText) + Sample.fields(base: base, columns: columns))
    }

    /// This sample as the base's reading alone, x, y and z left empty:
    /// `50,,,,0,-9.79,0.3`. A recorder writes these between the display's
    /// lines when the base reads at another time.
    public func baseTraceLine(columns: [TraceColumn]) -> String {
        traceRow(tMs, ["", "", ""] + Sample.fields(base: vector, columns: columns))
    }

    /// The fields after z: the base's three in its columns, the others empty.
    static func fields(base: Vector3, columns: [TraceColumn]) -> [String] {
        columns.flatMap { column in
            column == .base ? [base.x, base.y, base.z].map(traceNumberText) : [""]
        }
    }
}

/// `t_ms` and `fields`, comma-separated, trailing empty fields left out, with a newline.
private func traceRow(_ tMs: Double, _ fields: [String]) -> String {
    var fields = fields
    while fields.last?.isEmpty == true { fields.removeLast() }
    return ([traceNumberText(tMs)] + fields).joined(separator: ",") + "\n"
}

/// `# key: value` with the value made to fit on one line.
private func headerLine(_ key: String, _ value: String) -> String {
    var scalars = String.UnicodeScalarView()
    for scalar in value.unicodeScalars {
        let v = scalar.value
        let isControl = (v < 0x20 && v != 0x09) || (0x7F...0x9F).contains(v)
        scalars.append(isControl ? " " : scalar)
    }
    let oneLine = String(scalars)
    let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    var trimmed = oneLine.drop(while: isBlank)
    while let last = trimmed.last, isBlank(last) { trimmed = trimmed.dropLast() }
    return trimmed.isEmpty ? "# \(key):\n" : "# \(key): \(trimmed)\n"
}

/// A number as the trace format writes it: shortest round-trip text, integral
/// values without a fraction, `-0` as `0`, and `nan`, `inf`, `-inf`.
func traceNumberText(_ value: Double) -> String {
    if value.isNaN { return "nan" }
    if value == .infinity { return "inf" }
    if value == -.infinity { return "-inf" }
    if value == 0 { return "0" }
    // Up to 2^53 Swift writes integral values as "1000.0"; above it, with an
    // exponent ("1e+16"), which is already short and has no ".0".
    if value.rounded() == value, abs(value) <= 9_007_199_254_740_992 { return String(Int64(value)) }
    return value.description
}
