import Foundation

/// Everything one ingest request writes, committed in one transaction by ``PositionStore/ingest(_:)``.
public struct IngestWrite: Sendable {
    /// The authenticated device; every position belongs to it.
    public var deviceID: String
    /// The client's `Idempotency-Key`, if it sent one: a replay of the key stores nothing.
    public var idempotencyKey: String?
    /// Validated positions, in request order (duplicates allowed; the store absorbs them).
    public var positions: [Position]
    /// When the server received the request.
    public var receivedAt: Date
    /// Validated gap markers (a gap already stored with the same start and end is absorbed).
    public var gaps: [PositionGap]
    /// Records without a position (a copy of one already stored is absorbed).
    public var deviceEvents: [DeviceEventRecord]
    /// The fingerprint of the request that carried ``idempotencyKey`` (its route and body digest). A later
    /// request with that key and another fingerprint is refused (``ServerError/Code/idempotencyKeyReused``);
    /// nil compares with nothing (library writes, keys stored before fingerprints were kept).
    public var requestDigest: String?
    /// The most fence events this request may cause; past them the store refuses it whole (413).
    public var fenceEventLimits = FenceEventLimits()

    /// Makes a write for one request.
    public init(deviceID: String, idempotencyKey: String? = nil, positions: [Position], receivedAt: Date,
                gaps: [PositionGap] = [], deviceEvents: [DeviceEventRecord] = []) {
        self.deviceID = deviceID
        self.idempotencyKey = idempotencyKey
        self.positions = positions
        self.receivedAt = receivedAt
        self.gaps = gaps
        self.deviceEvents = deviceEvents
    }
}

extension IngestWrite {
    /// Entries the write carries: positions, gap markers and device events (what makes a write large, see
    /// ``LargeWriteLane``).
    public var entryCount: Int { positions.count + gaps.count + deviceEvents.count }

    /// Throws ``ServerError/Code/idempotencyKeyReused`` when a key already committed with fingerprint `stored`
    /// comes back with another one (both known).
    static func checkReplay(key: String, stored: String?, requested: String?) throws {
        guard let stored, let requested, stored != requested else { return }
        let sameRoute = stored.split(separator: ":").first == requested.split(separator: ":").first
        throw ServerError(.idempotencyKeyReused,
                          "Idempotency-Key '\(ClientText.truncated(key, maxBytes: 64))' was already used by this device "
                          + (sameRoute ? "with a different request body" : "on another route")
                          + "; nothing was stored. Send a new batch under a new key")
    }
}

/// What ``PositionStore/ingest(_:)`` committed.
public struct IngestOutcome: Hashable, Sendable {
    /// Positions newly stored by this request (for a replay: by the original request).
    public var stored: Int
    /// Positions absorbed because the device already had a point at that millisecond.
    public var duplicates: Int
    /// True when the idempotency key had been seen: nothing was written this time.
    public var replayed: Bool
    /// Fence events this request caused, as stored (empty for a replay).
    public var events: [FenceEventRecord]
    /// Gap markers newly stored by this request (0 for a replay).
    public var gapsStored: Int
    /// Device events newly stored by this request (0 for a replay).
    public var deviceEventsStored = 0
    /// The device events this request stored, with their ids (empty for a replay): what the live stream
    /// shows.
    public var newDeviceEvents: [DeviceEventRecord] = []
    /// The positions this request stored (not those absorbed as duplicates; empty for a replay), in
    /// no particular order: what the live stream shows, sorted by time.
    public var newPositions: [Position] = []

    /// Makes an outcome.
    public init(stored: Int, duplicates: Int, replayed: Bool, events: [FenceEventRecord] = [], gapsStored: Int = 0) {
        self.stored = stored
        self.duplicates = duplicates
        self.replayed = replayed
        self.events = events
        self.gapsStored = gapsStored
    }
}

/// A page request for one device's positions, in timestamp order.
///
/// Pagination is by key: pass the last timestamp of a page as ``afterMillis`` to get the next.
public struct PositionQuery: Hashable, Sendable {
    /// The device.
    public var deviceID: String
    /// Inclusive lower bound; nil for the beginning.
    public var from: Date?
    /// Exclusive upper bound; nil for no bound.
    public var to: Date?
    /// Only positions strictly after this timestamp (milliseconds since 1970): the cursor.
    public var afterMillis: Int64?
    /// Maximum number of positions returned (at least 1).
    public var limit: Int

    /// Makes a query; `limit` is clamped to at least 1.
    public init(deviceID: String, from: Date? = nil, to: Date? = nil, afterMillis: Int64? = nil, limit: Int = 1000) {
        self.deviceID = deviceID
        self.from = from
        self.to = to
        self.afterMillis = afterMillis
        self.limit = max(1, limit)
    }

    /// The effective lower bound in milliseconds (exclusive), combining `from` and the cursor.
    var lowerExclusiveMillis: Int64 {
        let fromBound = from.map { $0.millisecondsSince1970.subtractingReportingOverflow(1) }
            .map { $0.overflow ? Int64.min : $0.partialValue } ?? Int64.min
        return max(fromBound, afterMillis ?? Int64.min)
    }

    /// The upper bound in milliseconds (exclusive).
    var upperExclusiveMillis: Int64 { to.map(\.millisecondsSince1970) ?? Int64.max }
}
