import Foundation
import WaymarkGeo

/// Parses the timestamp spellings tracking apps send; pure and thread-safe.
///
/// Accepted: epoch seconds (`1377177267`, `1377177267.5`), epoch milliseconds (any number
/// above 10^11, i.e. after 1973 in milliseconds), and ISO-8601 / SQL date-times
/// `yyyy-MM-dd[T| ]HH:mm[:ss[.fraction]][Z|±hh[:mm]|±hhmm]`, read as UTC when no zone is given.
enum TimestampParser {
    /// The date for a numeric epoch value: milliseconds when above 10^11, else seconds.
    static func date(epoch value: Double) -> Date? {
        guard value.isFinite else { return nil }
        return Date(timeIntervalSince1970: abs(value) >= 1e11 ? value / 1000 : value)
    }

    /// The date for a textual timestamp (epoch digits or a date-time), or nil.
    static func date(from text: some StringProtocol) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let number = Double(trimmed) { return date(epoch: number) }
        return dateTime(Array(trimmed.utf8))
    }

    /// Formats a date as ISO-8601 UTC with milliseconds, e.g. `2016-01-27T18:55:47.000Z`.
    static func format(_ date: Date) -> String {
        // Years beyond ±100 000 are not worth a calendar date (and would overflow the arithmetic).
        guard abs(date.timeIntervalSince1970) < 3e12 else { return "\(date.timeIntervalSince1970) s after 1970" }
        let ms = date.millisecondsSince1970
        if let text = UTCMillisecondTimestamp.string(millis: ms) { return text }
        // Years outside 0…9999 (no real fix has one).
        let days = Int64((Double(ms) / 86_400_000).rounded(.down))
        let msOfDay = ms - days * 86_400_000
        let (y, m, d) = CivilDate.date(days: Int(days))
        let s = msOfDay / 1000
        return String(format: "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ",
                      Int64(y), Int64(m), Int64(d), s / 3600, (s / 60) % 60, s % 60, msOfDay % 1000)
    }

    private static func dateTime(_ b: [UInt8]) -> Date? {
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in i..<(i + n) {
                guard b[k] >= 48, b[k] <= 57 else { return nil }
                v = v * 10 + Int64(b[k] - 48)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        guard i < b.count, b[i] == 84 || b[i] == 116 || b[i] == 32 else { return nil }  // T, t, space
        i += 1
        guard let hour = digits(2), expect(58), let minute = digits(2), hour < 24, minute < 60 else { return nil }
        var second: Int64 = 0
        var fraction = 0.0
        if expect(58) {
            guard let s = digits(2), s < 61 else { return nil }
            second = s
            if i < b.count, b[i] == 46 || b[i] == 44 {  // . or ,
                i += 1
                var scale = 0.1
                let start = i
                while i < b.count, b[i] >= 48, b[i] <= 57 {
                    fraction += Double(b[i] - 48) * scale
                    scale /= 10
                    i += 1
                }
                guard i > start else { return nil }
            }
        }
        var offsetSeconds: Int64 = 0
        if i < b.count {
            if b[i] == 90 || b[i] == 122 {  // Z
                i += 1
            } else if b[i] == 43 || b[i] == 45 {  // + -
                let sign: Int64 = b[i] == 45 ? -1 : 1
                i += 1
                guard let oh = digits(2) else { return nil }
                var om: Int64 = 0
                if i < b.count {
                    _ = expect(58)
                    guard let m = digits(2) else { return nil }
                    om = m
                }
                // Real offsets run from -12:00 to +14:00; anything past ±23:59 is not a time zone.
                guard oh <= 23, om <= 59 else { return nil }
                offsetSeconds = sign * (oh * 3600 + om * 60)
            }
        }
        guard i == b.count else { return nil }
        let days = Int64(CivilDate.days(year: Int(year), month: Int(month), day: Int(day)))
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}
