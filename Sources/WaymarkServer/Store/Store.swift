import Foundation

/// Durable storage for devices, positions and ingest batches.
///
/// Two implementations share one test suite: ``SQLiteStore`` (one file, WAL; the default)
/// and ``PostgresStore`` (several server processes may share one database).
///
/// Guarantees every implementation keeps:
/// - ``PositionStore/ingest(_:)`` is one transaction (concurrent requests may share one: group commit): all of a
///   request's positions, gap markers, device events and its idempotency key commit together or not at all, and it
///   returns only after the commit. A write for a
///   revoked device stores nothing and throws ``ServerError/Code/unauthorized``.
/// - A position whose device and millisecond timestamp already exist is absorbed; so is a
///   ``DeviceEventRecord`` whose device, kind, time and detail are already stored.
/// - A write whose idempotency key was already committed for the device stores nothing
///   and reports `replayed`.
/// - The newly stored positions are evaluated against every fence in the same transaction,
///   sorted by time, starting from the device's last evaluated point; the resulting
///   ``ServerFenceEvent``s are stored with them (see ``FenceEngine``), and one outbox delivery per
///   event and webhook is queued in the same transaction.
///
/// The requirements come in small role protocols (``StoreSchema``, ``DeviceStore``,
/// ``PositionStore``, ``FenceStore``, ``WebhookStore``, ``SettingStore``), so code that needs one
/// role can ask for just that (`any WebhookStore`), and a test double implements only it.
///
/// Implementations are `Sendable` and safe to call from many tasks at once.
///
/// ```swift
/// let store = try SQLiteStore(path: "/var/lib/waymark/waymark.sqlite")
/// try await store.migrate()
/// let outcome = try await store.ingest(IngestWrite(deviceID: id, positions: points, receivedAt: .now))
/// ```
public typealias Store = StoreSchema & DeviceStore & PositionStore & FenceStore & WebhookStore & SettingStore

/// The schema of a store. One role of ``Store``.
public protocol StoreSchema: Sendable {
    /// Creates or upgrades the schema; safe to call from several processes at once.
    /// - throws: ``ServerError`` with code ``ServerError/Code/storage``.
    func migrate() async throws
}

/// Devices and their token digests. One role of ``Store``.
public protocol DeviceStore: Sendable {
    /// Registers a device with the SHA-256 digest of its token.
    func insertDevice(_ device: DeviceRecord, tokenHash: String) async throws
    /// All devices, oldest first, revoked ones included.
    func listDevices() async throws -> [DeviceRecord]
    /// One page of devices, revoked ones included: up to `limit` devices whose id sorts after `afterID` (from the
    /// first when nil), ordered by id, read through the primary key so a page costs `limit` rows.
    func devices(after afterID: String?, limit: Int) async throws -> [DeviceRecord]
    /// The device with this id, or nil.
    func device(id: String) async throws -> DeviceRecord?
    /// The device whose token has this SHA-256 digest (hex), or nil.
    func device(tokenHash: String) async throws -> DeviceRecord?
    /// Marks the device revoked; returns false when no such device exists.
    func revokeDevice(id: String, at date: Date) async throws -> Bool
}

/// Positions, gap markers and the idempotency keys of ingest requests. One role of ``Store``.
public protocol PositionStore: Sendable {
    /// Commits one request's positions in one transaction (see the type's guarantees).
    func ingest(_ write: IngestWrite) async throws -> IngestOutcome
    /// The device's most recent position by timestamp, or nil.
    func lastPosition(deviceID: String) async throws -> Position?
    /// The most recent position of every device that has one, by device id, in one query (the device list).
    func lastPositions() async throws -> [String: Position]
    /// One page of a device's positions in ascending timestamp order.
    func positions(_ query: PositionQuery) async throws -> [Position]
    /// Forgets `Idempotency-Key`s of requests received before `date`; returns how many were forgotten.
    func pruneIdempotencyKeys(receivedBefore date: Date) async throws -> Int
    /// One page of the device's gap markers whose start lies in the query's range, in (start, end) order.
    func gaps(_ query: GapQuery) async throws -> [PositionGap]
    /// Up to `limit` of the device's events (records without a position) with an id above `afterID`, oldest
    /// first; only those of `kind` when it is given (e.g. ``DeviceEventRecord/deviceFenceEventKind``).
    func deviceEvents(deviceID: String, kind: String?, afterID: Int64, limit: Int) async throws -> [DeviceEventRecord]
    /// Removes history older than `date` (retention): positions timed before it, gap markers that ended
    /// before it, device events received before it. One call removes a bounded amount (about `limit`
    /// rows per kind, in short transactions, so ingest goes on; on PostgreSQL also whole monthly
    /// partitions that end before `date`); returns how many rows it removed, 0 when nothing older is left.
    func deleteHistory(before date: Date, limit: Int) async throws -> Int
}

/// Fences and the events ingest decided for them. One role of ``Store``.
public protocol FenceStore: Sendable {
    /// Adds fences, replacing any with the same id, in one transaction; ingest sees them from the next request.
    func upsertFences(_ fences: [ServerFence], at date: Date) async throws
    /// Every fence, ordered by id.
    func listFences() async throws -> [ServerFence]
    /// One page of ``listFences()``: up to `limit` fences whose id sorts after `afterID` (from the first
    /// when nil), ordered by id, read through the primary key so a page costs `limit` rows, however many fences exist.
    func fences(after afterID: String?, limit: Int) async throws -> [ServerFence]
    /// The fence set's version: a number that changes with every change to the fences (their ETag).
    func fenceGeneration() async throws -> Int64
    /// Deletes a fence (its past events stay); returns false when no such fence exists.
    func deleteFence(id: String) async throws -> Bool
    /// Stored fence events with a sequence number above `afterID`, oldest first; one device's or everyone's.
    func fenceEvents(deviceID: String?, afterID: Int64, limit: Int) async throws -> [FenceEventRecord]
}

/// Webhook subscriptions and their delivery outbox. One role of ``Store``.
public protocol WebhookStore: Sendable {
    /// Adds a webhook subscription; events committed from now on are queued for it.
    func insertWebhook(_ webhook: Webhook) async throws
    /// Adds a webhook subscription only while fewer than `limit` exist, atomically: of concurrent calls (from
    /// any process sharing the database) at most `limit` minus the existing count succeed. Returns how many
    /// subscriptions existed before; the webhook was added when that is below `limit`.
    func insertWebhook(_ webhook: Webhook, ifFewerThan limit: Int) async throws -> Int
    /// Every webhook subscription, oldest first.
    func listWebhooks() async throws -> [Webhook]
    /// One page of webhook subscriptions: up to `limit` whose id sorts after `afterID` (from the first when nil),
    /// ordered by id.
    func webhooks(after afterID: String?, limit: Int) async throws -> [Webhook]
    /// Removes a subscription and its pending deliveries; returns false when no such webhook exists.
    func deleteWebhook(id: String) async throws -> Bool
    /// Claims up to `limit` pending deliveries due at `now`, counting an attempt and hiding them from
    /// other workers for `leaseSeconds`; each comes with its webhook's URL and secret.
    func claimDeliveries(at now: Date, limit: Int, leaseSeconds: Double) async throws -> [OutboxDelivery]
    /// Records the result of an attempt: delivered, pending again from `nextAttemptAt`, or dead.
    func settleDelivery(id: Int64, state: OutboxDelivery.State, nextAttemptAt: Date, error: String?, at now: Date) async throws
    /// Up to `limit` deliveries in `state` (or all) with an id below `beforeID` (from the newest when nil),
    /// newest first, read through the primary key.
    func deliveries(state: OutboxDelivery.State?, beforeID: Int64?, limit: Int) async throws -> [OutboxDelivery]
    /// Puts dead deliveries back in the queue, due now with no attempts made: the one with `id`, or every
    /// dead one of `webhookID`, or every dead one when both are nil. Returns how many were requeued.
    func requeueDeadDeliveries(id: Int64?, webhookID: String?, at now: Date) async throws -> Int
    /// How many deliveries are pending and how many are dead.
    func outboxDepth() async throws -> (pending: Int, dead: Int)
}

extension DeviceStore {
    /// A page of ``listDevices()`` sorted by id, for stores without a query of their own (it reads every device).
    public func devices(after afterID: String?, limit: Int) async throws -> [DeviceRecord] {
        let after = afterID ?? ""
        return Array(try await listDevices().filter { $0.id > after }.sorted { $0.id < $1.id }.prefix(max(1, limit)))
    }
}

extension WebhookStore {
    /// The newest `limit` deliveries in `state` (or all), newest first.
    public func deliveries(state: OutboxDelivery.State?, limit: Int) async throws -> [OutboxDelivery] {
        try await deliveries(state: state, beforeID: nil, limit: limit)
    }
}

/// Server settings (such as the admin token digest). One role of ``Store``.
public protocol SettingStore: Sendable {
    /// A server setting (e.g. the admin token digest), or nil.
    func setting(_ key: String) async throws -> String?
    /// Stores `value` under `key` unless a value exists; returns the value now stored.
    func setSettingIfAbsent(_ key: String, value: String) async throws -> String
}

extension PositionStore {
    /// Up to `limit` of the device's events of every kind with an id above `afterID`, oldest first.
    public func deviceEvents(deviceID: String, afterID: Int64, limit: Int) async throws -> [DeviceEventRecord] {
        try await deviceEvents(deviceID: deviceID, kind: nil, afterID: afterID, limit: limit)
    }
}
