import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkServer

@Suite("Timestamp parsing")
struct TimestampParserTests {
    @Test("reads the spellings tracking apps send", arguments: [
        ("1377177267", 1_377_177_267.0),
        ("1442068686579", 1_442_068_686.579),
        ("2016-01-27T18:55:47Z", 1_453_920_947),
        ("2014-06-04 09:10:11", 1_401_873_011),
        ("2025-06-15T13:45:12.862Z", 1_749_995_112.862),
        ("2015-10-01T08:00:00-0700", 1_443_711_600),
        ("2015-10-01T08:00:00-07:00", 1_443_711_600),
        ("2015-10-01T17:00:00+02", 1_443_711_600),
        ("2000-02-29T00:00:00Z", 951_782_400),
    ])
    func parses(text: String, epoch: Double) throws {
        let date = try #require(TimestampParser.date(from: text))
        #expect(abs(date.timeIntervalSince1970 - epoch) < 1e-6)
    }

    @Test("rejects text that is not a timestamp", arguments: ["", "yesterday", "2016-13-01T00:00:00Z", "2016-01-27T25:00:00Z",
                                                              "2016-01-27", "2016-01-27T18:55:47Zjunk"])
    func rejects(text: String) {
        #expect(TimestampParser.date(from: text) == nil)
    }

    @Test("formats ISO-8601 UTC with milliseconds and round-trips")
    func formats() throws {
        let date = Date(timeIntervalSince1970: 1_749_995_112.862)
        #expect(TimestampParser.format(date) == "2025-06-15T13:45:12.862Z")
        #expect(TimestampParser.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
        #expect(try #require(TimestampParser.date(from: TimestampParser.format(date))) == date)
    }

    @Test("formats like Foundation's DateFormatter for 5,000 random millisecond times in years 1600–9999")
    func formatsLikeFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        var rng = SplitMix64(seed: 5)
        let low: Int64 = -11_676_096_000_000, high: Int64 = 253_402_300_799_999   // 1600-01-01 … 9999-12-31
        for _ in 0..<5000 {
            let date = Date(millisecondsSince1970: Int64.random(in: low...high, using: &rng))
            #expect(TimestampParser.format(date) == formatter.string(from: date))
        }
        // Outside four-digit years the slow path still writes a timestamp.
        #expect(TimestampParser.format(Date(millisecondsSince1970: 253_402_300_800_000)) == "10000-01-01T00:00:00.000Z")
    }
}
