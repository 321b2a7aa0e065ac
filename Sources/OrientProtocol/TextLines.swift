/// One line of a text file's bytes, as ``TextLines`` finds it.
package struct TextLine {
    /// 1-based line number.
    package var number: Int
    /// Offset of the line's first byte.
    package var start: Int
    /// Offset just past the line's last byte, the LF or CRLF excluded (for a line
    /// over the limit, where the scan stopped).
    package var end: Int
    /// Longer than the limit: `end` is not the end of the line.
    package var tooLong: Bool
    /// Bytes that may need `firstTextProblem`: controls other than tab, DEL and
    /// every non-ASCII byte. Zero means the line is plain printable ASCII.
    package var specials: Int
}

/// The lines of a text file's bytes as the text formats (traces, the config)
/// read them: a UTF-8 byte order mark at the start is skipped, lines end in LF
/// or CRLF, and a line is scanned no further than its limit, so a huge file
/// without newlines costs no more than one long line.
///
/// ```swift
/// var lines = TextLines(bytes, maxLineBytes: 4096)
/// while let line = lines.next(in: bytes) { … bytes[line.start..<line.end] … }
/// ```
package struct TextLines {
    /// The longest line, in bytes, the LF or CRLF excluded.
    package let maxLineBytes: Int
    /// Where the next line starts.
    package private(set) var position: Int
    /// Where the first line starts (after any byte order mark).
    package let firstLineStart: Int
    /// Lines returned so far.
    package private(set) var count = 0

    /// Lines of `bytes`, starting after a byte order mark if there is one.
    @inlinable
    package init<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, maxLineBytes: Int) where Bytes.Index == Int {
        self.maxLineBytes = maxLineBytes
        let bom = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        position = bom ? 3 : 0
        firstLineStart = position
    }

    /// The next line of `bytes` (the same bytes given to `init`), or nil at the end.
    @inlinable
    package mutating func next<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes) -> TextLine? where Bytes.Index == Int {
        guard position < bytes.count else { return nil }
        let start = position
        // One line's worth plus a CR: enough to tell a line at the limit from one past it.
        let limit = min(bytes.count, start + maxLineBytes + 2)
        var i = start
        var specials = 0
        while i < limit {
            let b = bytes[i]
            if b == 0x0A { break }
            if (b < 0x20 && b != 0x09) || b >= 0x7F { specials &+= 1 }
            i += 1
        }
        var end = i
        if end > start, bytes[end - 1] == 0x0D {
            end -= 1
            specials -= 1
        }
        count += 1
        position = i + 1
        return TextLine(number: count, start: start, end: end, tooLong: end - start > maxLineBytes, specials: specials)
    }
}

extension RandomAccessCollection<UInt8> where Index == Int {
    /// The 1-based column of the byte at `offset` on a line starting at
    /// `lineStart`, counting characters (Unicode scalars) as an editor shows them.
    @inlinable
    package func textColumn(of offset: Int, lineStart: Int) -> Int {
        var n = 1
        var k = lineStart
        while k < offset {
            if self[k] & 0xC0 != 0x80 { n += 1 }
            k += 1
        }
        return n
    }

    /// `start..<end` without leading and trailing spaces and tabs.
    @inlinable
    package func trimmedRange(_ start: Int, _ end: Int) -> (Int, Int) {
        var a = start, b = end
        while a < b, self[a] == 0x20 || self[a] == 0x09 { a += 1 }
        while b > a, self[b - 1] == 0x20 || self[b - 1] == 0x09 { b -= 1 }
        return (a, b)
    }

    /// The bytes `start..<end` as a string.
    package func text(_ start: Int, _ end: Int) -> String {
        String(decoding: self[start..<end], as: UTF8.self)
    }

    /// The bytes `start..<end` for an error message: quoted and cut to 32
    /// characters, or `nothing`.
    package func foundText(_ start: Int, _ end: Int) -> String {
        guard start < end else { return "nothing" }
        return quotedForMessage(text(start, end))
    }
}

/// `text` cut to 32 characters with `...`: a value shown in an error message.
package func clippedForMessage(_ text: String) -> String {
    text.count > 32 ? text.prefix(32) + "..." : text
}

/// `'text'`, cut as `clippedForMessage` cuts it.
package func quotedForMessage(_ text: String) -> String { "'\(clippedForMessage(text))'" }
