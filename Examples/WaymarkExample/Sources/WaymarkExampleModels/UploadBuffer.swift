import Foundation
import WaymarkEngine

/// The records the phone still owes the server, and the rule that a record leaves the phone only
/// after the server acknowledged it.
///
/// A pure state machine: ``append(_:)`` adds a recorded fix or gap marker, ``nextBatch()`` hands
/// out the oldest records (at most ``batchSize``) while they stay pending, and
/// ``finish(_:with:)`` removes them only on an acknowledgement (`accepted`, or `refused` for a
/// batch the server will never take). A failure keeps them for the next try with the same
/// idempotency key; a 413 halves the batch size.
///
/// ```swift
/// var buffer = UploadBuffer(batchSize: 100)
/// buffer.append(.fix(fix, rideID: "r1"))
/// if let batch = buffer.nextBatch() { buffer.finish(batch, with: await uploader.upload(batch)) }
/// ```
///
/// A `Sendable`, `Codable` value type (the app stores it, so a relaunch sends what is left).
public struct UploadBuffer: Hashable, Sendable, Codable {
    /// The records not yet acknowledged, oldest first (including those of a batch in flight).
    public private(set) var pending: [PendingRecord] = []
    /// The largest batch to send (halved after a 413, never below 1).
    public private(set) var batchSize: Int
    /// Fixes the server acknowledged since the app was installed.
    public private(set) var acknowledgedFixes = 0
    /// Gap markers the server acknowledged.
    public private(set) var acknowledgedGaps = 0
    /// Records the server rejected for good (validation, or a refused batch).
    public private(set) var rejected = 0
    /// The last failure or refusal, for the screen; cleared by the next acknowledgement.
    public private(set) var lastProblem: String?
    /// How many records from the front of ``pending`` are in flight; 0 when none.
    public private(set) var inFlight = 0
    /// The size of the batch that failed last: the next batch is the same records again, so it
    /// carries the same idempotency key (a batch the server committed before the reply was lost
    /// is then answered as a replay, not stored twice).
    public private(set) var retrySize: Int?

    /// Makes an empty buffer.
    public init(batchSize: Int = 100) {
        precondition(batchSize > 0, "batchSize must be positive")
        self.batchSize = batchSize
    }

    /// Fixes waiting for the server.
    public var pendingFixes: Int { pending.filter(\.isFix).count }

    /// Whether a batch is out and not finished.
    public var isUploading: Bool { inFlight > 0 }

    /// Adds a record at the end.
    public mutating func append(_ record: PendingRecord) {
        pending.append(record)
    }

    /// The oldest records, at most ``batchSize``, as a batch now in flight; nil when nothing is
    /// pending or a batch is already out (one at a time, so acknowledgements stay in order).
    public mutating func nextBatch() -> RideUploadBatch? {
        guard inFlight == 0, !pending.isEmpty else { return nil }
        inFlight = min(retrySize ?? batchSize, pending.count)
        return RideUploadBatch(records: Array(pending.prefix(inFlight)))
    }

    /// Settles the batch in flight with the server's answer.
    public mutating func finish(_ batch: RideUploadBatch, with outcome: RideUploadOutcome) {
        precondition(inFlight == batch.records.count, "finish(_:with:) takes the batch nextBatch() handed out")
        let count = inFlight
        inFlight = 0
        retrySize = nil
        switch outcome {
        case .accepted(let rejectedCount):
            let sent = pending.prefix(count)
            acknowledgedFixes += sent.filter(\.isFix).count
            acknowledgedGaps += sent.filter { !$0.isFix }.count
            rejected += rejectedCount
            pending.removeFirst(count)
            lastProblem = nil
        case .refused(let status, let message):
            rejected += count
            pending.removeFirst(count)
            lastProblem = "The server refused \(count) records (\(status)): \(message)"
        case .tooLarge:
            batchSize = max(1, min(batchSize, count) / 2)
            lastProblem = "The batch was too large for the server; sending \(batchSize) at a time"
        case .failed(let reason):
            retrySize = count
            lastProblem = reason
        }
    }
}
