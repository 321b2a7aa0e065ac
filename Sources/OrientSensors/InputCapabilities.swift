/// An input device's capability bitmap as sysfs shows it
/// (`capabilities/sw`, `capabilities/abs`): words of hex, the most
/// significant first, separated by spaces (`7`, `800 0`, `1000000000000000 0`).
public enum InputCapabilities {
    /// Whether bit `bit` is set in `text`; false for text that is not such a bitmap.
    public static func has(bit: Int, in text: String, wordBits: Int = 64) -> Bool {
        let trimmed = trimmedAttribute(text)
        guard bit >= 0, trimmed.utf8.count <= 1024 else { return false }
        let words = trimmed.split(separator: " ")
        let index = bit / wordBits
        guard index < words.count else { return false }
        let word = words[words.count - 1 - index]
        guard word.utf8.count <= wordBits / 4, let value = UInt64(word, radix: 16) else { return false }
        return value & (1 << UInt64(bit % wordBits)) != 0
    }
}
