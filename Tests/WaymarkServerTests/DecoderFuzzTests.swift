import Foundation
import NIOCore
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// Mutated bodies through every decoder and the validator: each either decodes or throws a
/// ``ServerError`` of a 4xx code; nothing traps. (The million-body run belongs in a benchmark script.)
@Suite("Decoder fuzzing")
struct DecoderFuzzTests {
    static let seeds = [
        #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"timestamp":"2025-06-15T10:00:00Z","speed":3,"battery_level":0.5,"motion":["walking"]}}]}"#,
        #"{"_type":"location","acc":15,"alt":440,"batt":46,"bs":2,"lat":46.0681247,"lon":11.1512805,"tst":1551874878,"vac":2,"vel":9}"#,
        #"{"location":{"timestamp":"2021-07-21T08:06:34.444Z","coords":{"latitude":-6.11,"longitude":106.68,"speed":18.67,"heading":63},"battery":{"level":0.79,"is_charging":false}},"device_id":"x"}"#,
        "id=abc&lat=42.06288&lon=-88.23412&timestamp=2016-01-27T18%3A55%3A47Z&hdop=6.0&altitude=224.0&speed=0.0&batt=50&charge=true",
    ]
    static let alphabet = Array(#"{}[]":,.-+eE0123456789 tnfalsru%&=TZ\"#.utf8)

    static func mutate(_ bytes: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var b = bytes
        for _ in 0..<Int.random(in: 1...6, using: &rng) where !b.isEmpty {
            let i = Int.random(in: 0..<b.count, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: b[i] = alphabet.randomElement(using: &rng)!
            case 1: b.remove(at: i)
            case 2: b.insert(alphabet.randomElement(using: &rng)!, at: i)
            default: b = Array(b.prefix(i))
            }
        }
        return b
    }

    @Test("mutated bodies decode or fail with a 4xx error, never trap", arguments: 0..<4)
    func fuzz(seedIndex: Int) {
        var rng = SplitMix64(seed: UInt64(seedIndex + 1))
        let validator = PositionValidator(now: Date(timeIntervalSince1970: 1_750_000_000))
        let original = Array(Self.seeds[seedIndex].utf8)
        var decoded = 0
        for _ in 0..<3000 {
            let body = Self.mutate(original, &rng)
            do {
                let result: DecodedBody
                switch seedIndex {
                case 0: result = try OverlandDecoder.decode(try JSONBody.parse(ByteBuffer(bytes: body)))
                case 1: result = try OwnTracksDecoder.decode(try JSONBody.parse(ByteBuffer(bytes: body)))
                case 2: result = try TraccarJSONDecoder.decode(try JSONBody.parse(ByteBuffer(bytes: body)))
                default: result = OsmAndDecoder.decode(FormFields(String(decoding: body, as: UTF8.self)), receivedAt: validator.now)
                }
                let outcome = validator.validate(result.candidates, deviceID: "d")
                _ = outcome.rejections.sample.map(\.description)
                decoded += outcome.positions.count
            } catch let error as ServerError {
                #expect((400..<500).contains(error.code.status), "\(error)")
            } catch {
                Issue.record("unexpected error type \(type(of: error)): \(error)")
            }
        }
        #expect(decoded > 0)
    }
}
