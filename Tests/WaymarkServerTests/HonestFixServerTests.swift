import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WaymarkGeo
@testable import WaymarkServer
import WaymarkTransport

/// A fix's honesty marks (its origin as iOS reported it, the impossible-speed flag) from the phone's bytes to
/// the server's decoders, both stores, PostgreSQL's chunks, the API, the exports and the fence evaluation.
@Suite("Honest fixes on the server")
struct HonestFixServerTests {
    static let start = Date(timeIntervalSince1970: 1_749_981_600)   // 2025-06-15T10:00:00Z

    static func info(_ simulated: Bool, _ accessory: Bool) -> Fix.SourceInformation {
        Fix.SourceInformation(isSimulatedBySoftware: simulated, isProducedByAccessory: accessory)
    }

    /// Six fixes one second apart: unknown origin, all false, simulated, accessory, both, and a flagged jump.
    static func fixes() -> [Fix] {
        let marks: [(Fix.SourceInformation?, Bool)] = [(nil, false), (info(false, false), false), (info(true, false), false),
                                                       (info(false, true), false), (info(true, true), false), (nil, true)]
        return marks.enumerated().map { i, mark in
            Fix(coordinate: Coordinate(uncheckedLatitude: 46.05 + Double(i) * 0.0001 + (mark.1 ? 0.5 : 0), longitude: 14.5),
                horizontalAccuracy: 5, speed: 4, timestamp: start.addingTimeInterval(Double(i)), source: .fused,
                sourceInformation: mark.0, impliesImpossibleSpeed: mark.1)
        }
    }

    static func marks(_ fixes: [Fix]) -> [Int] { fixes.map(\.packedFlags) }

    static let validator = PositionValidator(now: start.addingTimeInterval(60))

    @Test("the phone's encoder, the format's decoder, the server's scanner and its general decoder agree on every mark")
    func decoders() throws {
        let body = NativeBatchFormat(deviceID: "p").body(for: Self.fixes())
        #expect(Self.marks(try NativeBatchFormat.decode(body).fixes) == Self.marks(Self.fixes()))
        let scanned = try #require(NativeBatchScanner.decode(ByteBuffer(bytes: body)), "the fast path reads the marks")
        let general = try OverlandDecoder.decode(try JSONBody.parse(ByteBuffer(bytes: body)))
        for candidates in [scanned.candidates, general.candidates] {
            let validated = Self.validator.validate(candidates, deviceID: "p").positions
            #expect(Self.marks(validated.map(\.fix)) == Self.marks(Self.fixes()))
        }
    }

    @Test("golden bytes of a marked fix")
    func golden() {
        var fix = Self.fixes()[2]
        fix.impliesImpossibleSpeed = true
        let body = String(decoding: NativeBatchFormat().body(for: [fix]), as: UTF8.self)
        #expect(body == #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.0502]},"#
                + #""properties":{"timestamp":"2025-06-15T10:00:02.000Z","horizontal_accuracy":5,"speed":4,"#
                + #""simulated_by_software":true,"produced_by_accessory":false,"impossible_speed":true}}]}"#)
    }

    @Test("a mark that is not a JSON boolean: the fast path steps aside and the general decoder ignores it")
    func notBoolean() throws {
        let body = Array(#"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"#
            .utf8) + Array(#""timestamp":"2025-06-15T10:00:00Z","simulated_by_software":1,"impossible_speed":"yes"}}]}"#.utf8)
        #expect(NativeBatchScanner.decode(ByteBuffer(bytes: body)) == nil)
        let general = try OverlandDecoder.decode(try JSONBody.parse(ByteBuffer(bytes: body)))
        let fix = try #require(Self.validator.validate(general.candidates, deviceID: "p").positions.first?.fix)
        #expect(fix.sourceInformation == nil && !fix.impliesImpossibleSpeed)
        // One flag alone makes the origin known, the other read as false.
        let one = Array(#"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,46.05]},"properties":{"#
            .utf8) + Array(#""timestamp":"2025-06-15T10:00:00Z","produced_by_accessory":true}}]}"#.utf8)
        let scanned = try #require(NativeBatchScanner.decode(ByteBuffer(bytes: one)))
        let read = Self.validator.validate(scanned.candidates, deviceID: "p").positions.first?.fix
        #expect(read?.sourceInformation == Self.info(false, true))
    }

    @Test("uploaded, stored, served and exported with its marks", arguments: StoreKind.available)
    func endToEnd(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let body = String(decoding: NativeBatchFormat().body(for: Self.fixes()), as: UTF8.self)
            let reply = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: body)
            #expect(reply.status == .ok)
            #expect(Self.marks(try await server.storedPositions().map(\.fix)) == Self.marks(Self.fixes()))
            let page = try await server.send(.get, "/api/devices/\(server.device.id)/positions", token: server.deviceToken).json()
            let positions = try #require(page["positions"] as? [[String: Any]])
            #expect(positions.count == 6)
            #expect(positions[0]["simulated_by_software"] is NSNull && positions[0]["produced_by_accessory"] is NSNull)
            #expect(positions[1]["simulated_by_software"] as? Bool == false && positions[1]["produced_by_accessory"] as? Bool == false)
            #expect(positions[2]["simulated_by_software"] as? Bool == true && positions[3]["produced_by_accessory"] as? Bool == true)
            #expect(positions.map { $0["impossible_speed"] as? Bool } == [false, false, false, false, false, true])
            let last = try await server.send(.get, "/api/devices/\(server.device.id)/last", token: server.deviceToken).json()
            #expect(last["impossible_speed"] as? Bool == true)

            let base = "/api/devices/\(server.device.id)/export"
            let csv = try await server.send(.get, base + "?format=csv", token: server.deviceToken).text.split(separator: "\n")
            #expect(csv[0].hasSuffix(",simulated_by_software,produced_by_accessory,impossible_speed"))
            #expect(csv.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).suffix(3).joined(separator: ",") }
                    == [",,false", "false,false,false", "true,false,false", "false,true,false", "true,true,false", ",,true"])
            let geojson = try await server.send(.get, base + "?format=geojson", token: server.deviceToken).json()
            let properties = try #require(geojson["features"] as? [[String: Any]]).compactMap { $0["properties"] as? [String: Any] }
            #expect(properties.map { $0["impossible_speed"] as? Bool } == [false, false, false, false, false, true])
            #expect(properties[4]["simulated_by_software"] as? Bool == true && properties[4]["produced_by_accessory"] as? Bool == true)
            let gpx = try await server.send(.get, base + "?format=gpx", token: server.deviceToken).text
            #expect(gpx.contains(#"xmlns:waymark="\#(ExportFormat.gpxNamespace)""#))
            #expect(gpx.components(separatedBy: "<extensions>").count - 1 == 5, "every point with a mark, the unknown one without")
            #expect(gpx.contains("<waymark:simulated>true</waymark:simulated><waymark:accessory>false</waymark:accessory>"))
            #expect(gpx.contains("<waymark:impossibleSpeed>true</waymark:impossibleSpeed>"))
            // The GPX export stays readable by Waymark's own GPX reader (the extensions are foreign elements to it).
            #expect(try GPXDocument.read(data: Data(gpx.utf8)).document.tracks.first?.points.count == 6)

            // The ride summary leaves the flagged jump (55 km away and back) out of the distance.
            let rides = try await server.send(.get, "/api/devices/\(server.device.id)/rides", token: server.deviceToken).json()
            let ride = try #require((rides["rides"] as? [[String: Any]])?.first)
            #expect(ride["points"] as? Int == 6)
            #expect(try #require(ride["distance_m"] as? Double) < 100)
        }
    }

    @Test("a flagged point causes no fence event and is no reference for the next point")
    func fences() throws {
        let center = Coordinate(uncheckedLatitude: 46.1, longitude: 14.5)
        let engine = FenceEngine(fences: [ServerFence(id: "f", name: "f", shape: .circle(center: center, radiusMeters: 300))])
        func point(_ second: Double, lat: Double, flagged: Bool = false) -> Position {
            Position(deviceID: "d", fix: Fix(coordinate: Coordinate(uncheckedLatitude: lat, longitude: 14.5),
                                             timestamp: Self.start.addingTimeInterval(second), impliesImpossibleSpeed: flagged))
        }
        // Outside, then a flagged jump into the fence, then back outside: no event at all. Unflagged, the same
        // jump enters and exits.
        let track = [point(0, lat: 46.05), point(1, lat: 46.1, flagged: true), point(2, lat: 46.0501)]
        var state = DeviceFenceState()
        #expect(engine.evaluate(track, state: &state).isEmpty)
        #expect(state.lastTimestamp == Self.start.addingTimeInterval(2))
        var plain = DeviceFenceState()
        #expect(engine.evaluate(track.map { var p = $0; p.fix.impliesImpossibleSpeed = false; return p }, state: &plain)
            .map(\.kind) == [.enter, .exit])
        // A state seeded from a stored flagged point is not seeded from it.
        var seeded = DeviceFenceState()
        seeded.seed(from: track[1])
        #expect(seeded.lastTimestamp == nil)
    }

    @Test("a SQLite store of the schema before the marks upgrades: old points read unmarked, new ones keep theirs")
    func sqliteMigration() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        do {
            let pool = try DatabasePool(path: path)
            try SQLiteStore.migrator.migrate(pool, upTo: "v7-outbox-event-source")
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO devices (id, name, token_hash, created_ms) VALUES ('d', 'old', 'h', 0)")
                try db.execute(sql: """
                    INSERT INTO positions (device_id, ts, lat, lon, source, received_ms) VALUES ('d', 1000, 46.05, 14.5, 'gnss', 1000)
                    """)
            }
        }
        let store = try SQLiteStore(path: path)
        try await store.migrate()
        let old = try #require(try await store.lastPosition(deviceID: "d"))
        #expect(old.fix.sourceInformation == nil && !old.fix.impliesImpossibleSpeed)
        let marked = Position(deviceID: "d", fix: Self.fixes()[4])
        _ = try await store.ingest(IngestWrite(deviceID: "d", positions: [marked], receivedAt: Self.start))
        #expect(try await store.positions(PositionQuery(deviceID: "d")).map(\.fix.packedFlags) == [0, marked.fix.packedFlags])
    }

    // MARK: PostgreSQL's chunks

    /// Random chunk points with random honesty marks (every valid packed value).
    static func markedPoints(seed: UInt64, count: Int) -> [ChunkPoint] {
        var rng = SplitMix64(seed: seed ^ 0xF1A6)
        return PositionChunkCodecTests.randomPoints(seed: seed, count: count).map { point in
            var point = point
            point.position.fix.packedFlags = [0, 1, 3, 5, 7, 8, 9, 11, 13, 15].randomElement(using: &rng)!
            return point
        }
    }

    @Test("chunks with marks are version 2 and round-trip every mark; chunks without stay version 1, byte for byte")
    func chunkVersions() throws {
        for seed in UInt64(0)..<40 {
            let points = Self.markedPoints(seed: seed, count: Int(1 + seed * 53 % 500))
            let bytes = PositionChunkCodec.encode(points)
            let decoded = try PositionChunkCodec.decode(bytes, deviceID: "d")
            #expect(decoded == points, "seed \(seed)")
            #expect(bytes.first == (points.contains { $0.position.fix.packedFlags != 0 } ? 2 : 1))
            #expect(try PositionChunkCodec.timestamps(bytes) == points.map(\.millis))
            // The same points without marks: a version 1 chunk, exactly the bytes of the version 1 encoder
            // (its column layout is a prefix of version 2's, which only appends the marks).
            let plain = points.map { p in var p = p; p.position.fix.packedFlags = 0; return p }
            let v1 = PositionChunkCodec.encode(plain)
            #expect(v1.first == 1 && Array(v1.dropFirst()) == Array(bytes.dropFirst().prefix(v1.count - 1)))
        }
        // The checked-in version 1 chunks still read, as points without marks.
        for golden in PositionChunkGoldenTests.chunks {
            let points = try PositionChunkCodec.decode(golden.bytes, deviceID: "van-7")
            #expect(points.allSatisfy { $0.position.fix.packedFlags == 0 })
        }
    }

    @Test("a version 2 chunk with a mark no fix can carry, or cut short in its marks, is refused with the byte")
    func chunkDamage() throws {
        let points = Self.markedPoints(seed: 3, count: 20).map { p in var p = p; p.position.fix.packedFlags = 9; return p }
        let bytes = PositionChunkCodec.encode(points)
        #expect(bytes.first == 2)
        // The marks are one run at the end: [run count 1][value 9][length 20].
        #expect(Array(bytes.suffix(3)) == [1, 9, 20])
        for bad: UInt8 in [2, 6, 16, 0x7F] {
            var damaged = bytes
            damaged[damaged.count - 2] = bad
            #expect(throws: PositionChunkError.self, "flags \(bad)") { try PositionChunkCodec.decode(damaged, deviceID: "d") }
        }
        #expect(throws: PositionChunkError.self) { try PositionChunkCodec.decode(Array(bytes.dropLast()), deviceID: "d") }
        var unknown = bytes
        unknown[0] = 3
        #expect(throws: PositionChunkError.self) { try PositionChunkCodec.decode(unknown, deviceID: "d") }
    }

    @Test("PostgreSQL compaction keeps every mark of finished days", .enabled(if: StoreKind.postgresURL != nil, StoreKind.skipMessage))
    func compaction() async throws {
        try await StoreKind.postgres.withStore { store in
            let postgres = try #require(store as? PostgresStore)
            let device = try await StoreTests.registered(store).id
            let now = Date()
            var points = ChunkStoreTests.track(device, from: ChunkStoreTests.threeDaysAgo, count: 300)
            for i in points.indices { points[i].fix.packedFlags = [0, 1, 3, 5, 9, 15][i % 6] }
            _ = try await store.ingest(IngestWrite(deviceID: device, positions: points, receivedAt: now))
            let moved = try await postgres.compactHistory(before: now, pointsPerTransaction: 1_000)
            #expect(moved == 300)
            #expect(try await ChunkStoreTests.count(postgres, "SELECT count(*)::int8 FROM positions") == 0)
            let read = try await ChunkStoreTests.all(store, device, page: 120)
            #expect(read.map(\.fix.packedFlags) == points.map(\.fix.packedFlags))
            #expect(read == points)
        }
    }
}
