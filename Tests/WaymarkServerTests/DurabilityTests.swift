import Foundation
import GRDB
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// What an acknowledgement means: with ``StoreDurability/full`` the write-ahead log holds no unsynced
/// write when ``SQLiteStore/ingest(_:)`` returns, and concurrent requests share one commit and one sync.
/// Syncs are counted by ``SyncCountingVFS``, under SQLite, so a missing or late `fsync` fails these tests.
@Suite("Durability and group commit")
struct DurabilityTests {
    /// Runs `body` with a SQLite store opened through the counting VFS, and the path of its write-ahead log.
    static func withCountedStore(_ durability: StoreDurability,
                                 _ body: (SQLiteStore, String) async throws -> Void) async throws {
        try #require(SyncCountingVFS.register(), "the counting VFS could not be registered")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        let store = try SQLiteStore(path: "file:\(path)?vfs=\(SyncCountingVFS.name)", durability: durability)
        try await store.migrate()
        try await body(store, path + "-wal")
    }

    static func point(_ device: String, second: Int) -> Position {
        Position(deviceID: device, fix: Fix(coordinate: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5),
                                            horizontalAccuracy: 5,
                                            timestamp: Date(timeIntervalSince1970: 1_750_000_000 + Double(second))))
    }

    static let received = Date(timeIntervalSince1970: 1_750_032_000)

    @Test("full durability: each acknowledged upload reached the disk; relaxed: it is still in the page cache",
          .enabled(if: SyncCountingVFS.acceptsURIFilenames), arguments: StoreDurability.allCases)
    func syncedBeforeAcknowledgement(durability: StoreDurability) async throws {
        try await Self.withCountedStore(durability) { store, wal in
            let device = try await DeviceRegistry.register(name: "phone", in: store).device
            for second in 0..<5 {
                let before = SyncCountingVFS.ledger(of: wal)
                let outcome = try await store.ingest(IngestWrite(deviceID: device.id, positions: [Self.point(device.id, second: second)],
                                                                 receivedAt: Self.received))
                let after = SyncCountingVFS.ledger(of: wal)
                #expect(outcome.stored == 1)
                #expect(after.writes > before.writes, "the commit wrote its frames to the log")
                switch durability {
                case .full:
                    #expect(after.unsyncedWrites == 0, "acknowledged with \(after.unsyncedWrites) writes not synced")
                    #expect(after.syncs == before.syncs + 1, "one sync per commit")
                case .relaxed:
                    #expect(after.unsyncedWrites > 0, "relaxed durability acknowledges before the sync")
                    #expect(after.syncs == before.syncs)
                }
            }
        }
    }

    @Test("concurrent uploads share one transaction and one sync; each is answered after it",
          .enabled(if: SyncCountingVFS.acceptsURIFilenames))
    func groupCommit() async throws {
        try await Self.withCountedStore(.full) { store, wal in
            var devices: [String] = []
            for i in 0..<8 { devices.append(try await DeviceRegistry.register(name: "phone \(i)", in: store).device.id) }
            let writes = (0..<64).map { i in
                IngestWrite(deviceID: devices[i % 8], positions: [Self.point(devices[i % 8], second: i)], receivedAt: Self.received)
            }
            // Hold the writer, so every request queues and the next commit takes them all.
            let held = try await WriterHold(store.pool)
            let before = SyncCountingVFS.ledger(of: wal)
            try await withThrowingTaskGroup(of: IngestOutcome.self) { group in
                for write in writes { group.addTask { try await store.ingest(write) } }
                await store.groups.waitUntilAdmitted(writes.count)
                #expect(SyncCountingVFS.ledger(of: wal) == before, "nothing written while the writer is held")
                held.release()
                var stored = 0
                for try await outcome in group { stored += outcome.stored }
                #expect(stored == 64)
            }
            let after = SyncCountingVFS.ledger(of: wal)
            #expect(after.syncs == before.syncs + 1, "64 requests, \(after.syncs - before.syncs) syncs")
            #expect(after.unsyncedWrites == 0)
            var total = 0
            for device in devices { total += try await store.positions(PositionQuery(deviceID: device)).count }
            #expect(total == 64)
        }
    }

    @Test("a request that fails inside a group fails alone; a key replayed in the same group is absorbed")
    func failureInsideAGroup() async throws {
        try await StoreKind.sqlite.withStore { anyStore in
            let store = try #require(anyStore as? SQLiteStore)
            let good = try await DeviceRegistry.register(name: "good", in: store).device.id
            let revoked = try await DeviceRegistry.register(name: "revoked", in: store).device.id
            #expect(try await store.revokeDevice(id: revoked, at: Self.received))
            let held = try await WriterHold(store.pool)
            async let first = store.ingest(IngestWrite(deviceID: good, idempotencyKey: "k1",
                                                       positions: [Self.point(good, second: 1)], receivedAt: Self.received))
            await store.groups.waitUntilAdmitted(1)
            async let refused = store.ingest(IngestWrite(deviceID: revoked, positions: [Self.point(revoked, second: 1)],
                                                         receivedAt: Self.received))
            await store.groups.waitUntilAdmitted(2)
            async let replay = store.ingest(IngestWrite(deviceID: good, idempotencyKey: "k1",
                                                        positions: [Self.point(good, second: 1)], receivedAt: Self.received))
            await store.groups.waitUntilAdmitted(3)
            async let second = store.ingest(IngestWrite(deviceID: good, positions: [Self.point(good, second: 2)],
                                                        receivedAt: Self.received))
            await store.groups.waitUntilAdmitted(4)
            held.release()
            let firstOutcome = try await first, secondOutcome = try await second, replayed = try await replay
            #expect(firstOutcome.stored == 1 && secondOutcome.stored == 1)
            #expect(replayed.replayed && replayed.stored == 1)
            do {
                _ = try await refused
                Issue.record("a revoked device's write was committed")
            } catch let error as ServerError {
                #expect(error.code == .unauthorized)
            }
            #expect(try await store.positions(PositionQuery(deviceID: good)).count == 2)
            #expect(try await store.positions(PositionQuery(deviceID: revoked)).isEmpty)
        }
    }
}

/// Occupies a GRDB writer until ``release()``: a job on its queue that waits.
final class WriterHold: Sendable {
    private let gate = DispatchSemaphore(value: 0)

    /// Returns once the writer is held.
    init(_ pool: DatabasePool) async throws {
        let gate = self.gate
        await withCheckedContinuation { (holding: CheckedContinuation<Void, Never>) in
            pool.asyncWriteWithoutTransaction { _ in
                holding.resume()
                gate.wait()
            }
        }
    }

    func release() { gate.signal() }
}
