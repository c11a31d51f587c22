import Foundation
import Testing
import WaymarkGeo

@Suite("UTC millisecond timestamps")
struct UTCMillisecondTimestampTests {
    @Test("writes known instants, before 1970 included, and refuses years past four digits")
    func knownInstants() {
        #expect(UTCMillisecondTimestamp.string(millis: 0) == "1970-01-01T00:00:00.000Z")
        #expect(UTCMillisecondTimestamp.string(millis: 1_750_000_000_123) == "2025-06-15T15:06:40.123Z")
        #expect(UTCMillisecondTimestamp.string(millis: -1) == "1969-12-31T23:59:59.999Z")
        #expect(UTCMillisecondTimestamp.string(millis: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(UTCMillisecondTimestamp.string(millis: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
        #expect(UTCMillisecondTimestamp.string(millis: -62_167_219_200_000) == "0000-01-01T00:00:00.000Z")
        #expect(UTCMillisecondTimestamp.string(millis: 253_402_300_800_000) == nil)
        #expect(UTCMillisecondTimestamp.string(millis: -62_167_219_200_001) == nil)
    }

    @Test("writes in place, touching only its 24 bytes")
    func inPlace() {
        var bytes = Array(("<<" + String(repeating: "?", count: 24) + ">>").utf8)
        #expect(UTCMillisecondTimestamp.write(millis: 86_400_001, into: &bytes, at: 2))
        #expect(String(decoding: bytes, as: UTF8.self) == "<<1970-01-02T00:00:00.001Z>>")
        var unchanged = bytes
        #expect(!UTCMillisecondTimestamp.write(millis: .max / 2, into: &unchanged, at: 2))
        #expect(unchanged == bytes)
    }

    @Test("agrees with Foundation's formatter on 2,000 random instants in 1600…9999")
    func matchesFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        var rng = SplitMix64(seed: 12)
        for _ in 0..<2000 {
            let millis = Int64.random(in: -11_676_096_000_000...253_402_300_799_999, using: &rng)
            #expect(UTCMillisecondTimestamp.string(millis: millis)
                    == formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1000)))
        }
    }
}
