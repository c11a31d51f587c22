import Foundation
import NIOCore
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// The native fast path reads the same points as the general decoder wherever it accepts a body.
@Suite("Native batch fast path")
struct NativeBatchScannerTests {
    static let batch = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.500123,46.050456,301.25]},"properties":{"timestamp":"2026-11-01T03:00:00.125Z","speed":4.2,"course":90,"horizontal_accuracy":5,"vertical_accuracy":-1,"battery_level":0.81,"battery_state":"charging","motion":["driving","stationary"],"extra":{"nested":[1,2,{"x":null}]}}},{"type":"Feature","geometry":{"type":"Point","coordinates":[-0.1e1,1E-2]},"properties":{"timestamp":1762000000.5,"altitude":null,"activity":"walking"}}],"device":"x"}"#

    @Test("reads a batch exactly as the general decoder does")
    func sameAsGeneral() throws {
        let fast = try #require(NativeBatchScanner.decode(ByteBuffer(string: Self.batch)))
        #expect(PayloadCheck.nativeFastPathMismatch(Array(Self.batch.utf8)) == nil)
        #expect(fast.candidates.count == 2)
        let first = fast.candidates[0]
        #expect(first.longitude == 14.500123 && first.latitude == 46.050456 && first.altitude == 301.25)
        #expect(first.timestamp == Date(timeIntervalSince1970: 1_793_502_000.125))
        #expect(first.isCharging == true && first.activity == "driving" && first.verticalAccuracy == -1)
        let second = fast.candidates[1]
        #expect(second.longitude == -1 && second.latitude == 0.01 && second.activity == "walking" && second.altitude == nil)
        #expect(second.timestamp == Date(timeIntervalSince1970: 1_762_000_000.5))
    }

    @Test("leaves escapes, numeric strings, duplicates and invalid JSON to the general decoder", arguments: [
        #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2026-11-01T03:00:00Z","activity":"w\u0061lk"}}]}"#,
        #"{"locations":[{"geometry":{"coordinates":["14.5",46.05]},"properties":{"timestamp":"2026-11-01T03:00:00Z"}}]}"#,
        #"{"locations":[{"geometry":{"coordinates":[14.5,46.05]},"geometry":{"coordinates":[1,2]}}]}"#,
        #"{"locations":[{"geometry":{"coordinates":[14.5,46.05]},"properties":{"timestamp":"2026-11-01T03:00:00Z"}}]} x"#,
        #"{"locations":[{"geometry":{"coordinates":[014.5,46.05]}}]}"#,
        #"{"locations":[{"properties":{"timestamp":"2026-11-01T03:00:00Z"}}]}"#,
        "{\"locations\":[{\"geometry\":{\"coordinates\":[14.5,46.05]},\"properties\":{\"motion\":[\"\u{FEFF}walk\"]}}]}",
    ])
    func fallsBack(body: String) {
        #expect(NativeBatchScanner.decode(ByteBuffer(string: body)) == nil)
    }

    @Test("mutated batches: wherever the fast path accepts, the general decoder agrees")
    func differential() {
        var rng = SplitMix64(seed: 5)
        var accepted = 0
        for _ in 0..<5000 {
            let body = DecoderFuzzTests.mutate(Array(Self.batch.utf8), &rng)
            if let mismatch = PayloadCheck.nativeFastPathMismatch(body) {
                Issue.record("\(mismatch) for \(String(decoding: body, as: UTF8.self))")
            }
            if NativeBatchScanner.decode(ByteBuffer(bytes: body)) != nil { accepted += 1 }
        }
        #expect(accepted > 100)
    }
}
