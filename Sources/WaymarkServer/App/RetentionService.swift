import Foundation
import Logging
import ServiceLifecycle
import WaymarkGeo

/// The background service that keeps stored history bounded.
///
/// Every ``interval`` seconds:
/// - it deletes `Idempotency-Key`s received more than ``retentionSeconds`` ago (`--idempotency-days`). A
///   batch replayed after that is answered like a new request whose points are all duplicates: nothing is
///   stored twice;
/// - with ``historySeconds`` (`--retention-days`), it removes older positions, gap markers and device
///   events through ``PositionStore/deleteHistory(before:limit:)``, ``batch`` rows at a time, yielding between
///   batches so ingest goes on;
/// - on PostgreSQL it creates the coming partitions (``PostgresStore/ensurePartitions(around:)``) and moves the
///   positions of days that ended over an hour ago into compact chunks (``compactOnce(_:)``).
/// `Sendable`.
///
/// ```swift
/// let service = RetentionService(store: store, retentionSeconds: 30 * 86_400)
/// ```
public struct RetentionService: Service {
    /// The store to prune.
    public let store: any Store
    /// How long an idempotency key is kept, in seconds; nil: forever.
    public let retentionSeconds: TimeInterval?
    /// How long positions, gap markers and device events are kept, in seconds; nil: forever.
    public let historySeconds: TimeInterval?
    /// Rows removed per call of ``PositionStore/deleteHistory(before:limit:)``.
    public let batch = 5_000
    /// Seconds between prunes.
    public let interval: TimeInterval
    /// The clock keys are aged by.
    public let clock: @Sendable () -> Date
    let logger: Logger

    /// Makes the service.
    ///
    /// - precondition: `interval` is positive and finite (zero would prune in a busy loop), and the
    ///   retention and history periods, when given, are not negative (a negative one would delete
    ///   everything, including what arrives meanwhile).
    public init(store: any Store, retentionSeconds: TimeInterval?, historySeconds: TimeInterval? = nil, interval: TimeInterval = 3600,
                clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Logger(label: "waymark.retention")) {
        var check = ContractCheck()
        check.finitePositive("interval", interval)
        if let retentionSeconds { check.nonNegative("retentionSeconds", retentionSeconds) }
        if let historySeconds { check.nonNegative("historySeconds", historySeconds) }
        ContractCheck.require(check.violations, in: "RetentionService")
        self.store = store
        self.retentionSeconds = retentionSeconds
        self.historySeconds = historySeconds
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    /// One prune at the clock's current time; returns how many keys were forgotten.
    @discardableResult
    public func pruneOnce() async throws -> Int {
        guard let retentionSeconds else { return 0 }
        return try await store.pruneIdempotencyKeys(receivedBefore: clock().addingTimeInterval(-retentionSeconds))
    }

    /// Removes history older than ``historySeconds`` at the clock's current time, batch by batch until
    /// none is left; returns how many rows were removed (0 without ``historySeconds``).
    @discardableResult
    public func expireHistoryOnce() async throws -> Int {
        guard let historySeconds else { return 0 }
        let cutoff = clock().addingTimeInterval(-historySeconds)
        var removed = 0
        while true {
            let count = try await store.deleteHistory(before: cutoff, limit: batch)
            removed += count
            if count == 0 || Task.isCancelled { return removed }
            await Task.yield()
        }
    }

    /// How long after a UTC day ends its positions are compacted into chunks on PostgreSQL, in seconds: an hour,
    /// so a server whose clock is slightly off never compacts a day another still writes as today.
    public static let compactionDelay: TimeInterval = 3600

    /// Compacts the finished days of a PostgreSQL store at the clock's current time; returns how many positions
    /// moved (``PostgresStore/compactHistory(before:pointsPerTransaction:)``).
    @discardableResult
    public func compactOnce(_ store: PostgresStore) async throws -> Int {
        try await store.compactHistory(before: clock().addingTimeInterval(-Self.compactionDelay))
    }

    /// Prunes at start and then every ``interval`` until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let forgotten = try await pruneOnce()
                    if forgotten > 0 { logger.info("forgot old idempotency keys", metadata: ["count": "\(forgotten)"]) }
                    let expired = try await expireHistoryOnce()
                    if expired > 0 { logger.info("removed history past the retention period", metadata: ["rows": "\(expired)"]) }
                    if let postgres = store as? PostgresStore {
                        try await postgres.ensurePartitions(around: clock())
                        let moved = try await compactOnce(postgres)
                        if moved > 0 { logger.info("compacted finished days into chunks", metadata: ["positions": "\(moved)"]) }
                    }
                } catch {
                    logger.error("retention failed", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: .seconds(interval))
            }
        }
    }
}
