import Foundation

/// ISO-8601 / XML Schema `dateTime` parsing and formatting for GPX (internal).
///
/// Parsing accepts `YYYY-MM-DDThh:mm:ss`, optional fractional seconds of any
/// length (the first 18 digits count), and an optional zone: `Z`, `±hh:mm`,
/// `±hhmm` or `±hh`. A time without a zone is taken as UTC, as GPX requires.
/// Formatting writes UTC with `Z` and the fewest fractional digits that parse
/// back to the identical `Date`.
enum GPXTime {
    static let unixToReference: Int = 978_307_200

    /// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days-from-civil algorithm).
    @inline(__always)
    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Seconds since the reference date for whole seconds `s` plus `digits` fractional digits valued `v`.
    @inline(__always)
    static func combine(_ s: Int, _ v: UInt64, _ digits: Int) -> Double {
        if digits == 0 { return Double(s) }
        let scale = GPXNumberParsing.exactPowerOfTen(digits)
        return Double(s) + Double(v) / scale
    }

    /// Parses a GPX time to a `Date`; nil when the text is not a valid dateTime.
    static func parse(_ p: UnsafePointer<UInt8>, _ count: Int) -> Date? {
        var s = 0, e = count
        while s < e && XMLTokenizer.isSpace(p[s]) { s += 1 }
        while e > s && XMLTokenizer.isSpace(p[e - 1]) { e -= 1 }
        var i = s
        @inline(__always) func num(_ n: Int) -> Int? {
            guard i + n <= e else { return nil }
            var v = 0
            for k in 0..<n {
                let d = p[i + k] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            i += n
            return v
        }
        @inline(__always) func expect(_ c: UInt8) -> Bool {
            guard i < e && p[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = num(4), expect(UInt8(ascii: "-")), let month = num(2), expect(UInt8(ascii: "-")),
              let day = num(2) else { return nil }
        guard i < e, p[i] == UInt8(ascii: "T") || p[i] == UInt8(ascii: "t") || p[i] == UInt8(ascii: " ") else { return nil }
        i += 1
        guard let hour = num(2), expect(UInt8(ascii: ":")), let minute = num(2), expect(UInt8(ascii: ":")),
              let second = num(2) else { return nil }
        guard month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month),
              hour <= 24 && minute <= 59 && second <= 60,
              hour < 24 || (minute == 0 && second == 0) else { return nil }
        var fraction: UInt64 = 0
        var fractionDigits = 0
        if i < e && (p[i] == UInt8(ascii: ".") || p[i] == UInt8(ascii: ",")) {
            i += 1
            let start = i
            while i < e, case let d = p[i] &- UInt8(ascii: "0"), d < 10 {
                if fractionDigits < 18 { fraction = fraction * 10 + UInt64(d); fractionDigits += 1 }
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if i < e {
            let c = p[i]
            if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") {
                i += 1
            } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                i += 1
                guard let oh = num(2), oh <= 23 else { return nil }
                var om = 0
                if i < e {
                    _ = expect(UInt8(ascii: ":"))
                    guard let m = num(2), m <= 59 else { return nil }
                    om = m
                }
                offset = (oh * 3600 + om * 60) * (c == UInt8(ascii: "-") ? -1 : 1)
            } else {
                return nil
            }
        }
        guard i == e else { return nil }
        let unix = CivilDate.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSinceReferenceDate: combine(unix - unixToReference, fraction, fractionDigits))
    }

    /// Formats a `Date` as `YYYY-MM-DDThh:mm:ss[.fff…]Z` in UTC, with the shortest exact fraction.
    static func format(_ date: Date) -> String {
        let t = date.timeIntervalSinceReferenceDate
        let whole = t.rounded(.down)
        let s = Int(whole)
        let frac = t - whole
        var fractionText = ""
        if frac != 0 {
            var scale: UInt64 = 1
            for digits in 1...18 {
                scale *= 10
                let v = UInt64((frac * Double(scale)).rounded())
                if v < scale && combine(s, v, digits) == t {
                    var text = String(v)
                    text = String(repeating: "0", count: digits - text.count) + text
                    fractionText = "." + text
                    break
                }
            }
        }
        let unix = s + unixToReference
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let secondsOfDay = unix - days * 86_400
        let (y, m, d) = CivilDate.date(days: days)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = y >= 0 && y < 10_000 ? String(repeating: "0", count: 4 - String(y).count) + String(y) : String(y)
        return "\(year)-\(two(m))-\(two(d))T\(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):\(two(secondsOfDay % 60))\(fractionText)Z"
    }
}
