private let lf: UInt8 = 0x0A
private let space: UInt8 = 0x20
private let tab: UInt8 = 0x09
private let hash: UInt8 = 0x23

/// One pass over the bytes; state for the line being read and the trace so far.
/// The header lines are read in TraceParser+Headers.swift, the sample lines in
/// TraceParser+Samples.swift.
struct TraceParser {
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
