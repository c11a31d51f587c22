import Foundation
import Logging
import PostgresNIO
import Testing
@testable import WaymarkServer

/// PostgreSQL aborts one of two deadlocked transactions (SQLSTATE 40P01). The store runs such an ingest
/// again instead of answering 500: concurrent uploads of the same points can deadlock on the positions'
/// unique index when each takes the rows in its own order (seen in CI, in `StoreTests.concurrentUploads`), so
/// the store inserts rows in timestamp order, and the retry is the safety net behind that.
@Suite("PostgreSQL: a deadlocked or serialization-failed transaction is run again")
struct PostgresConflictRetryTests {
    struct Transient: Error {}
    struct Other: Error {}

    @Test("retrying runs again only on the errors it is told to, at most `attempts` times")
    func retrying() async throws {
        var runs = 0
        let value = try await PostgresStore.retrying(attempts: 5, when: { $0 is Transient }) { () async throws -> Int in
            runs += 1
            if runs < 3 { throw Transient() }
            return runs
        }
        #expect(value == 3 && runs == 3)
        // Still failing after every attempt: the last error is thrown.
        runs = 0
        do {
            _ = try await PostgresStore.retrying(attempts: 4, when: { $0 is Transient }) { () async throws -> Int in
                runs += 1
                throw Transient()
            }
            Issue.record("the last error must be thrown")
        } catch {
            #expect(error is Transient)
        }
        #expect(runs == 4)
        // Another error is thrown at once.
        runs = 0
        do {
            _ = try await PostgresStore.retrying(attempts: 4, when: { $0 is Transient }) { () async throws -> Int in
                runs += 1
                throw Other()
            }
            Issue.record("the error must be thrown")
        } catch {
            #expect(error is Other)
        }
        #expect(runs == 1)
    }

    @Test("a real deadlock between two transactions is recognised as transient, inside the transaction error",
          .enabled(if: StoreKind.postgresURL != nil, StoreKind.skipMessage))
    func realDeadlock() async throws {
        try await StoreKind.postgres.withStore { store in
            let client = try #require(store as? PostgresStore).client
            try await client.query("CREATE TABLE deadlock_probe (id int PRIMARY KEY, v int)")
            try await client.query("INSERT INTO deadlock_probe VALUES (1, 0), (2, 0)")
            // Each transaction locks its first row, then waits until the other has locked its own, so
            // both then wait for each other: PostgreSQL's deadlock check aborts one of them.
            let (firstLocked, signalFirst) = AsyncStream<Void>.makeStream()
            let (secondLocked, signalSecond) = AsyncStream<Void>.makeStream()
            func crossing(_ mine: Int, _ theirs: Int, signal: AsyncStream<Void>.Continuation,
                          wait: AsyncStream<Void>) async -> (any Error)? {
                do {
                    try await client.withTransaction(logger: Logger(label: "deadlock-probe")) { connection in
                        try await connection.query("UPDATE deadlock_probe SET v = v + 1 WHERE id = \(mine)", logger: Logger(label: "probe"))
                        signal.yield()
                        for await _ in wait { break }
                        try await connection.query("UPDATE deadlock_probe SET v = v + 1 WHERE id = \(theirs)", logger: Logger(label: "probe"))
                    }
                    return nil
                } catch {
                    return error
                }
            }
            async let first = crossing(1, 2, signal: signalFirst, wait: secondLocked)
            async let second = crossing(2, 1, signal: signalSecond, wait: firstLocked)
            let errors = await [first, second].compactMap { $0 }
            #expect(errors.count == 1, "exactly one transaction is the deadlock's victim: \(errors)")
            for error in errors {
                #expect(PostgresStore.isTransientConflict(error), "\(String(reflecting: error))")
                #expect(error is PostgresTransactionError)
            }
            #expect(!PostgresStore.isTransientConflict(Other()))
        }
    }

    /// Keyless uploads are committed in groups; uploads with distinct idempotency keys each in a transaction
    /// of its own, so both ways of inserting are run concurrently.
    @Test("concurrent uploads of the same points, each in its own order, do not deadlock",
          .enabled(if: StoreKind.postgresURL != nil, StoreKind.skipMessage), arguments: [false, true])
    func noDeadlockAcrossOrders(keyed: Bool) async throws {
        try await StoreKind.postgres.withStore { store in
            let postgres = try #require(store as? PostgresStore)
            let device = try await StoreTests.registered(store)
            // One shuffled request alone: the rows' physical order (ctid) is the order they were inserted in.
            let alone = (0..<200).map { StoreTests.point(device.id, second: 50_000 + Double($0)) }
            _ = try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: nil, positions: alone.shuffled(),
                                                   receivedAt: StoreTests.t0))
            let inserted = try await postgres.client.query("SELECT ts FROM positions WHERE device_id = \(device.id) ORDER BY ctid",
                                                           logger: Logger(label: "probe")).collect().map { try $0.decode(Int64.self) }
            #expect(inserted.count == 200 && inserted == inserted.sorted(), "rows are inserted in timestamp order")
            // Rows are inserted in timestamp order whatever order the client sent them in, so the unique
            // index's locks are taken in one order. Unsorted, 12 shuffled copies deadlock in some of these rounds.
            for round in 0..<10 {
                let points = (0..<300).map { StoreTests.point(device.id, second: Double(round * 1_000 + $0)) }
                let stored = try await withThrowingTaskGroup(of: Int.self) { group in
                    for upload in 0..<12 {
                        group.addTask {
                            try await store.ingest(IngestWrite(deviceID: device.id, idempotencyKey: keyed ? "r\(round)-\(upload)" : nil,
                                                               positions: points.shuffled(), receivedAt: StoreTests.t0)).stored
                        }
                    }
                    return try await group.reduce(0, +)
                }
                #expect(stored == 300, "round \(round): every point stored once")
            }
            #expect(postgres.conflictRetryCount == 0, "no ingest transaction was a deadlock's victim")
        }
    }
}
