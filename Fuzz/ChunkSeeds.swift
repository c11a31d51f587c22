// Writes valid chunks (PositionChunkCodec) as seed inputs for Fuzz/FuzzPositionChunk.swift: built and run by
// Scripts/fuzz_chunks.sh with the same sources, into the directory given as the first argument.
import Foundation

@main
struct ChunkSeeds {
    static func main() throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[1])
        var random = SplitMix64(seed: 1)
        for (index, count) in [1, 2, 7, 60, 300].enumerated() {
            var millis = Int64(1_790_000_000_000)
            let points = (0..<count).map { i -> ChunkPoint in
                millis += Int64.random(in: 1...90_000, using: &random)
                let full = i % 3 == 0
                var fix = Fix(coordinate: Coordinate(uncheckedLatitude: full ? 46.05 + Double.random(in: 0...0.01, using: &random) : 46.0512345,
                                                     longitude: 14.5 + Double(i) * 0.0000581),
                              altitude: i % 4 == 0 ? nil : 295.5, horizontalAccuracy: Double(Float(4.7)), verticalAccuracy: full ? nil : 3,
                              speed: Double(Float(Double(i) * 0.37)), course: Double(i % 360), timestamp: Date(millisecondsSince1970: millis),
                              source: Fix.Source.allCases[i % Fix.Source.allCases.count])
                // Chunks of 7 and 300 points carry honesty marks (version 2); the others none (version 1).
                if count == 7 || count == 300 { fix.packedFlags = [0, 1, 3, 5, 9, 15][i % 6] }
                let position = Position(deviceID: "seed", fix: fix, batteryLevel: i % 5 == 0 ? nil : 0.8,
                                        isCharging: [nil, true, false][i % 3], activity: i % 2 == 0 ? "walking" : nil)
                return ChunkPoint(position: position, receivedMillis: index % 2 == 0 ? millis + 300 : 1_790_000_900_000)
            }
            try Data(PositionChunkCodec.encode(points)).write(to: directory.appendingPathComponent("seed-\(count)"))
        }
    }
}
