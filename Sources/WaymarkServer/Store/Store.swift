import Foundation

/// Durable storage for devices, positions and ingest batches.
///
/// Two implementations share one test suite: ``SQLiteStore`` (one file, WAL; the default)
/// and ``PostgresStore`` (several server processes may share one database).
///
/// Guarantees every implementation keeps:
/// - ``ingest(_:)`` is one transaction: all of a request's positions and its idempotency
///   key commit together or not at all, and it returns only after the commit.
/// - A position whose device and millisecond timestamp already exist is absorbed.
/// - A write whose idempotency key was already committed for the device stores nothing
///   and reports `replayed`.
///
/// Implementations are `Sendable` and safe to call from many tasks at once.
///
/// ```swift
/// let store = try SQLiteStore(path: "/var/lib/waymark/waymark.sqlite")
/// try await store.migrate()
/// let outcome = try await store.ingest(IngestWrite(deviceID: id, positions: points, receivedAt: .now))
/// ```
public protocol Store: Sendable {
    /// Creates or upgrades the schema; safe to call from several processes at once.
    /// - throws: ``ServerError`` with code ``ServerError/Code/storage``.
    func migrate() async throws

    /// Registers a device with the SHA-256 digest of its token.
    func insertDevice(_ device: DeviceRecord, tokenHash: String) async throws
    /// All devices, oldest first, revoked ones included.
    func listDevices() async throws -> [DeviceRecord]
    /// The device with this id, or nil.
    func device(id: String) async throws -> DeviceRecord?
    /// The device whose token has this SHA-256 digest (hex), or nil.
    func device(tokenHash: String) async throws -> DeviceRecord?
    /// Marks the device revoked; returns false when no such device exists.
    func revokeDevice(id: String, at date: Date) async throws -> Bool

    /// Commits one request's positions in one transaction (see the type's guarantees).
    func ingest(_ write: IngestWrite) async throws -> IngestOutcome
    /// The device's most recent position by timestamp, or nil.
    func lastPosition(deviceID: String) async throws -> Position?
    /// One page of a device's positions in ascending timestamp order.
    func positions(_ query: PositionQuery) async throws -> [Position]

    /// A server setting (e.g. the admin token digest), or nil.
    func setting(_ key: String) async throws -> String?
    /// Stores `value` under `key` unless a value exists; returns the value now stored.
    func setSettingIfAbsent(_ key: String, value: String) async throws -> String
}
