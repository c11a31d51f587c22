import Foundation
import WaymarkEngine
import WaymarkGeo
import WaymarkTransport

/// The seam through which the Ride tab sends a batch to a `waymark serve` server.
///
/// On the phone it is ``TransportRideUploader`` over the app's background `URLSession` transport
/// (``URLSessionRideUploader`` in a UIKit background task as a fall-back); in tests a fake.
///
/// ```swift
/// let outcome = await uploader.upload(batch)
/// if case .accepted = outcome { buffer.finish(batch, outcome) }
/// ```
///
/// Implementations must be safe to call from any task.
public protocol RideUploader: Sendable {
    /// Sends one batch once and reports what happened; never throws.
    func upload(_ batch: RideUploadBatch) async -> RideUploadOutcome
}

/// One upload: the records it carries, its idempotency key and its request body.
///
/// The key is derived from the records, so a batch sent again after a failure carries the same
/// key and the server stores it once. A `Sendable` value type.
public struct RideUploadBatch: Hashable, Sendable {
    /// The records, fixes first, then gap markers (as in ``body``).
    public var records: [PendingRecord]
    /// The `Idempotency-Key` header.
    public var idempotencyKey: String

    /// Makes a batch of `records` with a key derived from them.
    public init(records: [PendingRecord]) {
        self.records = records.filter(\.isFix) + records.filter { !$0.isFix }
        idempotencyKey = Self.key(for: self.records)
    }

    /// The number of fixes in the batch.
    public var fixCount: Int { records.filter(\.isFix).count }

    /// The request body: Waymark's native batch (Overland GeoJSON) written by `WaymarkTransport`'s
    /// `NativeBatchFormat`, fixes first, then gap markers as features without geometry.
    public var body: [UInt8] {
        var fixes: [Fix] = []
        var gaps: [NativeBatchFormat.Gap] = []
        for record in records {
            switch record {
            case .fix(let fix, _): fixes.append(fix)
            case .gap(let gap, let rideID):
                gaps.append(NativeBatchFormat.Gap(rideID: rideID, start: gap.start, end: gap.end, reason: gap.reason.rawValue))
            }
        }
        return NativeBatchFormat().body(for: fixes, gaps: gaps)
    }

    static func key(for records: [PendingRecord]) -> String {
        let first = records.map(\.time).min().map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? 0
        let last = records.map(\.time).max().map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? 0
        let ride = records.first?.rideID ?? "none"
        return "example-\(ride)-\(first)-\(last)-\(records.count)"
    }
}

/// What came of one upload. A `Sendable` value type.
public enum RideUploadOutcome: Hashable, Sendable {
    /// The server answered 200: every record is settled (stored, a duplicate, or rejected by
    /// validation, which sending again would not change). `rejected` counts the rejected ones.
    case accepted(rejected: Int)
    /// The server refused the whole batch for good (422: no valid point): sending it again would
    /// fail the same way, so it is dropped, and the message says why.
    case refused(status: Int, message: String)
    /// The batch is too large for the server (413): it is sent again in smaller batches.
    case tooLarge
    /// Not delivered: no network, a timeout, 401/403 (a bad token), 5xx. Kept and sent again later.
    case failed(String)
}

/// A record waiting for the server: a recorded fix or a gap marker, with the ride it belongs to.
///
/// A `Sendable`, `Codable` value type.
public enum PendingRecord: Hashable, Sendable, Codable {
    /// A fix the ride recorded.
    case fix(Fix, rideID: String)
    /// A span the ride could not record.
    case gap(GapMarker, rideID: String)

    /// Whether this is a fix.
    public var isFix: Bool { if case .fix = self { true } else { false } }

    /// The ride's identifier.
    public var rideID: String {
        switch self {
        case .fix(_, let id), .gap(_, let id): id
        }
    }

    /// The fix's timestamp, or the gap's end.
    public var time: Date {
        switch self {
        case .fix(let fix, _): fix.timestamp
        case .gap(let gap, _): gap.end
        }
    }
}
