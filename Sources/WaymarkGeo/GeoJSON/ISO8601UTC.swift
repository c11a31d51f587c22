import Foundation

/// ISO-8601 timestamps in UTC for the GeoJSON and CSV writers and the GeoJSON reader (internal).
///
/// Output looks like `2024-05-01T10:00:00Z`, or `2024-05-01T10:00:00.250Z` when the
/// time has a fractional second (rounded to the millisecond). Formatting is done by
/// hand (days-to-civil-date arithmetic), so it is fast and needs no formatter object.
enum ISO8601UTC {
    /// The timestamp of `date` in UTC.
    static func string(_ date: Date) -> String {
        let totalMillis = (date.timeIntervalSince1970 * 1000).rounded()
        guard totalMillis.magnitude < 1e17 else { return "\(date)" }
        let millis = Int64(totalMillis)
        let seconds = floorDiv(millis, 1000), milli = Int(millis - seconds * 1000)
        let days = floorDiv(seconds, 86_400), secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = CivilDate.date(days: Int(days))
        var s = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
        s += "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if milli != 0 { s += ".\(pad(milli, 3))" }
        return s + "Z"
    }

    /// Parses an ISO-8601 date-time with a time-zone designator, with or without fractional seconds.
    static func date(from string: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = withFraction.date(from: string) { return d }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        return plain.date(from: string)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func pad(_ value: some BinaryInteger, _ width: Int) -> String {
        let text = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
