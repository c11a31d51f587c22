import Foundation
import WaymarkTransport

/// What the upload queue needs of a durable store: its backlog, batches formed from what waits,
/// and the outcome of each send. ``RideStore`` (GRDB) is the package's implementation;
/// ``UploadExecutor`` takes any.
///
/// An implementation keeps every point until ``acknowledge(batch:rejecting:)`` for its batch, so a
/// kill at any moment loses nothing, and a batch keeps its key across relaunches, so a resend is
/// idempotent on the server. Every method may be called from any task; each must be atomic.
public protocol UploadStore: Sendable {
    /// What waits: unbatched points and gaps, pending batches, quarantined ones.
    func backlog() throws -> UploadBacklog
    /// The retry state saved by ``saveUploadBackoff(_:)``, so a relaunch keeps the backoff.
    func uploadBackoff() throws -> UploadBackoff
    /// Saves the retry state.
    func saveUploadBackoff(_ backoff: UploadBackoff) throws
    /// Puts the oldest unbatched points and gaps (at most `maxPoints` points, `maxBytes` encoded)
    /// into a new pending batch with a fresh key; nil when nothing waits.
    @discardableResult
    func formBatch(maxPoints: Int, maxBytes: Int, format: NativeBatchFormat, at now: Date) throws -> UploadBacklog.Batch?
    /// The batch with `key`, with its fixes and gaps, or nil.
    func batch(_ key: String) throws -> UploadBatch?
    /// The server committed the batch: its points (but the rejected ones, kept apart) leave the store.
    @discardableResult
    func acknowledge(batch key: String, rejecting rejected: [UploadRejection]) throws -> Int
    /// The server refused the batch as too large: it becomes two batches (nil when it cannot be split).
    @discardableResult
    func split(batch key: String) throws -> [UploadBacklog.Batch]?
    /// The server cannot ever accept the batch: it is set aside with `reason`, not resent.
    func quarantine(batch key: String, reason: String) throws
    /// The upload format cannot carry gap markers and geofence events: those of batch `key` (or, with
    /// nil, those waiting for a batch) leave the backlog and stay on the device, marked as not sent.
    @discardableResult
    func keepUnsent(inBatch key: String?) throws -> (gaps: Int, fenceEvents: Int)
}

extension RideStore: UploadStore {
    @discardableResult
    public func formBatch(maxPoints: Int, maxBytes: Int, format: NativeBatchFormat, at now: Date) throws -> UploadBacklog.Batch? {
        try formBatch(maxPoints: maxPoints, maxBytes: maxBytes, format: format, at: now, key: UUID().uuidString)
    }
}
