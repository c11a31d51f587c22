/// Writes JSON text by hand: the one JSON string and number writer of the package, used by the
/// GeoJSON writer and by `WaymarkTransport`'s native batch format.
///
/// ```swift
/// JSONText.quoted("a \"b\"\n")   // "\"a \\\"b\\\"\\n\""
/// JSONText.number(5.0)          // "5"
/// ```
public enum JSONText {
    /// `value` as a JSON string literal, quotes included: `"` and `\` escaped, newline, return and
    /// tab as `\n`, `\r`, `\t`, other control characters as `\u00XX`; everything else as is.
    public static func quoted(_ value: String) -> String {
        var out = "\""
        out.reserveCapacity(value.utf8.count + 2)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A finite number in the shortest form that reads back to the same `Double` (whole numbers
    /// under 10^15 without a fraction); `null` otherwise.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), value.magnitude < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
