import Foundation
import Testing
import WaymarkGeo
@testable import WaymarkSync

@Suite("RideStore upload state: batches, keys, split, acknowledge, quarantine")
struct RideStoreUploadTests {
    func storeWith(_ count: Int) throws -> (RideStore, RideID, [Fix]) {
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        let fixes = TestFixes.ride(count: count)
        try store.append(fixes, to: ride.id)
        return (store, ride.id, fixes)
    }

    @Test("a batch takes the oldest unbatched fixes up to the point limit and keeps its key")
    func formByCount() throws {
        let (store, _, fixes) = try storeWith(25)
        let first = try #require(try store.formBatch(maxPoints: 10, maxBytes: 1 << 20, at: TestFixes.start, key: "A"))
        let second = try #require(try store.formBatch(maxPoints: 10, maxBytes: 1 << 20, at: TestFixes.start, key: "B"))
        #expect(first.points == 10 && second.points == 10)
        #expect(try store.batch("A")?.fixes == Array(fixes[0..<10]))
        #expect(try store.batch("B")?.fixes == Array(fixes[10..<20]))
        let backlog = try store.backlog()
        #expect(backlog.pending.map(\.key) == ["A", "B"])
        #expect(backlog.unbatchedPoints == 5 && backlog.oldestUnbatched == fixes[20].timestamp)
    }

    @Test("a batch stops before its encoded body passes the byte limit (but holds at least one point)")
    func formByBytes() throws {
        let (store, _, fixes) = try storeWith(20)
        let format = NativeBatchFormat(deviceID: "phone-1")
        let limit = format.body(for: Array(fixes[0..<7])).count
        let batch = try #require(try store.formBatch(maxPoints: 100, maxBytes: limit, format: format, at: TestFixes.start))
        #expect(batch.points == 7)
        let tiny = try #require(try store.formBatch(maxPoints: 100, maxBytes: 10, format: format, at: TestFixes.start))
        #expect(tiny.points == 1)
        #expect(format.body(for: try #require(try store.batch(batch.key)).fixes).count <= limit)
    }

    @Test("acknowledging deletes exactly the batch's fixes; the rest stay on the device")
    func acknowledge() throws {
        let (store, ride, fixes) = try storeWith(12)
        try store.formBatch(maxPoints: 5, maxBytes: 1 << 20, at: TestFixes.start, key: "A")
        #expect(try store.acknowledge(batch: "A") == 5)
        #expect(try store.fixes(of: ride) == Array(fixes[5...]))
        #expect(try store.batch("A") == nil)
        #expect(try store.acknowledge(batch: "A") == 0, "a replayed acknowledgement is harmless")
    }

    @Test("split replaces a batch by two halves with derived keys, in its place in the order")
    func split() throws {
        let (store, _, fixes) = try storeWith(9)
        try store.formBatch(maxPoints: 5, maxBytes: 1 << 20, at: TestFixes.start, key: "A")
        try store.formBatch(maxPoints: 5, maxBytes: 1 << 20, at: TestFixes.start, key: "B")
        let halves = try #require(try store.split(batch: "A"))
        #expect(halves.map(\.key) == ["A.a", "A.b"] && halves.map(\.points) == [2, 3])
        #expect(try store.backlog().pending.map(\.key) == ["A.a", "A.b", "B"])
        #expect(try store.batch("A.b")?.fixes == Array(fixes[2..<5]))
        try store.split(batch: "A.a")
        #expect(try store.backlog().pending.map(\.key) == ["A.a.a", "A.a.b", "A.b", "B"])
        #expect(try store.split(batch: "A.a.a") == nil, "a one-point batch cannot be split")
    }

    @Test("a quarantined batch keeps its fixes and reason, is not pending, and can be requeued")
    func quarantine() throws {
        let (store, _, fixes) = try storeWith(4)
        try store.formBatch(maxPoints: 4, maxBytes: 1 << 20, at: TestFixes.start, key: "A")
        try store.quarantine(batch: "A", reason: "HTTP 422: bad point")
        let backlog = try store.backlog()
        #expect(backlog.pending.isEmpty && backlog.quarantined == 1 && backlog.isEmpty)
        let held = try store.quarantinedBatches()
        #expect(held.map(\.reason) == ["HTTP 422: bad point"] && held.first?.fixes == fixes)
        try store.requeue(batch: "A")
        #expect(try store.backlog().pending.map(\.key) == ["A"])
        #expect { try store.quarantine(batch: "nope", reason: "x") } throws: { ($0 as? SyncError)?.code == .notFound }
    }
}
