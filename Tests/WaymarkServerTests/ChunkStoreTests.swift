import Foundation
import PostgresNIO
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// PostgreSQL's finished days as chunks: compaction changes no answer, a late or repeated point is stored
/// once, the emptied partitions go, and retention trims chunks to the millisecond.
@Suite("PostgreSQL chunks", .enabled(if: StoreKind.postgresURL != nil, StoreKind.skipMessage))
struct ChunkStoreTests {
    static let day: TimeInterval = 86_400
    /// Midnight UTC three days ago: points from then on span finished days and today.
    static var threeDaysAgo: Date {
        let now = Date().timeIntervalSince1970
        return Date(timeIntervalSince1970: (now / day).rounded(.down) * day - 3 * day)
    }

    /// One point every 97 s from `start` for `count` points, with varied fields.
    static func track(_ device: String, from start: Date, count: Int, offset: Double = 0) -> [Position] {
        (0..<count).map { i in
            let fix = Fix(coordinate: Coordinate(uncheckedLatitude: 46 + Double(i) * 1e-5 + offset, longitude: 14.5 - Double(i) * 3e-6),
                          altitude: i % 3 == 0 ? nil : 300 + Double(i % 50) / 10, horizontalAccuracy: Double(5 + i % 7),
                          verticalAccuracy: i % 5 == 0 ? nil : 4, speed: Double(i % 30) / 3, course: Double(i % 360),
                          timestamp: start.addingTimeInterval(Double(i) * 97), source: i % 2 == 0 ? .gnss : .fused)
            return Position(deviceID: device, fix: fix, batteryLevel: i % 4 == 0 ? nil : 0.5 + Double(i % 40) / 100,
                            isCharging: i % 3 == 0 ? nil : i % 2 == 0, activity: i % 5 == 0 ? nil : "walking")
        }
    }

    /// Every position of the device (between `from` and `to` when given), read in pages of `page`, as an export reads them.
    static func all(_ store: any Store, _ device: String, from: Date? = nil, to: Date? = nil, page: Int) async throws -> [Position] {
        var result: [Position] = []
        while true {
            let next = try await store.positions(PositionQuery(deviceID: device, from: from, to: to,
                                                               afterMillis: result.last?.timestampMillis, limit: page))
            #expect(next.count <= page, "a page holds at most its limit")
            result += next
            if next.count < page { return result }
        }
    }

    static func count(_ store: PostgresStore, _ sql: String) async throws -> Int {
        try await store.client.query(PostgresQuery(unsafeSQL: sql), logger: store.logger).collect().first!.decode(Int.self)
    }

    @Test("compaction moves finished days into chunks and changes no answer; today stays in rows")
    func compactionKeepsAnswers() async throws {
        try await StoreKind.postgres.withStore { store in
            let postgres = try #require(store as? PostgresStore)
            let device = try await StoreTests.registered(store).id
            let other = try await StoreTests.registered(store, name: "other").id
            let now = Date()
            // Three days and a bit, up to a few minutes before now (3,100 points at 97 s), and 10 of another device.
            let start = Self.threeDaysAgo
            let points = Self.track(device, from: start, count: Int(now.timeIntervalSince(start) / 97) - 3)
            for batch in stride(from: 0, to: points.count, by: 500) {
                _ = try await store.ingest(IngestWrite(deviceID: device, positions: Array(points[batch..<min(points.count, batch + 500)]),
                                                       receivedAt: now))
            }
            _ = try await store.ingest(IngestWrite(deviceID: other, positions: Self.track(other, from: start, count: 10), receivedAt: now))
            let before = try await Self.all(store, device, page: 333)
            #expect(before == points)
            let lastBefore = try await store.lastPositions()

            let moved = try await postgres.compactHistory(before: now, pointsPerTransaction: 700)
            let today = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / Self.day).rounded(.down) * Self.day)
            let finished = points.filter { $0.fix.timestamp < today }.count
            #expect(moved == finished + 10)
            #expect(try await Self.count(postgres, "SELECT count(*)::int8 FROM positions") == points.count - finished)
            #expect(try await Self.count(postgres, "SELECT coalesce(sum(count), 0)::int8 FROM position_chunks") == finished + 10)
            // Every answer is the same, whatever the page size, and so are the latest positions.
            for page in [1_000, 97, 4_096] { #expect(try await Self.all(store, device, page: page) == points, "page \(page)") }
            let window = try await store.positions(PositionQuery(deviceID: device, from: points[1000].fix.timestamp,
                                                                 to: points[2000].fix.timestamp, limit: 5000))
            #expect(window == Array(points[1000..<2000]))
            // A window that starts inside a compacted day, read in pages as an export reads it.
            let paged = try await Self.all(store, device, from: points[1000].fix.timestamp, to: points[2000].fix.timestamp, page: 300)
            #expect(paged == Array(points[1000..<2000]))
            #expect(try await store.lastPositions() == lastBefore)
            #expect(try await store.lastPosition(deviceID: other) == Self.track(other, from: start, count: 10).last)
            // Compacting again moves nothing; the DEFAULT partition (where the older days landed) is empty and small.
            #expect(try await postgres.compactHistory(before: now) == 0)
            #expect(try await Self.count(postgres, "SELECT count(*)::int8 FROM positions_default") == 0)
            #expect(try await Self.count(postgres, "SELECT pg_total_relation_size('positions_default')") <= 16_384)
        }
    }

    @Test("a repeated or late point of a compacted day is stored once, and merged into its chunk")
    func latePoints() async throws {
        try await StoreKind.postgres.withStore { store in
            let postgres = try #require(store as? PostgresStore)
            let device = try await StoreTests.registered(store).id
            let start = Self.threeDaysAgo
            let points = Self.track(device, from: start, count: 200)
            _ = try await store.ingest(IngestWrite(deviceID: device, positions: points, receivedAt: Date()))
            #expect(try await postgres.compactHistory(before: Date()) == 200)
            // The same batch again: all duplicates, nothing new in rows.
            let again = try await store.ingest(IngestWrite(deviceID: device, positions: points, receivedAt: Date()))
            #expect(again.stored == 0 && again.duplicates == 200)
            // A point the phone sends late for that day, between two stored ones, and one of them again.
            let late = Self.track(device, from: start.addingTimeInterval(50), count: 1, offset: 0.5)[0]
            let mixed = try await store.ingest(IngestWrite(deviceID: device, positions: [late, points[3]], receivedAt: Date()))
            #expect(mixed.stored == 1 && mixed.duplicates == 1)
            #expect(mixed.newPositions == [late])
            let expected = (points + [late]).sorted { $0.timestampMillis < $1.timestampMillis }
            #expect(try await Self.all(store, device, page: 50) == expected)
            #expect(try await postgres.compactHistory(before: Date()) == 1)
            #expect(try await Self.count(postgres, "SELECT count(*)::int8 FROM position_chunks") == 1, "merged into the day's one chunk")
            #expect(try await Self.all(store, device, page: 50) == expected)
            #expect(try await store.lastPosition(deviceID: device) == points.last)
        }
    }

    @Test("compaction drops an emptied day partition; one still written to stays")
    func partitions() async throws {
        try await StoreKind.postgres.withStore { store in
            let postgres = try #require(store as? PostgresStore)
            let device = try await StoreTests.registered(store).id
            // Partitions made as if the server had run three days ago, then points of that day and of today.
            try await postgres.ensurePartitions(around: Self.threeDaysAgo)
            let old = Self.threeDaysAgo
            let oldName = PostgresStore.periodStart(old, PostgresStore.positionPlan).name
            #expect(try await RetentionTests.partitions(postgres).contains(oldName))
            _ = try await store.ingest(IngestWrite(deviceID: device, positions: Self.track(device, from: old, count: 20), receivedAt: Date()))
            _ = try await store.ingest(IngestWrite(deviceID: device, positions: Self.track(device, from: Date().addingTimeInterval(-60), count: 1),
                                                   receivedAt: Date()))
            #expect(try await postgres.compactHistory(before: Date()) == 20)
            let after = try await RetentionTests.partitions(postgres)
            #expect(!after.contains(oldName), "\(after)")
            #expect(after.contains(PostgresStore.periodStart(Date(), PostgresStore.positionPlan).name))
            #expect(try await store.positions(PositionQuery(deviceID: device, limit: 100)).count == 21)
        }
    }

    @Test("two compactions at once (two servers on one database) both succeed and move every point once")
    func concurrentCompactions() async throws {
        try await StoreKind.postgres.withStore { store in
            let postgres = try #require(store as? PostgresStore)
            try await postgres.ensurePartitions(around: Self.threeDaysAgo)
            var expected: [String: [Position]] = [:]
            for n in 0..<4 {
                let device = try await StoreTests.registered(store, name: "phone \(n)").id
                let points = Self.track(device, from: Self.threeDaysAgo.addingTimeInterval(Double(n) * 7), count: 900)
                _ = try await store.ingest(IngestWrite(deviceID: device, positions: points, receivedAt: Date()))
                expected[device] = points
            }
            async let first = postgres.compactHistory(before: Date(), pointsPerTransaction: 200)
            async let second = postgres.compactHistory(before: Date(), pointsPerTransaction: 300)
            #expect(try await first + second == 3_600)
            #expect(try await Self.count(postgres, "SELECT count(*)::int8 FROM positions") == 0)
            for (device, points) in expected { #expect(try await Self.all(store, device, page: 500) == points) }
            #expect(!(try await RetentionTests.partitions(postgres)).contains(PostgresStore.periodStart(Self.threeDaysAgo, PostgresStore.positionPlan).name))
        }
    }

    @Test("a monthly partition of the older schema (v6) is left alone, then compacted and dropped")
    func upgradedMonthlyPartition() async throws {
        try await StoreKind.postgres.withStore { store in
            let postgres = try #require(store as? PostgresStore)
            let device = try await StoreTests.registered(store).id
            // The month three months back, partitioned as migration v6 did.
            let monthly = PostgresStore.PartitionPlan(table: "positions", column: "ts", daily: false, back: 0, ahead: 0, points: "count(*)")
            let month = PostgresStore.periodStart(Date(), monthly, offset: -3)
            let end = PostgresStore.periodStart(Date(), monthly, offset: -2).millis
            try await postgres.execute(unsafeSQL: "CREATE TABLE \(month.name) PARTITION OF positions FOR VALUES FROM (\(month.millis)) TO (\(end))")
            // Days inside it get no partition of their own (they would overlap).
            try await postgres.ensurePartitions(around: Date(millisecondsSince1970: month.millis + 86_400_000 * 3))
            let partitions = try await RetentionTests.partitions(postgres)
            #expect(partitions.contains(month.name))
            #expect(!partitions.contains { $0.hasPrefix(month.name + "_") }, "\(partitions)")
            let points = Self.track(device, from: Date(millisecondsSince1970: month.millis), count: 50)
            _ = try await store.ingest(IngestWrite(deviceID: device, positions: points, receivedAt: Date()))
            #expect(try await Self.count(postgres, "SELECT count(*)::int8 FROM \(month.name)") == 50)
            #expect(try await postgres.compactHistory(before: Date()) == 50)
            #expect(!(try await RetentionTests.partitions(postgres)).contains(month.name))
            #expect(try await Self.all(store, device, page: 20) == points)
        }
    }

    @Test("retention trims a chunk that straddles the cutoff to the millisecond and drops older ones whole")
    func retention() async throws {
        try await StoreKind.postgres.withStore { store in
            let postgres = try #require(store as? PostgresStore)
            let device = try await StoreTests.registered(store).id
            let points = Self.track(device, from: Self.threeDaysAgo, count: 1800)   // two days and a bit
            _ = try await store.ingest(IngestWrite(deviceID: device, positions: points, receivedAt: Date()))
            try await postgres.compactHistory(before: Date())
            let cutoff = points[1234].fix.timestamp
            var removed = 0
            while true {
                let count = try await store.deleteHistory(before: cutoff, limit: 1)
                removed += count
                if count == 0 { break }
            }
            #expect(removed == 1234)
            #expect(try await Self.all(store, device, page: 400) == Array(points[1234...]))
        }
    }
}
