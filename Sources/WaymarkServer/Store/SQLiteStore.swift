import Foundation
import GRDB
import WaymarkGeo
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The default ``Store``: one SQLite file in WAL mode, through GRDB.
///
/// Writes are serialised by GRDB's writer; reads run concurrently on the pool. Concurrent ingest
/// requests are committed together (group commit, one savepoint each), and ``ingest(_:)`` returns
/// after the commit. With ``StoreDurability/full`` (the default) that commit syncs the write-ahead log.
/// `Sendable`: share one instance across the whole server.
///
/// A new database file is created readable and writable by its owner only (mode 0600), whatever
/// the umask, and SQLite gives its `-wal`, `-shm` and `-journal` files the same bits: the
/// positions and webhook secrets are not readable by other local users. An existing file keeps its
/// mode; ``permissionWarning`` says when group or others can read it.
///
/// ```swift
/// let store = try SQLiteStore(path: "waymark.sqlite")
/// try await store.migrate()
/// ```
public final class SQLiteStore: Store {
    let pool: DatabasePool
    let fenceCache = FenceCache()
    let groups = IngestGroups()
    /// When a commit is acknowledged.
    public let durability: StoreDurability
    /// The database file's path.
    public let path: String
    /// Set when the database file already existed and its group or others may read or write it
    /// (for example a file created by an older version under umask 022): a sentence naming the
    /// file, its mode and the `chmod` that fixes it. The mode is never changed silently.
    public let permissionWarning: String?

    /// Opens (creating if needed, with mode 0600) the database at `path`.
    /// - throws: ``ServerError`` with code ``ServerError/Code/storage`` when the file cannot be opened.
    public init(path: String, durability: StoreDurability = .full) throws {
        permissionWarning = Self.createPrivateFile(at: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        configuration.foreignKeysEnabled = true
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // Set on the writer after GRDB's own WAL set-up, which sets NORMAL (a `prepareDatabase` pragma would be
            // overwritten). FULL: every commit syncs the log (one sync per group of requests). NORMAL: a commit
            // survives a crash of the process, but an OS crash or power loss can lose the last ones.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(durability.sqliteSynchronous)")
            }
        } catch {
            throw ServerError(.storage, "cannot open SQLite database at \(path): \(error)")
        }
        self.path = path
        self.durability = durability
    }

    /// Creates or upgrades the schema; see ``StoreSchema/migrate()``.
    public func migrate() async throws {
        try await storageErrors { try Self.migrator.migrate(pool) }
    }

    /// Registers a device; see ``DeviceStore/insertDevice(_:tokenHash:)``.
    public func insertDevice(_ device: DeviceRecord, tokenHash: String) async throws {
        try await storageErrors {
            try await pool.write { db in
                try db.execute(
                    sql: "INSERT INTO devices (id, name, token_hash, created_ms, revoked_ms) VALUES (?, ?, ?, ?, ?)",
                    arguments: [device.id, device.name, tokenHash, device.createdAt.millisecondsSince1970,
                                device.revokedAt?.millisecondsSince1970])
            }
        }
    }

    /// All devices; see ``DeviceStore/listDevices()``.
    public func listDevices() async throws -> [DeviceRecord] {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM devices ORDER BY created_ms, id").map(Self.device(from:))
            }
        }
    }

    /// One page of devices by id; see ``DeviceStore/devices(after:limit:)``.
    public func devices(after afterID: String?, limit: Int) async throws -> [DeviceRecord] {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM devices WHERE id > ? ORDER BY id LIMIT ?",
                                 arguments: [afterID ?? "", max(1, limit)]).map(Self.device(from:))
            }
        }
    }

    /// The device with this id; see ``DeviceStore/device(id:)``.
    public func device(id: String) async throws -> DeviceRecord? {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM devices WHERE id = ?", arguments: [id]).map(Self.device(from:))
            }
        }
    }

    /// The device with this token digest; see ``DeviceStore/device(tokenHash:)``.
    public func device(tokenHash: String) async throws -> DeviceRecord? {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM devices WHERE token_hash = ?", arguments: [tokenHash])
                    .map(Self.device(from:))
            }
        }
    }

    /// Revokes a device; see ``DeviceStore/revokeDevice(id:at:)``.
    public func revokeDevice(id: String, at date: Date) async throws -> Bool {
        try await storageErrors {
            try await pool.write { db in
                try db.execute(sql: "UPDATE devices SET revoked_ms = coalesce(revoked_ms, ?) WHERE id = ?",
                               arguments: [date.millisecondsSince1970, id])
                return db.changesCount > 0
            }
        }
    }

    /// A server setting; see ``SettingStore/setting(_:)``.
    public func setting(_ key: String) async throws -> String? {
        try await storageErrors {
            try await pool.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM settings WHERE key = ?", arguments: [key])
            }
        }
    }

    /// Stores a setting once; see ``SettingStore/setSettingIfAbsent(_:value:)``.
    public func setSettingIfAbsent(_ key: String, value: String) async throws -> String {
        try await storageErrors {
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                               arguments: [key, value])
                return try String.fetchOne(db, sql: "SELECT value FROM settings WHERE key = ?", arguments: [key]) ?? value
            }
        }
    }

    static func device(from row: Row) -> DeviceRecord {
        DeviceRecord(id: row["id"], name: row["name"],
                     createdAt: Date(millisecondsSince1970: row["created_ms"]),
                     revokedAt: (row["revoked_ms"] as Int64?).map(Date.init(millisecondsSince1970:)))
    }

    /// Creates an empty database file at `path` with mode 0600 when none exists, before SQLite
    /// opens it (SQLite creates files 0644 under the usual umask 022, and gives the `-wal` and
    /// `-shm` files the main file's permission bits). Leaves an existing file alone and returns a
    /// warning when its group or others have any access; returns nil otherwise, also for
    /// `:memory:` and `file:` URIs and when the file cannot be created (GRDB then reports why).
    static func createPrivateFile(at path: String) -> String? {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return nil }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
            return nil
        }
        guard errno == EEXIST else { return nil }
        // FileManager rather than stat(2): in a whole-module build the C `stat` struct is seen through
        // Dispatch's module map, which MemberImportVisibility rejects.
        guard let bits = try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber else {
            return nil
        }
        let mode = bits.intValue & 0o777
        guard mode & 0o077 != 0 else { return nil }
        return "the database file \(path) is accessible to other users (mode \(String(mode, radix: 8))); "
            + "it holds location history and webhook secrets: run `chmod 600` on it and its -wal and -shm files"
    }

    /// Runs `body`, turning GRDB errors into ``ServerError``.
    func storageErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw Self.storageError(error)
        }
    }
}
