import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle
import WaymarkGeo

/// A ``Store`` on PostgreSQL through PostgresNIO, for several server processes sharing one database.
///
/// The connection pool must be running: add the store to the application's services (it is a
/// `Service`), or call ``run()`` in a task of your own. Concurrent ingest requests share
/// transactions (group commit; a request with an idempotency key has one of its own); concurrent
/// uploads of the same points from two processes are stored once (unique keys with
/// `ON CONFLICT DO NOTHING`). `Sendable`.
///
/// ```swift
/// let store = try PostgresStore(url: "postgres://waymark:secret@127.0.0.1:5432/waymark")
/// async let _ = store.run()
/// try await store.migrate()
/// ```
public final class PostgresStore: Store, Service {
    let client: PostgresClient
    let logger: Logger
    let fenceCache = FenceCache()
    /// How many ingest transactions were run again after a deadlock or serialization failure; logged, and
    /// read by the tests that check concurrent uploads do not deadlock in the first place.
    private let conflictRetries = NIOLockedValueBox(0)
    var conflictRetryCount: Int { conflictRetries.withLockedValue { $0 } }
    /// Ingest requests waiting for a group commit (`PostgresStore+GroupCommit.swift`).
    let groups = IngestGroups(maxRequests: 256, maxPositions: 20_000, maxCommitters: PostgresStore.groupCommitters)
    /// Group commits so far: groups committed, the requests in them, and groups that failed and were committed
    /// request by request; read by the tests.
    let groupCommitCounts = NIOLockedValueBox((groups: 0, requests: 0, fallbacks: 0))
    var groupCommitTotals: (groups: Int, requests: Int, fallbacks: Int) { groupCommitCounts.withLockedValue { $0 } }
    /// Groups committed by one statement (``oneStatementGroup(_:)``); read by the tests.
    let oneStatementGroupCount = NIOLockedValueBox(0)
    var oneStatementGroups: Int { oneStatementGroupCount.withLockedValue { $0 } }
    /// Each device's fence state as this process last wrote or read it (`PostgresStore+FenceStatement.swift`).
    let fenceStates = NIOLockedValueBox<[String: StoredFenceState]>([:])
    /// Devices whose fence evaluation and statement are under way in this process.
    let deviceTurns = DeviceTurns()
    /// Groups and keyed requests committed by ``fenceStatementIngest(_:)``; read by the tests.
    let fenceStatementCount = NIOLockedValueBox(0)
    var fenceStatements: Int { fenceStatementCount.withLockedValue { $0 } }

    /// Makes a store for a `postgres://user:password@host:port/database` URL.
    ///
    /// TLS is off unless the URL says `?sslmode=require`; `?search_path=SCHEMA` puts the tables
    /// in that schema (it must exist).
    /// - throws: ``ServerError`` with code ``ServerError/Code/configuration`` for a malformed URL.
    ///
    /// `durability` sets the connections' `synchronous_commit` (see ``StoreDurability``).
    public init(url: String, logger: Logger = Logger(label: "waymark.postgres"), durability: StoreDurability = .full) throws {
        var configuration = try Self.configuration(from: url)
        configuration.options.additionalStartupParameters.append(("synchronous_commit", durability.postgresSynchronousCommit))
        configuration.options.maximumConnections = 20
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
    }

    /// Runs the connection pool until the task is cancelled.
    public func run() async {
        await client.run()
    }

    static func configuration(from url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url),
              let scheme = components.scheme, scheme == "postgres" || scheme == "postgresql",
              let host = components.host, !host.isEmpty,
              let user = components.user, !user.isEmpty else {
            throw ServerError(.configuration,
                              "database URL '\(url)' is not of the form postgres://user:password@host:port/database")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let requireTLS = components.queryItems?.contains { $0.name == "sslmode" && $0.value == "require" } ?? false
        let tls: PostgresClient.Configuration.TLS = requireTLS ? .require(.makeClientConfiguration()) : .disable
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user,
            password: components.password?.removingPercentEncoding,
            database: database.isEmpty ? nil : database, tls: tls)
        if let schema = components.queryItems?.first(where: { $0.name == "search_path" })?.value {
            configuration.options.additionalStartupParameters.append(("search_path", schema))
        }
        return configuration
    }

    /// Registers a device; see ``DeviceStore/insertDevice(_:tokenHash:)``.
    public func insertDevice(_ device: DeviceRecord, tokenHash: String) async throws {
        try await storageErrors {
            try await client.query("""
                INSERT INTO devices (id, name, token_hash, created_ms, revoked_ms)
                VALUES (\(device.id), \(device.name), \(tokenHash), \(device.createdAt.millisecondsSince1970),
                        \(device.revokedAt?.millisecondsSince1970))
                """, logger: logger)
        }
    }

    /// All devices; see ``DeviceStore/listDevices()``.
    public func listDevices() async throws -> [DeviceRecord] {
        try await storageErrors {
            try await client.query("SELECT id, name, created_ms, revoked_ms FROM devices ORDER BY created_ms, id",
                                   logger: logger)
                .collect().map(Self.device(from:))
        }
    }

    /// One page of devices by id; see ``DeviceStore/devices(after:limit:)``.
    public func devices(after afterID: String?, limit: Int) async throws -> [DeviceRecord] {
        try await storageErrors {
            try await client.query(
                "SELECT id, name, created_ms, revoked_ms FROM devices WHERE id > \(afterID ?? "") ORDER BY id LIMIT \(max(1, limit))",
                logger: logger).collect().map(Self.device(from:))
        }
    }

    /// The device with this id; see ``DeviceStore/device(id:)``.
    public func device(id: String) async throws -> DeviceRecord? {
        try await storageErrors {
            try await client.query("SELECT id, name, created_ms, revoked_ms FROM devices WHERE id = \(id)", logger: logger)
                .collect().first.map(Self.device(from:))
        }
    }

    /// The device with this token digest; see ``DeviceStore/device(tokenHash:)``.
    public func device(tokenHash: String) async throws -> DeviceRecord? {
        try await storageErrors {
            try await client.query(
                "SELECT id, name, created_ms, revoked_ms FROM devices WHERE token_hash = \(tokenHash)", logger: logger)
                .collect().first.map(Self.device(from:))
        }
    }

    /// Revokes a device; see ``DeviceStore/revokeDevice(id:at:)``.
    public func revokeDevice(id: String, at date: Date) async throws -> Bool {
        try await storageErrors {
            let rows = try await client.query("""
                UPDATE devices SET revoked_ms = coalesce(revoked_ms, \(date.millisecondsSince1970))
                WHERE id = \(id) RETURNING id
                """, logger: logger).collect()
            return !rows.isEmpty
        }
    }

    /// A server setting; see ``SettingStore/setting(_:)``.
    public func setting(_ key: String) async throws -> String? {
        try await storageErrors {
            try await client.query("SELECT value FROM settings WHERE key = \(key)", logger: logger)
                .collect().first?.decode(String.self)
        }
    }

    /// Stores a setting once; see ``SettingStore/setSettingIfAbsent(_:value:)``.
    public func setSettingIfAbsent(_ key: String, value: String) async throws -> String {
        try await storageErrors {
            try await client.query("INSERT INTO settings (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO NOTHING",
                                   logger: logger)
            return try await client.query("SELECT value FROM settings WHERE key = \(key)", logger: logger)
                .collect().first?.decode(String.self) ?? value
        }
    }

    static func device(from row: PostgresRow) throws -> DeviceRecord {
        let (id, name, created, revoked) = try row.decode((String, String, Int64, Int64?).self)
        return DeviceRecord(id: id, name: name, createdAt: Date(millisecondsSince1970: created),
                            revokedAt: revoked.map(Date.init(millisecondsSince1970:)))
    }

    /// Runs `body`, turning PostgresNIO errors into ``ServerError``.
    @discardableResult
    func storageErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw Self.serverError(error)
        }
    }

    /// Runs `transaction` again when PostgreSQL aborted it as a deadlock victim or for a serialization
    /// failure (SQLSTATE 40P01, 40001): such a transaction was rolled back whole, so running it again is
    /// safe, and the other transaction has gone on. Rows are inserted in timestamp order, so concurrent
    /// uploads of the same points take the unique index's locks in one order; this is the safety net for
    /// whatever else may still deadlock. At most `attempts` runs; then the last error is thrown.
    func retryingConflicts<T>(attempts: Int = 5, _ transaction: () async throws -> T) async throws -> T {
        try await Self.retrying(attempts: attempts, when: { error in
            guard Self.isTransientConflict(error) else { return false }
            conflictRetries.withLockedValue { $0 += 1 }
            logger.notice("PostgreSQL aborted an ingest transaction as a deadlock or serialization failure; running it again")
            return true
        }, transaction)
    }

    /// Runs `body` up to `attempts` times while it throws an error `retry` accepts.
    static func retrying<T>(attempts: Int, when retry: (any Error) -> Bool, _ body: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch where attempt < attempts && retry(error) {
                attempt += 1
            }
        }
    }

    /// Whether `error` (also inside a transaction's error) is PostgreSQL's deadlock or serialization failure.
    static func isTransientConflict(_ error: any Error) -> Bool {
        switch error {
        case let error as PostgresTransactionError:
            return [error.closureError, error.beginError, error.commitError].contains { $0.map(isTransientConflict) ?? false }
        case let error as PSQLError:
            return ["40P01", "40001"].contains(error.serverInfo?[.sqlState] ?? "")
        default:
            return false
        }
    }

    /// `error` as a ``ServerError``: ours pass through (also from inside a transaction), PostgreSQL's
    /// become ``ServerError/Code/storage`` with the server's message.
    static func serverError(_ error: any Error) -> ServerError {
        switch error {
        case let error as ServerError:
            return error
        case let error as PostgresTransactionError:
            if let inner = error.closureError ?? error.beginError ?? error.commitError { return serverError(inner) }
            return ServerError(.storage, "PostgreSQL: \(error)")
        case let error as PSQLError:
            return ServerError(.storage, "PostgreSQL: \(error.serverInfo?[.message] ?? "\(error.code)")")
        default:
            return ServerError(.storage, "PostgreSQL: \(error)")
        }
    }
}
