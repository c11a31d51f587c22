import Foundation
import GRDB
import WaymarkGeo

/// The device's durable store of rides, fixes, gap markers and upload state (SQLite via GRDB).
///
/// Every write is one transaction that has committed when the method returns: a fix reported
/// as recorded is already on disk. A file-backed store uses WAL journaling (readers never block
/// the writer) with `synchronous = NORMAL`. Fixes stay until the server acknowledges them
/// (``acknowledge(batch:rejecting:)``); a fix is unique per ride and millisecond timestamp.
///
/// ```swift
/// let store = try RideStore(path: documents + "/rides.sqlite")
/// let ride = try store.startRide(at: .now, policy: "cycling")
/// try store.append(fixes, to: ride.id)          // on disk when this returns
/// let backlog = try store.backlog()             // what the UploadQueue decides from
/// ```
///
/// Thread-safety: a `Sendable` reference; GRDB serializes writes, so any task may call it.
/// Calls are synchronous and block for the duration of one SQLite transaction.
public final class RideStore: Sendable {
    let db: any DatabaseWriter
    /// The file path, or nil for an in-memory store.
    public let path: String?

    /// Opens (creating if needed) the store at `path` and migrates it to the current schema.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the file cannot be opened or migrated.
    public convenience init(path: String) throws {
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: Self.configuration())
        } catch {
            throw SyncError(.storage, "cannot open the ride store at \(path): \(error)")
        }
        try self.init(writer: pool, path: path)
    }

    /// Makes an empty in-memory store (for previews and tests; nothing survives the object).
    ///
    /// - throws: ``SyncError`` with code `.storage` when SQLite fails.
    public static func inMemory() throws -> RideStore {
        do {
            return try RideStore(writer: DatabaseQueue(configuration: configuration()), path: nil)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.storage, "cannot open an in-memory ride store: \(error)")
        }
    }

    init(writer: any DatabaseWriter, path: String?, upTo lastMigration: String? = nil) throws {
        db = writer
        self.path = path
        do {
            if let lastMigration {
                try Self.migrator.migrate(writer, upTo: lastMigration)
            } else {
                try Self.migrator.migrate(writer)
            }
        } catch {
            throw SyncError(.storage, "cannot migrate the ride store\(path.map { " at \($0)" } ?? ""): \(error)")
        }
    }

    static func configuration() -> Configuration {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        return config
    }

    /// The names of the schema migrations applied to this store, oldest first.
    ///
    /// - throws: ``SyncError`` with code `.storage` when SQLite fails.
    public func appliedMigrations() throws -> [String] {
        try read { db in try Self.migrator.appliedMigrations(db) }
    }

    /// The journal mode SQLite reports (`"wal"` for a file-backed store).
    ///
    /// - throws: ``SyncError`` with code `.storage` when SQLite fails.
    public func journalMode() throws -> String {
        try read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try db.read(body)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.storage, "reading the ride store failed: \(error)")
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try db.write(body)
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.storage, "writing the ride store failed: \(error)")
        }
    }
}
