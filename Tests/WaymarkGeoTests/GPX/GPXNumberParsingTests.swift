import Foundation
import Testing
@testable import WaymarkGeo

@Suite("GPX number and time parsing")
struct GPXNumberParsingTests {
    /// A deterministic generator (SplitMix64) so failures reproduce.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func parse(_ s: String) -> Double? {
        Array(s.utf8).withUnsafeBufferPointer { GPXNumberParsing.parseDouble($0.baseAddress!, $0.count) }
    }

    static func randomDecimal(_ rng: inout SplitMix) -> String {
        let intDigits = Int.random(in: 0...4, using: &rng)
        let fracDigits = Int.random(in: 0...22, using: &rng)
        var s = Bool.random(using: &rng) ? "-" : ""
        s += intDigits == 0 ? "0" : String((0..<intDigits).map { _ in "0123456789".randomElement(using: &rng)! })
        if fracDigits > 0 { s += "." + String((0..<fracDigits).map { _ in "0123456789".randomElement(using: &rng)! }) }
        if Int.random(in: 0..<8, using: &rng) == 0 { s += "e\(Int.random(in: -30...30, using: &rng))" }
        return s
    }

    @Test("parses 200,000 random decimals bit-for-bit like Double(String)")
    func matchesStandardLibrary() {
        var rng = SplitMix(state: 42)
        var mismatches: [String] = []
        for _ in 0..<200_000 {
            let s = Self.randomDecimal(&rng)
            let ours = Self.parse(s)
            let reference = Double(s)
            if ours?.bitPattern != reference?.bitPattern { mismatches.append(s) }
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5))")
    }

    @Test("parses the shortest text of random doubles back to the same bits")
    func roundTripsShortest() {
        var rng = SplitMix(state: 7)
        for _ in 0..<50_000 {
            let v = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF) * (Bool.random(using: &rng) ? 1 : -1)
            guard v.isFinite else { continue }
            #expect(Self.parse(GPXWriter.decimal(v)) == v, "\(v)")
        }
    }

    @Test("accepts decimal forms and whitespace", arguments: [
        ("46.0569317", 46.0569317), ("-0.5", -0.5), ("+3", 3.0), (".25", 0.25), ("7.", 7.0),
        ("  12.5\n", 12.5), ("1e-5", 1e-5), ("1E3", 1000.0), ("0.000005", 0.000005),
        ("46.05693171234567891234", 46.05693171234567891234),
    ])
    func accepts(text: String, value: Double) {
        #expect(Self.parse(text) == value)
    }

    @Test("rejects what is not a number", arguments: ["", " ", "NaN", "inf", "-", ".", "1.2.3", "12,5", "1e", "0x10", "1 2", "1e999"])
    func rejects(text: String) {
        #expect(Self.parse(text) == nil)
    }

    @Test("writes decimals without exponent notation", arguments: [
        (1e-5, "0.00001"), (1.5e20, "150000000000000000000"), (5.0, "5"), (-0.25, "-0.25"), (46.0569317, "46.0569317"),
    ])
    func decimalText(value: Double, text: String) {
        #expect(GPXWriter.decimal(value) == text)
    }

    @Test("formats random times so that they parse back to the identical Date")
    func timeRoundTrip() {
        var rng = SplitMix(state: 99)
        for _ in 0..<20_000 {
            let seconds = Double.random(in: -2_000_000_000...4_000_000_000, using: &rng)
            let precise = Bool.random(using: &rng) ? seconds : seconds.rounded(.down) + Double(Int.random(in: 0..<1000, using: &rng)) / 1000
            let date = Date(timeIntervalSince1970: precise)
            let text = GPXTime.format(date)
            let back = Array(text.utf8).withUnsafeBufferPointer { GPXTime.parse($0.baseAddress!, $0.count) }
            #expect(back == date, "\(text)")
        }
    }

    @Test("writes whole and millisecond times compactly", arguments: [
        (1_714_557_600.0, "2024-05-01T10:00:00Z"), (1_714_557_600.25, "2024-05-01T10:00:00.25Z"),
        (0.0, "1970-01-01T00:00:00Z"), (951_782_400.0, "2000-02-29T00:00:00Z"),
    ])
    func timeText(unix: Double, text: String) {
        #expect(GPXTime.format(Date(timeIntervalSince1970: unix)) == text)
    }

    @Test("rejects impossible times", arguments: [
        "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-05-01T25:00:00Z",
        "2024-05-01", "2024-05-01T10:00:00Q", "2024-05-01T10:00:00.Z", "2024-05-01T10:00:00+2",
    ])
    func rejectsTimes(text: String) {
        #expect(Array(text.utf8).withUnsafeBufferPointer { GPXTime.parse($0.baseAddress!, $0.count) } == nil)
    }
}
