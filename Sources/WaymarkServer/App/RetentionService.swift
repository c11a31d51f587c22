import Foundation
import Logging
import ServiceLifecycle

/// The background service that forgets old `Idempotency-Key`s, so the table of answered batches
/// does not grow forever.
///
/// Every ``interval`` seconds it deletes keys received more than ``retentionSeconds`` ago. A batch
/// replayed after that is answered like a new request whose points are all duplicates: nothing is
/// stored twice. `waymark serve` runs it (`--idempotency-days`). `Sendable`.
///
/// ```swift
/// let service = RetentionService(store: store, retentionSeconds: 30 * 86_400)
/// ```
public struct RetentionService: Service {
    /// The store to prune.
    public let store: any Store
    /// How long a key is kept, in seconds.
    public let retentionSeconds: TimeInterval
    /// Seconds between prunes.
    public let interval: TimeInterval
    /// The clock keys are aged by.
    public let clock: @Sendable () -> Date
    let logger: Logger

    /// Makes the service.
    public init(store: any Store, retentionSeconds: TimeInterval, interval: TimeInterval = 3600,
                clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Logger(label: "waymark.retention")) {
        self.store = store
        self.retentionSeconds = retentionSeconds
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    /// One prune at the clock's current time; returns how many keys were forgotten.
    @discardableResult
    public func pruneOnce() async throws -> Int {
        try await store.pruneIdempotencyKeys(receivedBefore: clock().addingTimeInterval(-retentionSeconds))
    }

    /// Prunes at start and then every ``interval`` until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let forgotten = try await pruneOnce()
                    if forgotten > 0 { logger.info("forgot old idempotency keys", metadata: ["count": "\(forgotten)"]) }
                } catch {
                    logger.error("pruning idempotency keys failed", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: .seconds(interval))
            }
        }
    }
}
