import Foundation
import PostgresNIO
import Testing
import WaymarkGeo
@testable import WaymarkServer

/// The one-statement path for requests that need fence evaluation and for keyed requests
/// (`PostgresStore+FenceStatement.swift`): the same outcomes and rows as the transaction path, one statement each.
@Suite("PostgreSQL: fence evaluation and idempotency keys in one statement",
       .enabled(if: StoreKind.postgresURL != nil, StoreKind.skipMessage))
struct PostgresFenceStatementTests {
    typealias Summary = PostgresGroupCommitTests.Summary

    /// The start of the current UTC day: the statement takes points of today only.
    static let today = Date(millisecondsSince1970: PostgresStore.dayStart(Date().millisecondsSince1970))

    /// A point `second`s into today, inside the home fence or about 1 km north of it.
    static func point(_ device: String, second: Double, inside: Bool) -> Position {
        var p = StoreTests.point(device, second: 0, lat: inside ? 46.05 : 46.06)
        p.fix.timestamp = today.addingTimeInterval(second)
        return p
    }

    static func write(_ device: String, _ points: [Position], key: String? = nil) -> IngestWrite {
        IngestWrite(deviceID: device, idempotencyKey: key, positions: points, receivedAt: today.addingTimeInterval(3600))
    }

    /// A fresh store with devices "d_a" and "d_b", the home fence, a webhook, and one point each outside the fence,
    /// committed through the transaction (which loads the fences and seeds the fence states).
    static func withPrepared<T: Sendable>(_ body: (PostgresStore) async throws -> T) async throws -> T {
        try await StoreKind.postgres.withStore { store in
            let store = try #require(store as? PostgresStore)
            try await prepare(store)
            return try await body(store)
        }
    }

    static func prepare(_ store: PostgresStore) async throws {
        for name in ["a", "b"] {
            try await store.insertDevice(DeviceRecord(id: "d_\(name)", name: name, createdAt: today), tokenHash: "hash-\(name)")
        }
        try await store.upsertFences([PostgresGroupCommitTests.home], at: today)
        try await store.insertWebhook(Webhook(id: "w_1", url: URL(string: "https://hooks.example.com/in")!, secret: "s", createdAt: today))
        for device in ["d_a", "d_b"] { _ = try await store.ingestAlone(write(device, [point(device, second: 1, inside: false)])) }
    }

    /// Every outbox row as `event_id payload`, by event id.
    static func outbox(_ store: PostgresStore) async throws -> [String] {
        try await store.client.query("SELECT event_id, payload FROM outbox ORDER BY event_id", logger: store.logger).collect().map { row in
            let (id, payload) = try row.decode((Int64, String).self)
            return "\(id) \(payload)"
        }
    }

    static let groupWrites: [IngestWrite] = [
        // a enters (points out of order); b enters.
        write("d_a", [point("d_a", second: 20, inside: true), point("d_a", second: 10, inside: false)]),
        write("d_b", [point("d_b", second: 10, inside: true)]),
        // a again: second 20 is a duplicate of the first request's (the first stays); a leaves at 30.
        write("d_a", [point("d_a", second: 20, inside: false), point("d_a", second: 30, inside: false)]),
        // A duplicate inside one request; a enters again at 40.
        write("d_a", [point("d_a", second: 40, inside: true), point("d_a", second: 40, inside: false)]),
        // b: a point older than b's last (stored, not evaluated), then b leaves.
        write("d_b", [point("d_b", second: 5, inside: false), point("d_b", second: 50, inside: false)]),
    ]

    @Test("a group with fences: outcomes, points, events, deliveries and fence states equal the transaction path's")
    func groupEqualsTransaction() async throws {
        let transaction: ([Summary], [Position], [String], [String]) = try await Self.withPrepared { store async throws in
            let results = try await store.client.withTransaction(logger: store.logger) { connection in
                try await store.ingestGroup(connection, Self.groupWrites)
            }
            let everything = try await PostgresGroupCommitTests.everything(store, ["a": "d_a", "b": "d_b"])
            return (try results.map { Summary(try $0.get()) }, everything,
                    try await PostgresGroupCommitTests.fenceStates(store), try await Self.outbox(store))
        }
        try await Self.withPrepared { store async throws in
            let results = await store.commitGroup(Self.groupWrites)
            #expect(store.fenceStatements == 1, "the group took the statement")
            let summaries = try results.map { Summary(try $0.get()) }
            #expect(summaries == transaction.0)
            #expect(summaries.map(\.events.count) == [1, 1, 1, 1, 1])
            #expect(summaries.map(\.duplicates) == [0, 0, 1, 1, 0])
            let ids = results.flatMap { (try? $0.get())?.events.map(\.id) ?? [] }
            #expect(ids.count == 5 && ids == ids.sorted(), "event ids ascend in arrival order")
            #expect(try await PostgresGroupCommitTests.everything(store, ["a": "d_a", "b": "d_b"]) == transaction.1)
            #expect(try await PostgresGroupCommitTests.fenceStates(store) == transaction.2)
            let outbox = try await Self.outbox(store)
            #expect(outbox == transaction.3 && outbox.count == 5, "one delivery per event, its payload with the event's id")
        }
    }

    @Test("a keyed request is one statement; its replay and a reuse with another body are answered as before")
    func keyedRequest() async throws {
        try await Self.withPrepared { store async throws in
            var first = Self.write("d_a", [Self.point("d_a", second: 20, inside: true)], key: "k1")
            first.requestDigest = "ingest:aaaa"
            let outcome = try await store.ingest(first)
            #expect(outcome.stored == 1 && !outcome.replayed && outcome.events.map(\.event.kind) == [.enter])
            #expect(store.fenceStatements == 1)
            let replay = try await store.ingest(first)
            #expect(replay.replayed && replay.stored == 1 && replay.events.isEmpty)
            var other = Self.write("d_a", [Self.point("d_a", second: 30, inside: false)], key: "k1")
            other.requestDigest = "ingest:bbbb"
            await #expect(throws: ServerError.self) { try await store.ingest(other) }
            #expect(try await store.positions(PositionQuery(deviceID: "d_a")).count == 2, "nothing of the reuse is stored")
            // The next keyed request evaluates from the state the statement saved: a leaves.
            let next = try await store.ingest(Self.write("d_a", [Self.point("d_a", second: 40, inside: false)], key: "k2"))
            #expect(next.events.map(\.event.kind) == [.exit])
            #expect(store.fenceStatements == 2)
        }
    }

    @Test("a point already stored makes the statement store nothing; the transaction path absorbs it")
    func storedPointFallsBack() async throws {
        try await Self.withPrepared { store async throws in
            let results = await store.commitGroup([
                Self.write("d_a", [Self.point("d_a", second: 1, inside: false), Self.point("d_a", second: 20, inside: true)]),
            ])
            let outcome = try #require(try? results[0].get())
            #expect(outcome.stored == 1 && outcome.duplicates == 1 && outcome.events.map(\.event.kind) == [.enter])
            #expect(store.fenceStatements == 0)
            #expect(try await Self.outbox(store).count == 1)
        }
    }

    @Test("a fence state changed by another process is noticed: the request is evaluated from the state it left")
    func otherProcessNoticed() async throws {
        try await StoreKind.withSharedPostgres { first, second in
            let one = try #require(first as? PostgresStore), two = try #require(second as? PostgresStore)
            try await Self.prepare(one)
            // Both processes evaluate through the statement from here on (two loads the fences first).
            _ = try await two.ingestAlone(Self.write("d_b", [Self.point("d_b", second: 2, inside: false)]))
            _ = await one.commitGroup([Self.write("d_a", [Self.point("d_a", second: 10, inside: false)])])
            #expect(one.fenceStatements == 1)
            // The other process moves a into the fence; this one last saw a outside.
            let entered = await two.commitGroup([Self.write("d_a", [Self.point("d_a", second: 20, inside: true)])])
            #expect((try? entered[0].get())?.events.map(\.event.kind) == [.enter])
            // Without the check, this one would evaluate from "outside" and miss the exit.
            let left = await one.commitGroup([Self.write("d_a", [Self.point("d_a", second: 30, inside: false)])])
            #expect((try? left[0].get())?.events.map(\.event.kind) == [.exit])
            #expect(try await one.fenceEvents(deviceID: "d_a", afterID: 0, limit: 10).map(\.event.kind) == [.enter, .exit])
        }
    }

    @Test("concurrent groups of the same devices each take their turn: every event once, in order")
    func concurrentGroups() async throws {
        try await Self.withPrepared { store async throws in
            let outcomes = try await withThrowingTaskGroup(of: IngestOutcome.self) { group in
                for n in 1...60 {
                    group.addTask {
                        try await store.ingest(Self.write(n % 2 == 0 ? "d_a" : "d_b",
                                                          [Self.point(n % 2 == 0 ? "d_a" : "d_b", second: Double(10 + n), inside: (n / 2) % 2 == 1)]))
                    }
                }
                return try await group.reduce(into: [IngestOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.allSatisfy { $0.stored == 1 })
            // Whatever order the requests were committed in, each device's events alternate enter, exit, …
            for device in ["d_a", "d_b"] {
                let kinds = try await store.fenceEvents(deviceID: device, afterID: 0, limit: 1000).map(\.event.kind)
                #expect(!kinds.isEmpty)
                #expect(kinds.enumerated().allSatisfy { $0.element == ($0.offset % 2 == 0 ? .enter : .exit) }, "\(device): \(kinds)")
            }
            #expect(store.fenceStatements > 0)
        }
    }
}
