import Foundation
import PostgresNIO
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// `--retention-days`: old history goes, in bounded batches, and on PostgreSQL whole partitions go.
@Suite("Retention")
struct RetentionTests {
    static func date(_ text: String) -> Date { TimestampParser.date(from: text)! }

    static func point(_ device: String, _ time: Date) -> Position {
        Position(deviceID: device, fix: Fix(coordinate: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5), timestamp: time))
    }

    @Test("positions, gap markers and device events older than the retention period are removed; ingest goes on",
          arguments: StoreKind.available)
    func expiresHistory(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let device = try await StoreTests.registered(store).id
            // Ten points in each of August, September and October 2026 (within the partitions PostgreSQL keeps), and one in 2020.
            var points: [Position] = [Self.point(device, Self.date("2020-05-01T00:00:00Z"))]
            for month in ["2026-08", "2026-09", "2026-10"] {
                for day in 10..<20 { points.append(Self.point(device, Self.date("\(month)-\(day)T12:00:00Z"))) }
            }
            let old = Self.date("2026-08-20T00:00:00Z")
            _ = try await store.ingest(IngestWrite(
                deviceID: device, positions: points, receivedAt: old,
                gaps: [PositionGap(deviceID: device, start: Self.date("2026-08-11T00:00:00Z"), end: Self.date("2026-08-12T00:00:00Z"), reason: "x"),
                       PositionGap(deviceID: device, start: Self.date("2026-10-11T00:00:00Z"), end: Self.date("2026-10-12T00:00:00Z"), reason: "y")],
                deviceEvents: [DeviceEventRecord(deviceID: device, kind: "owntracks.status", time: old, receivedAt: old, detail: "{}")]))
            let now = Self.date("2026-10-15T12:00:00Z")
            _ = try await store.ingest(IngestWrite(deviceID: device, positions: [], receivedAt: now,
                                                   deviceEvents: [DeviceEventRecord(deviceID: device, kind: "owntracks.status", time: now,
                                                                              receivedAt: now, detail: #"{"new":1}"#)]))
            // On PostgreSQL the finished days before 2026-10-15 move into chunks (as the service does hourly),
            // so retention meets both rows and chunks.
            if let postgres = store as? PostgresStore {
                #expect(try await postgres.compactHistory(before: now) == 1 + 10 + 10 + 5)
            }
            // Keep 30 days: everything before 2026-09-15T12:00Z goes.
            let service = RetentionService(store: store, retentionSeconds: nil, historySeconds: 30 * 86_400, clock: { now })
            let removed = try await service.expireHistoryOnce()
            let cutoff = Self.date("2026-09-15T12:00:00Z")
            let kept = try await store.positions(PositionQuery(deviceID: device, limit: 1000)).map(\.fix.timestamp)
            #expect(kept == points.map(\.fix.timestamp).filter { $0 >= cutoff })
            #expect(removed == 11 + 5 + 1 + 1, "positions, a gap marker and a device event")
            #expect(try await store.gaps(GapQuery(deviceID: device)).map(\.reason) == ["y"])
            #expect(try await store.deviceEvents(deviceID: device, afterID: 0, limit: 10).map(\.detail) == [#"{"new":1}"#])
            #expect(try await service.expireHistoryOnce() == 0)
            // Ingest goes on, also into a month whose partition was dropped.
            let later = try await store.ingest(IngestWrite(deviceID: device, positions: [Self.point(device, Self.date("2026-10-20T00:00:00Z")),
                                                                                        Self.point(device, Self.date("2026-08-25T00:00:00Z"))],
                                                           receivedAt: now))
            #expect(later.stored == 2)
            if let postgres = store as? PostgresStore {
                let partitions = try await Self.partitions(postgres, of: "position_chunks")
                #expect(!partitions.contains("position_chunks_2026_08"), "August, wholly before the cutoff, was dropped: \(partitions)")
                #expect(partitions.contains("position_chunks_2026_09") && partitions.contains("position_chunks_2026_10"))
                #expect(partitions.contains("position_chunks_default"))
                #expect(try await Self.partitions(postgres).contains("positions_default"))
            }
        }
    }

    @Test("one call removes a bounded number of rows, so a large backlog goes in short transactions")
    func bounded() async throws {
        try await StoreKind.sqlite.withStore { store in
            let device = try await StoreTests.registered(store).id
            let start = Self.date("2026-01-01T00:00:00Z")
            _ = try await store.ingest(IngestWrite(deviceID: device, positions: (0..<250).map { Self.point(device, start.addingTimeInterval(Double($0))) },
                                                   receivedAt: start))
            let cutoff = start.addingTimeInterval(1000)
            var calls: [Int] = []
            while true {
                let count = try await store.deleteHistory(before: cutoff, limit: 100)
                calls.append(count)
                if count == 0 { break }
            }
            #expect(calls == [100, 100, 50, 0])
        }
    }

    static func partitions(_ store: PostgresStore, of table: String = "positions") async throws -> Set<String> {
        Set(try await store.client.query("""
            SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
            WHERE p.relname = \(table) AND p.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
            """, logger: store.logger).collect().map { try $0.decode(String.self) })
    }
}
