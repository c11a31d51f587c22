import Foundation
import Logging
import PostgresNIO
import Testing
@testable import WaymarkServer

/// PostgreSQL aborts one of two deadlocked transactions (SQLSTATE 40P01). The store runs such an ingest
/// again instead of answering 500: concurrent uploads of the same points can deadlock on the positions'
/// unique index (seen once in CI, in `StoreTests.concurrentUploads`).
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
}
