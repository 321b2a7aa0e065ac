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
