import OrientProtocol

/// The sampling-frequency fix-up done when a sensor is opened: ask for about
/// 20 Hz, never less than 10 Hz where the device allows it (iio-sensor-proxy
/// rewrites anything below 10 Hz, since some sensors default to 0 Hz and some
/// block `_raw` reads for seconds at 1 Hz).
///
/// ```swift
/// SamplingFrequency.choose(available: "12.5 25 50 100\n", current: "100\n")  // 25
/// SamplingFrequency.choose(available: nil, current: "5.2\n")                 // 10
/// ```
package enum SamplingFrequency {
    /// The value to write to `sampling_frequency` (or `in_accel_sampling_frequency`),
    /// in Hz, or nil to leave the attribute as it is.
    ///
    /// - Parameters:
    ///   - available: `sampling_frequency_available` as read: space-separated
    ///     decimals (`1.5625 3.125 6.25 12.5 25`) or a range `[min step max]`;
    ///     nil when the attribute does not exist.
    ///   - current: `sampling_frequency` as read; nil when it does not exist.
    ///   - target: the rate orientd would like, in Hz.
    ///   - minimum: the lowest acceptable rate, in Hz.
    /// - Returns: with a list, the available value nearest to `target` among those
    ///   ≥ `minimum` (the lower of two equally near), or the largest available
    ///   value when none reaches `minimum`; nil when that is already `current`.
    ///   Without a list (a HID sensor's report interval), `target` when
    ///   `current` is below it, else nil. Nil for a malformed list or a
    ///   malformed `current` without a list.
    package static func choose(
        available: String?, current: String?, target: Double = 20, minimum: Double = 10
    ) -> Double? {
        let currentValue = current.flatMap { DecimalNumber.parse(sysfsTrimmed($0)) }
        guard let available, !sysfsTrimmed(available).isEmpty else {
            guard let currentValue else { return nil }
            return currentValue < target * (1 - 1e-9) ? target : nil
        }
        guard let choice = pick(from: sysfsTrimmed(available), target: target, minimum: minimum) else { return nil }
        if let currentValue, abs(currentValue - choice) <= 1e-9 * max(1, abs(choice)) { return nil }
        return choice
    }

    /// A frequency as text for writing to sysfs: plain decimal, at most 6
    /// fractional digits, no exponent (`25`, `12.5`, `1.5625`).
    package static func sysfsText(_ hz: Double) -> String {
        guard hz.isFinite, abs(hz) < 1e12 else { return "0" }
        let micro = Int64((abs(hz) * 1_000_000).rounded())
        let whole = micro / 1_000_000
        var fraction = String(micro % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.last == "0" { fraction.removeLast() }
        let sign = hz < 0 && micro != 0 ? "-" : ""
        return fraction.isEmpty ? "\(sign)\(whole)" : "\(sign)\(whole).\(fraction)"
    }

    private static func pick(from text: Substring, target: Double, minimum: Double) -> Double? {
        if text.first == "[" {
            guard text.last == "]" else { return nil }
            let values = numbers(text.dropFirst().dropLast())
            guard let values, values.count == 3 else { return nil }
            return pickFromRange(low: values[0], step: values[1], high: values[2], target: target, minimum: minimum)
        }
        guard let values = numbers(text), !values.isEmpty else { return nil }
        let acceptable = values.filter { $0 >= minimum }
        guard !acceptable.isEmpty else { return values.max() }
        return acceptable.min { a, b in
            let da = abs(a - target), db = abs(b - target)
            return da != db ? da < db : a < b
        }
    }

    /// The progression low, low + step, … ≤ high, as the kernel's `IIO_AVAIL_RANGE`.
    private static func pickFromRange(low: Double, step: Double, high: Double, target: Double, minimum: Double) -> Double? {
        guard step > 0, high >= low else { return nil }
        let epsilon = 1e-9
        let last = ((high - low) / step + epsilon).rounded(.down)
        guard last < 1e9 else { return nil }
        let first = max(0, ((minimum - low) / step - epsilon).rounded(.up))
        guard first <= last else { return low + last * step }
        // The nearest point to the target; on a tie, the lower one.
        let ideal = (target - low) / step
        var k = ideal.rounded(.down)
        if ideal - k > 0.5 + epsilon { k += 1 }
        k = min(max(k, first), last)
        return low + k * step
    }

    /// Whitespace-separated non-negative decimals; nil if any is not one.
    private static func numbers(_ text: Substring) -> [Double]? {
        var values: [Double] = []
        for token in text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
            guard let value = DecimalNumber.parse(token), value >= 0 else { return nil }
            values.append(value)
        }
        return values
    }
}
