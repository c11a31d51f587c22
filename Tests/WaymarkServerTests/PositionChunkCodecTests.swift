import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// The chunk encoding PostgreSQL keeps finished days in: every value back bit for bit, compact on real
/// tracks, and a clear error (never a trap) on damaged bytes.
@Suite("Position chunk codec")
struct PositionChunkCodecTests {
    /// A value of one of the shapes phones and clients send: a short decimal, full double precision,
    /// zero of either sign, tiny, huge, or integral.
    static func number(_ rng: inout SplitMix64, around base: Double, scale: Double) -> Double {
        let raw = base + Double.random(in: -scale...scale, using: &rng)
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: return (raw * 1e6).rounded() / 1e6
        case 1: return (raw * 1e7).rounded() / 1e7
        case 2: return raw
        case 3: return -0.0
        case 4: return 0.0
        case 5: return raw.rounded()
        case 6: return Double.leastNonzeroMagnitude * Double.random(in: 1...9, using: &rng).rounded()
        default: return (raw * 100).rounded() / 100
        }
    }

    static func randomPoints(seed: UInt64, count: Int) -> [ChunkPoint] {
        var rng = SplitMix64(seed: seed)
        var millis = Int64.random(in: -10_000_000_000...2_000_000_000_000, using: &rng)
        var received = millis + 500
        let activities: [String?] = [nil, "walking", "in_vehicle", "still", "🚲 ride", ""]
        return (0..<count).map { _ in
            millis += Int64.random(in: 1...(Bool.random(using: &rng) ? 1500 : 9_000_000_000), using: &rng)
            if Int.random(in: 0..<10, using: &rng) == 0 { received = millis + Int64.random(in: -5_000...86_400_000, using: &rng) }
            func maybe(_ value: @autoclosure () -> Double) -> Double? { Bool.random(using: &rng) ? value() : nil }
            let latitude = min(90, max(-90, number(&rng, around: 46.05, scale: 40)))
            let longitude = min(180, max(-180, number(&rng, around: 14.5, scale: 160)))
            let fix = Fix(coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
                          altitude: maybe(number(&rng, around: 300, scale: 1e4)),
                          horizontalAccuracy: maybe(number(&rng, around: 20, scale: 19)),
                          verticalAccuracy: maybe(number(&rng, around: 8, scale: 7)),
                          speed: maybe(number(&rng, around: 5, scale: 5)), course: maybe(number(&rng, around: 180, scale: 180)),
                          timestamp: Date(millisecondsSince1970: millis),
                          source: Fix.Source.allCases.randomElement(using: &rng)!)
            let position = Position(deviceID: "d", fix: fix, batteryLevel: maybe(Double.random(in: 0...1, using: &rng)),
                                    isCharging: [nil, true, false].randomElement(using: &rng)!,
                                    activity: activities.randomElement(using: &rng)!)
            return ChunkPoint(position: position, receivedMillis: received)
        }
    }

    /// Every double of a point, as bits (so -0.0 and 0.0 differ).
    static func bits(_ point: ChunkPoint) -> [UInt64?] {
        let f = point.position.fix
        return [f.coordinate.latitude, f.coordinate.longitude].map { Optional($0.bitPattern) }
            + [f.altitude, f.horizontalAccuracy, f.verticalAccuracy, f.speed, f.course, point.position.batteryLevel].map { $0?.bitPattern }
    }

    @Test("every field comes back bit for bit, over 200 random chunks", arguments: 0..<4)
    func roundTrip(group: Int) throws {
        for seed in UInt64(group * 50)..<UInt64(group * 50 + 50) {
            let points = Self.randomPoints(seed: seed, count: Int(seed % 7 == 0 ? 1 : 1 + seed * 37 % 700))
            let decoded = try PositionChunkCodec.decode(PositionChunkCodec.encode(points), deviceID: "d")
            #expect(decoded == points, "seed \(seed)")
            #expect(decoded.map(Self.bits) == points.map(Self.bits), "seed \(seed): doubles differ in their bits")
            #expect(try PositionChunkCodec.timestamps(PositionChunkCodec.encode(points)) == points.map(\.millis), "seed \(seed)")
        }
    }

    @Test("a largest chunk round-trips")
    func largest() throws {
        let points = Self.randomPoints(seed: 99, count: PositionChunkCodec.maximumPoints)
        #expect(try PositionChunkCodec.decode(PositionChunkCodec.encode(points), deviceID: "d") == points)
    }

    /// A phone's one-second ride: seven-decimal coordinates, one-decimal altitude and speed, whole accuracies.
    static func ride(count: Int) -> [ChunkPoint] {
        (0..<count).map { i in
            let t = Double(i)
            let fix = Fix(coordinate: Coordinate(uncheckedLatitude: ((46.0500000 + t * 0.0000412 + sin(t / 40) * 0.0001) * 1e7).rounded() / 1e7,
                                                 longitude: ((14.5000000 + t * 0.0000581) * 1e7).rounded() / 1e7),
                          altitude: ((295 + sin(t / 90) * 12) * 10).rounded() / 10, horizontalAccuracy: Double(5 + i % 4),
                          verticalAccuracy: 3, speed: ((5.5 + sin(t / 25)) * 10).rounded() / 10,
                          course: Double(40 + i % 7), timestamp: Date(millisecondsSince1970: 1_790_000_000_000 + Int64(i) * 1000),
                          source: .gnss)
            return ChunkPoint(position: Position(deviceID: "d", fix: fix, batteryLevel: Double(80 - i / 400) / 100, isCharging: false,
                                                 activity: "cycling"), receivedMillis: 1_790_000_000_000 + Int64(i / 60) * 60_000)
        }
    }

    @Test("a real ride takes under 20 bytes a point (a positions row takes about 160)")
    func compact() throws {
        let points = Self.ride(count: 3600)
        let bytes = PositionChunkCodec.encode(Array(points.prefix(PositionChunkCodec.maximumPoints)))
        #expect(Double(bytes.count) / Double(points.count) < 20, "\(bytes.count) bytes for \(points.count) points")
        #expect(try PositionChunkCodec.decode(bytes, deviceID: "d") == points)
    }

    @Test("a ride as iOS reports it (full-precision doubles, float-derived speed and course) takes under 45 bytes a point")
    func compactFullPrecision() throws {
        let points = (0..<3600).map { i -> ChunkPoint in
            let t = Double(i)
            let fix = Fix(coordinate: Coordinate(uncheckedLatitude: 46.05 + t * 0.0000412 + sin(t / 40) * 0.0001,
                                                 longitude: 14.5 + t * 0.0000581 + cos(t / 33) * 0.00007),
                          altitude: 295 + sin(t / 90) * 12.345, horizontalAccuracy: Double(Float(4.7 + Double(i % 9) * 0.61)),
                          verticalAccuracy: 3, speed: Double(Float(5.5 + sin(t / 25))), course: Double(Float(40 + sin(t / 60) * 30)),
                          timestamp: Date(millisecondsSince1970: 1_790_000_000_000 + Int64(i) * 1000), source: .gnss)
            return ChunkPoint(position: Position(deviceID: "d", fix: fix, batteryLevel: Double(80 - i / 400) / 100, isCharging: false),
                              receivedMillis: 1_790_000_000_000 + Int64(i) * 1000 + Int64(150 + (i * 7919) % 400))
        }
        let bytes = PositionChunkCodec.encode(points)   // one chunk: 3,600 points are under the maximum
        let decoded = try PositionChunkCodec.decode(bytes, deviceID: "d")
        #expect(decoded.map(Self.bits) == points.map(Self.bits))
        // Everything else too: receive times (stored as offsets from the fix times here), sources, charging.
        #expect(decoded == points)
        #expect(Double(bytes.count) / Double(points.count) < 45, "\(bytes.count) bytes for \(points.count) points")
    }

    @Test("every truncation of a chunk is an error naming a byte; no damaged chunk traps")
    func damaged() throws {
        let bytes = PositionChunkCodec.encode(Self.randomPoints(seed: 7, count: 60))
        for length in 0..<bytes.count {
            #expect(throws: PositionChunkError.self, "truncated to \(length)") {
                try PositionChunkCodec.decode(Array(bytes.prefix(length)), deviceID: "d")
            }
        }
        #expect(throws: PositionChunkError.self) { try PositionChunkCodec.decode(bytes + [0], deviceID: "d") }
        var rng = SplitMix64(seed: 42)
        var rejected = 0
        for round in 0..<3000 {
            var damaged = bytes
            for _ in 0...(round % 4) {
                damaged[Int.random(in: 0..<damaged.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            if round % 5 == 0 { damaged = (0..<Int.random(in: 0..<64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) } }
            do {
                let points = try PositionChunkCodec.decode(damaged, deviceID: "d")
                // Whatever decodes is a valid chunk: times strictly increasing, coordinates in range.
                #expect(zip(points, points.dropFirst()).allSatisfy { $0.millis < $1.millis })
                #expect(points.allSatisfy { abs($0.position.fix.coordinate.latitude) <= 90 })
            } catch let error as PositionChunkError {
                #expect(error.description.contains("at byte"))
                rejected += 1
            }
        }
        #expect(rejected > 1000, "most damage is detected: \(rejected) of 3000")
    }

    @Test("a chunk whose times a Date cannot hold to the millisecond is refused (found by Scripts/fuzz_chunks.sh)")
    func timesBeyondDate() throws {
        // Two points at about 2.95e16 ms: decoded as positions, their times would round to other values.
        let found = "0102be85b18ec598eb68b0b802010282996301a2a85e010701b6ecf301f8064740e4e2adee060780b2c8940294120202" +
            "01ac5c0100051eb3e6ac821001000000c0cccc12400202000c010000051fa9b807010000040202012002000102010107" +
            "77616c6b696e6702010100010204676e737304776966690201010201"
        let bytes = stride(from: 0, to: found.count, by: 2).map {
            UInt8(found[found.index(found.startIndex, offsetBy: $0)...].prefix(2), radix: 16)!
        }
        // Refused for its times, not for some other damage the format may come to see in these bytes.
        func refusedForTime(_ body: () throws -> Any) -> Bool {
            do { _ = try body() } catch let error as PositionChunkError { return error.description.contains("a time beyond") } catch {}
            return false
        }
        #expect(refusedForTime { try PositionChunkCodec.decode(bytes, deviceID: "d") })
        #expect(refusedForTime { try PositionChunkCodec.timestamps(bytes) })
        var writer = ChunkWriter()
        writer.byte(PositionChunkCodec.version)
        writer.varint(1)
        writer.signed(PositionChunkCodec.timeLimit + 1)
        #expect(refusedForTime { try PositionChunkCodec.timestamps(writer.bytes) })
    }

    @Test("decimal scaling is exact or falls back to raw bits")
    func scaling() {
        #expect(PositionChunkCodec.scaled(46.0512345, places: 7) == 460_512_345)
        #expect(PositionChunkCodec.scaled(46.0512345, places: 6) == nil)
        #expect(PositionChunkCodec.scaled(-0.0, places: 0) == nil, "-0.0 keeps its sign through raw bits")
        #expect(PositionChunkCodec.scaled(0.1 + 0.2, places: 9) == nil, "0.30000000000000004 has 17 digits")
        #expect(PositionChunkCodec.scaled(1e300, places: 9) == nil)
        for value in [-12.5, 0.0, 1.0, 359.9, -179.9999999] {
            let places = (0...9).first { PositionChunkCodec.scaled(value, places: $0) != nil }!
            #expect(Double(PositionChunkCodec.scaled(value, places: places)!) / PositionChunkCodec.powers[places] == value)
        }
    }
}
