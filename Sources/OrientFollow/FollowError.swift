/// Why `orientctl follow` cannot start or cannot read what a tool answered;
/// the message names the option, value or tool involved.
package struct FollowError: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
