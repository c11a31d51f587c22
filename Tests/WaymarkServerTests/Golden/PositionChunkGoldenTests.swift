import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// Chunks as the version 1 codec wrote them on 2026-11-28, checked in byte for byte. PostgreSQL keeps
/// finished days in this form, so these bytes must decode to the same points forever; and as long as the
/// version byte stays 1, today's encoder must write exactly these bytes (a change to the format needs a new
/// version, with these chunks still read).
@Suite("Position chunk golden bytes")
struct PositionChunkGoldenTests {
    struct Golden: Sendable, CustomTestStringConvertible {
        let name: String
        let hex: String
        let points: [ChunkPoint]
        var testDescription: String { name }
        var bytes: [UInt8] {
            stride(from: 0, to: hex.count, by: 2).map { offset in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            }
        }
    }

    static let chunks = [
        Golden(name: "one batch, receive times as times",
               hex: "01058090cf97d966e807e807dc0bb4b9030002e0e4d297d96601000407e4e2adee06d00d039899ed921f010000000000000080"
                   + "c8d7a0c60607a4cad69402941203d885a0878601b2ecf3fd1cfcf2d7cd35021b02909b0750e6c207e0abd801010014000"
                   + "19afbffffffff1340f001942a0217000c00008403010680b2810880b518010000000000000080fee69908d4e8bceb0102"
                   + "1b02b89102ac02f4d006d6e408021b02c4020002500301020001020202076379636c696e6709f09f9ab220726964650301"
                   + "03000102010404676e737305667573656404776966690463656c6c040102020103010401",
               points: PositionChunkGoldenPoints.batch),
        Golden(name: "a trickle before 1970, receive times as offsets",
               hex: "0104f5f1b252e807e807abc198f7010101a01f0404e8d67d040404043a0202020000000208013c0000010004010777616c"
                   + "6b696e670200030101020466696c6507756e6b6e6f776e03010202010101",
               points: PositionChunkGoldenPoints.trickle),
    ]

    @Test("checked-in chunks decode to the same points, every double bit for bit", arguments: chunks)
    func decodes(golden: Golden) throws {
        let decoded = try PositionChunkCodec.decode(golden.bytes, deviceID: "van-7")
        #expect(decoded == golden.points)
        #expect(decoded.map(PositionChunkCodecTests.bits) == golden.points.map(PositionChunkCodecTests.bits))
        #expect(decoded.map { $0.position.fix.source } == golden.points.map { $0.position.fix.source })
        #expect(try PositionChunkCodec.timestamps(golden.bytes) == golden.points.map(\.millis))
    }

    @Test("today's encoder writes the checked-in bytes", arguments: chunks)
    func encodes(golden: Golden) {
        #expect(golden.bytes.first == PositionChunkCodec.version)
        let encoded = PositionChunkCodec.encode(golden.points)
        #expect(encoded == golden.bytes,
                "encoded \(encoded.map { String(format: "%02x", $0) }.joined())")
    }
}
