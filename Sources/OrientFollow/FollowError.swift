/// Why `orientctl follow` cannot start or cannot read what a tool answered;
/// the message names the option, value or tool involved.
public struct FollowError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
