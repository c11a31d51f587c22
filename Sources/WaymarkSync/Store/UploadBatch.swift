import Foundation
import WaymarkEngine
import WaymarkGeo

/// A batch of fixes waiting for the server, with the idempotency key it is always sent under.
///
/// The ``key`` is chosen once, when the batch is formed, and stored with it: a retry, a relaunch
/// or a replay after a lost reply sends the same key, so the server stores the batch once.
///
/// A `Sendable` value type.
public struct UploadBatch: Hashable, Sendable {
    /// The batch's identity and `Idempotency-Key` header value.
    public var key: String
    /// The fixes, oldest first.
    public var fixes: [Fix]
    /// When the batch was formed.
    public var created: Date
    /// Pending (will be sent) or quarantined (the server refused it; kept for inspection).
    public var state: State
    /// Why the batch was quarantined; nil while pending.
    public var reason: String?
    /// Gap markers sent along with the fixes (after them, see `NativeBatchFormat` in `WaymarkTransport`).
    public var gaps: [GapRecord]
    /// The device's geofence events sent along (after the gap markers), in the order they were stored.
    public var fenceEvents: [FenceEvent]

    /// Whether a batch will be sent or has been set aside.
    public enum State: String, Hashable, Sendable, Codable {
        /// Waiting to be sent (again).
        case pending
        /// Refused by the server in a way retrying cannot fix; kept with its reason.
        case quarantined
    }

    /// Makes a batch value.
    public init(key: String, fixes: [Fix], created: Date, state: State = .pending, reason: String? = nil,
                gaps: [GapRecord] = [], fenceEvents: [FenceEvent] = []) {
        self.gaps = gaps
        self.fenceEvents = fenceEvents
        self.key = key
        self.fixes = fixes
        self.created = created
        self.state = state
        self.reason = reason
    }
}

/// What is waiting for upload in the store: the input the ``UploadQueue`` decides from.
///
/// A `Sendable` value type; sizes are bytes of the native batch encoding.
public struct UploadBacklog: Hashable, Sendable {
    /// A pending batch: its key and number of points.
    public struct Batch: Hashable, Sendable {
        /// The batch's idempotency key.
        public var key: String
        /// Number of points in the batch.
        public var points: Int

        /// Makes a pending-batch summary.
        public init(key: String, points: Int) {
            self.key = key
            self.points = points
        }
    }

    /// Fixes recorded but not yet in any batch.
    public var unbatchedPoints: Int
    /// The encoded size of those fixes, in bytes (approximate: without the batch envelope).
    public var unbatchedBytes: Int
    /// The timestamp of the oldest unbatched fix (or the end of the oldest unbatched gap marker).
    public var oldestUnbatched: Date?
    /// Pending batches in sending order.
    public var pending: [Batch]
    /// Number of quarantined batches (points the server refused, kept with its reason).
    public var quarantined: Int
    /// Gap markers recorded but not yet in any batch (nor uploaded).
    public var unbatchedGaps: Int
    /// Geofence events stored but not yet in any batch (nor uploaded).
    public var unbatchedFenceEvents: Int
    /// When the engine decided the oldest of those events.
    public var oldestUnbatchedFenceEvent: Date?

    /// Makes a backlog summary.
    public init(unbatchedPoints: Int = 0, unbatchedBytes: Int = 0, oldestUnbatched: Date? = nil,
                pending: [Batch] = [], quarantined: Int = 0, unbatchedGaps: Int = 0, unbatchedFenceEvents: Int = 0,
                oldestUnbatchedFenceEvent: Date? = nil) {
        self.unbatchedGaps = unbatchedGaps
        self.unbatchedFenceEvents = unbatchedFenceEvents
        self.oldestUnbatchedFenceEvent = oldestUnbatchedFenceEvent
        self.unbatchedPoints = unbatchedPoints
        self.unbatchedBytes = unbatchedBytes
        self.oldestUnbatched = oldestUnbatched
        self.pending = pending
        self.quarantined = quarantined
    }

    /// True when nothing waits for upload (quarantined batches do not count).
    public var isEmpty: Bool { !hasUnbatched && pending.isEmpty }

    /// True when fixes, gap markers or geofence events wait to be put into a batch.
    public var hasUnbatched: Bool { unbatchedPoints > 0 || unbatchedGaps > 0 || unbatchedFenceEvents > 0 }
}
