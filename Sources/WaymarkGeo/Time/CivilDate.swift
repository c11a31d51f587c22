/// Conversions between proleptic Gregorian calendar dates and day counts since 1970-01-01.
///
/// Exact integer arithmetic (Howard Hinnant's published civil-date algorithms), valid far beyond
/// any timestamp range; no time zones, no `Calendar`, no allocation. Used by the GPX time parser and
/// the server's timestamp parser.
///
/// ```swift
/// CivilDate.days(year: 2000, month: 3, day: 1)   // 11_017
/// CivilDate.date(days: 11_017)                     // (2000, 3, 1)
/// ```
///
/// Pure functions; safe from any thread.
public enum CivilDate {
    /// Days since 1970-01-01 of a date (month 1–12, day 1–31; not range-checked).
    @inlinable
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day count since 1970-01-01; the inverse of ``days(year:month:day:)``.
    @inlinable
    public static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
