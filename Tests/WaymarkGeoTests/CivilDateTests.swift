import Foundation
import Testing
import WaymarkGeo

@Suite("Civil dates")
struct CivilDateTests {
    @Test("day counts match Foundation's Gregorian calendar and invert exactly",
          arguments: [(1970, 1, 1), (2000, 2, 29), (2000, 3, 1), (1900, 2, 28), (1969, 12, 31), (2400, 12, 31), (1583, 1, 1)])   // Foundation switches to the Julian calendar before 1582
    func matchesCalendar(year: Int, month: Int, day: Int) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let date = try #require(calendar.date(from: DateComponents(year: year, month: month, day: day)))
        let expected = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        #expect(CivilDate.days(year: year, month: month, day: day) == expected)
        let back = CivilDate.date(days: expected)
        #expect(back.year == year && back.month == month && back.day == day)
    }

    @Test("every day of four centuries round-trips and consecutive days count up by one")
    func roundTrip() {
        var previous = CivilDate.days(year: 1799, month: 12, day: 31)
        for days in (previous + 1)...(previous + 146_097) {
            let d = CivilDate.date(days: days)
            #expect(CivilDate.days(year: d.year, month: d.month, day: d.day) == days)
            #expect(days == previous + 1)
            previous = days
        }
    }
}
