/// A malformed trace: where the first problem is and what to do about it.
///
/// `description` is `file:line:column: message`, the form editors and compilers
/// use, so it can be printed as is.
public struct TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file name given to `TraceReader.parse`.
    public var file: String
    /// 1-based line number.
    public var line: Int
    /// 1-based column, in characters (Unicode scalars; bytes for ASCII), of the
    /// offending field or byte.
    public var column: Int
    /// What was expected and what was found.
    public var message: String

    /// Makes an error; `line` and `column` are 1-based.
    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message`.
    public var description: String { "\(file):\(line):\(column): \(message)" }
}
