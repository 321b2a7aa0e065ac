public import OrientSense

extension Sample {
    /// The sample as a trace line (SPEC §8) with its newline: `t_ms,x,y,z`, numbers
    /// in the shortest form that reads back exactly, non-finite components as
    /// `nan`, `inf`, `-inf`. Follows the samples' header from `Trace.serialized()`.
    ///
    /// ```swift
    /// var header = try await client.samples().header
    /// write(header.serialized())                       // "# orientd-trace: 1 … t_ms,x,y,z\n"
    /// write(Sample(tMs: 50, x: 0, y: -9.81, z: 0.2).traceLine)  // "50,0,-9.81,0.2\n"
    /// ```
    public var traceLine: String {
        traceText(tMs) + "," + traceText(vector.x) + "," + traceText(vector.y) + "," + traceText(vector.z) + "\n"
    }
}

/// A trace-format number: `jsonNumber` for finite values, named non-finite ones.
private func traceText(_ value: Double) -> String {
    if value.isNaN { return "nan" }
    if value == .infinity { return "inf" }
    if value == -.infinity { return "-inf" }
    return jsonNumber(value)
}
