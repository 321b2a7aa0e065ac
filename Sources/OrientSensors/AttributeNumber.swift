import OrientProtocol

/// A sysfs attribute that could not be used, with its text and why.
public struct AttributeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The attribute's file name (`in_illuminance_raw`), or the udev property.
    public var attribute: String
    /// Its text as read (clipped when shown).
    public var value: String
    /// What is wrong.
    public var message: String

    /// An error about `attribute`, whose text was `value`.
    public init(attribute: String, value: String, message: String) {
        self.attribute = attribute
        self.value = value
        self.message = message
    }

    /// `in_illuminance_raw 'abc': not a decimal number`.
    public var description: String {
        "\(attribute) '\(trimmedAttribute(value).prefix(40))': \(message)"
    }
}

/// An attribute's text without the surrounding whitespace and sysfs's newline.
func trimmedAttribute(_ text: some StringProtocol) -> Substring {
    var slice = Substring(text)
    while let first = slice.first, first == " " || first == "\t" || first == "\n" || first == "\r" { slice.removeFirst() }
    while let last = slice.last, last == " " || last == "\t" || last == "\n" || last == "\r" { slice.removeLast() }
    return slice
}

/// `attributeNumber(_:attribute:)` for the bytes a poll read: no String is
/// made unless they are not a number (the message needs one).
package func attributeNumber(_ bytes: [UInt8], attribute: @autoclosure () -> String) throws(AttributeError) -> Double {
    var start = 0, end = bytes.count
    while start < end, isAttributeSpace(bytes[start]) { start += 1 }
    while end > start, isAttributeSpace(bytes[end - 1]) { end -= 1 }
    if end - start <= 64, let value = DecimalNumber.parse(bytes[start..<end]), value.isFinite { return value }
    return try attributeNumber(String(decoding: bytes, as: UTF8.self), attribute: attribute())
}

/// The whitespace `trimmedAttribute` takes off, as a byte.
private func isAttributeSpace(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
}

/// Parses a sysfs number (C locale, surrounding whitespace allowed) that must be finite.
package func attributeNumber(_ text: String, attribute: @autoclosure () -> String) throws(AttributeError) -> Double {
    let trimmed = trimmedAttribute(text)
    guard trimmed.utf8.count <= 64, let value = DecimalNumber.parse(trimmed), value.isFinite else {
        let message: String
        if trimmed.isEmpty {
            message = "the attribute is empty"
        } else if trimmed.utf8.count > 64 {
            message = "too long for a number"
        } else if trimmed.utf8.contains(UInt8(ascii: ",")) {
            // (Not `contains(",")`: the substring search comes from
            // _StringProcessing, which orientd does not link.)
            message = "not a decimal number: sysfs numbers use '.' as the decimal point"
        } else {
            message = "not a decimal number"
        }
        throw AttributeError(attribute: attribute(), value: text, message: message)
    }
    return value
}
