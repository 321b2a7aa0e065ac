/// Why a document is not JSON, with the 0-based byte offset where parsing stopped.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 0-based offset of the offending byte in the input (the input's length at end of input).
    public var offset: Int
    /// What is wrong, without the position: "expected ':' after object key".
    public var message: String

    /// An error `message` about the byte at `offset`.
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    /// The message with its position: "expected ':' after object key at byte 17".
    public var description: String { "\(message) at byte \(offset)" }
}
