import Foundation
import Logging
import Testing
@testable import WaymarkServer

/// The store implementations every store test runs against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The PostgreSQL URL for tests, from `WAYMARK_TEST_POSTGRES_URL` (see Scripts/start_test_postgres.sh).
    static let postgresURL: String? = ProcessInfo.processInfo.environment["WAYMARK_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// SQLite always; PostgreSQL when `WAYMARK_TEST_POSTGRES_URL` is set.
    static let available: [StoreKind] = postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]

    static let skipMessage: Comment =
        "WAYMARK_TEST_POSTGRES_URL is unset: the PostgreSQL store tests are skipped; run Scripts/start_test_postgres.sh and export its URL"

    /// Runs `body` with a fresh, migrated, empty store of this kind, and removes it afterwards.
    ///
    /// SQLite: a new file in a temporary directory. PostgreSQL: a new schema in the test database.
    func withStore<T: Sendable>(_ body: (any Store) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let store = try SQLiteStore(path: directory.appendingPathComponent("test.sqlite").path)
            try await store.migrate()
            return try await body(store)
        case .postgres:
            let url = try #require(Self.postgresURL, Self.skipMessage)
            let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            var logger = Logger(label: "waymark.test.postgres")
            logger.logLevel = .error
            let admin = try PostgresStore(url: url, logger: logger)
            let separator = url.contains("?") ? "&" : "?"
            let store = try PostgresStore(url: url + separator + "search_path=" + schema, logger: logger)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await admin.run() }
                group.addTask { await store.run() }
                defer { group.cancelAll() }
                try await admin.execute(unsafeSQL: "CREATE SCHEMA \(schema)")
                do {
                    try await store.migrate()
                    let result = try await body(store)
                    try await admin.execute(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
                    return result
                } catch {
                    try? await admin.execute(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
                    throw error
                }
            }
        }
    }

    /// Runs `body` with two independent PostgreSQL stores (two connection pools, as two server
    /// processes would have) over one fresh, migrated schema.
    static func withSharedPostgres<T: Sendable>(_ body: (any Store, any Store) async throws -> T) async throws -> T {
        let url = try #require(postgresURL, skipMessage)
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        var logger = Logger(label: "waymark.test.postgres")
        logger.logLevel = .error
        let admin = try PostgresStore(url: url, logger: logger)
        let separator = url.contains("?") ? "&" : "?"
        let first = try PostgresStore(url: url + separator + "search_path=" + schema, logger: logger)
        let second = try PostgresStore(url: url + separator + "search_path=" + schema, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for store in [admin, first, second] { group.addTask { await store.run() } }
            defer { group.cancelAll() }
            try await admin.execute(unsafeSQL: "CREATE SCHEMA \(schema)")
            do {
                async let a: Void = first.migrate()
                async let b: Void = second.migrate()
                _ = try await (a, b)
                let result = try await body(first, second)
                try await admin.execute(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
                return result
            } catch {
                try? await admin.execute(unsafeSQL: "DROP SCHEMA \(schema) CASCADE")
                throw error
            }
        }
    }
}
