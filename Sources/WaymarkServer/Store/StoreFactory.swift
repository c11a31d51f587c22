import Foundation
import Logging

/// Opens the store a `--database` argument names and keeps it running while in use.
///
/// A `postgres://` or `postgresql://` URL opens a ``PostgresStore``; anything else is the path
/// of a ``SQLiteStore`` file (created if missing).
///
/// ```swift
/// try await StoreFactory.withStore(at: "waymark.sqlite") { store in
///     try await store.migrate()
///     print(try await store.listDevices())
/// }
/// ```
public enum StoreFactory {
    /// Whether `location` names a PostgreSQL database.
    public static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    /// Runs `body` with the store at `location`; a PostgreSQL pool runs for exactly that long.
    ///
    /// The store is migrated before `body` runs.
    /// - throws: ``ServerError`` (``ServerError/Code/configuration`` or ``ServerError/Code/storage``),
    ///   or whatever `body` throws.
    /// `durability` says when ingest acknowledges a write (see ``StoreDurability``).
    public static func withStore<T: Sendable>(at location: String, durability: StoreDurability = .full,
                                              logger: Logger = Logger(label: "waymark.store"),
                                              _ body: @Sendable (any Store) async throws -> T) async throws -> T {
        guard isPostgres(location) else {
            let store = try SQLiteStore(path: location, durability: durability)
            try await store.migrate()
            return try await body(store)
        }
        let store = try PostgresStore(url: location, logger: logger, durability: durability)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            // Wait until the pool's task is about to run it, so the first query does not race the pool's
            // start (PostgresNIO would queue it, but warns "run() hasn't been called yet").
            let (started, signal) = AsyncStream<Void>.makeStream()
            group.addTask {
                signal.finish()
                await store.run()
            }
            defer { group.cancelAll() }
            for await _ in started {}
            try await store.migrate()
            return try await body(store)
        }
    }
}
