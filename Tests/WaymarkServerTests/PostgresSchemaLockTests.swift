import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import Testing
@testable import WaymarkServer

/// The PostgreSQL store's advisory locks are scoped to its schema: stores in other schemas of the same
/// database never wait for each other, while processes sharing a schema still serialise.
@Suite("PostgreSQL: advisory locks are per schema", .timeLimit(.minutes(5)),
       .enabled(if: StoreKind.postgresURL != nil, StoreKind.skipMessage))
struct PostgresSchemaLockTests {
    /// Holds `lockClass` in `store`'s schema inside a transaction while `other` runs, and returns whether
    /// `other` finished before the lock was released (it is released after at most `seconds`).
    static func finishes(while store: PostgresStore, holds lockClass: Int32, seconds: Double,
                         _ other: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        let finished = NIOLockedValueBox(false)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            let beforeRelease = try await store.client.withTransaction(logger: store.logger) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "SELECT " + PostgresStore.schemaLock(lockClass)),
                                           logger: store.logger)
                group.addTask {
                    try await other()
                    finished.withLockedValue { $0 = true }
                }
                let deadline = Date().addingTimeInterval(seconds)
                while !finished.withLockedValue({ $0 }), Date() < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                return finished.withLockedValue { $0 }
            }
            try await group.waitForAll()   // with the lock released, `other` finishes either way
            return beforeRelease
        }
    }

    @Test("a new schema is migrated while another schema's migration lock is held (before: it waited for it)")
    func migrationInAnotherSchema() async throws {
        try await StoreKind.postgres.withStore { first in
            let first = try #require(first as? PostgresStore)
            // 100 s: in a whole `swift test` run a new schema's migration alone can take a minute on 2 cores.
            let migrated = try await Self.finishes(while: first, holds: PostgresStore.migrationLock, seconds: 100) {
                let devices = try await StoreKind.postgres.withStore { second in
                    try await second.devices(after: nil, limit: 10)
                }
                #expect(devices.isEmpty)
            }
            #expect(migrated, "the second schema's migration waited for the first schema's lock")
        }
    }

    @Test("two stores over one schema still serialise their migrations on its lock")
    func migrationInTheSameSchema() async throws {
        try await StoreKind.withSharedPostgres { first, second in
            let first = try #require(first as? PostgresStore), second = try #require(second as? PostgresStore)
            let migrated = try await Self.finishes(while: first, holds: PostgresStore.migrationLock, seconds: 2) {
                try await second.migrate()
            }
            #expect(!migrated, "a migration of the same schema ran while its lock was held")
        }
    }
}
