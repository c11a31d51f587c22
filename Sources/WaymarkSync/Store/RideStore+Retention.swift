import Foundation
import GRDB
import WaymarkGeo

/// How much the device keeps for a server that does not take it: limits by age, count and bytes on
/// the points still on the phone (issue #32 item 6).
///
/// The defaults keep a month, a million points or 256 MiB of points, whichever comes first: far
/// more than weeks of daily riding at one fix a second, so only a phone whose server has been gone
/// for weeks reaches them. `nil` switches a limit off.
///
/// A `Sendable` value type.
public struct RetentionLimits: Hashable, Sendable, Codable {
    /// Points recorded longer ago than this are dropped, s (default 30 days).
    public var maxAge: TimeInterval?
    /// At most this many points are kept (default 1,000,000).
    public var maxPoints: Int?
    /// At most this many bytes of points (their encoded size in an upload) are kept (default 256 MiB).
    public var maxBytes: Int?

    /// Makes limits; `nil` switches one off.
    public init(maxAge: TimeInterval? = 30 * 86_400, maxPoints: Int? = 1_000_000, maxBytes: Int? = 256 << 20) {
        self.maxAge = maxAge
        self.maxPoints = maxPoints
        self.maxBytes = maxBytes
    }

    /// No limit at all.
    public static let unlimited = RetentionLimits(maxAge: nil, maxPoints: nil, maxBytes: nil)
}

/// What one enforcement of ``RetentionLimits`` dropped.
///
/// A `Sendable` value type.
public struct RetentionReport: Hashable, Sendable {
    /// Points dropped.
    public var droppedPoints: Int
    /// The gap markers written for them, one per ride (reason ``RideStore/retentionGapReason``).
    public var gaps: [GapRecord]
}

extension RideStore {
    /// The reason of the gap marker that stands for points dropped by ``enforceRetention(_:now:)``.
    public static let retentionGapReason = "droppedOnDevice"

    /// The time of the newest fix on the device, if any.
    ///
    /// - throws: ``SyncError`` (`.storage`) when the store cannot be read.
    public func newestFixTime() throws -> Date? {
        try read { db in try Int64.fetchOne(db, sql: "SELECT MAX(timestamp_ms) FROM fixes").map(StoreTime.date) }
    }

    /// Drops the oldest points waiting for the server until the store is within `limits`, and writes
    /// a gap marker for each ride that lost points, covering the first to the last dropped one; one
    /// transaction, so a kill leaves either the points or the gap marker.
    ///
    /// Every point on the device counts towards the count and byte limits. Points go oldest first,
    /// those not yet in a batch one by one and a pending batch whole: a batch may already be stored on
    /// the server, and its key must never go out again with a different body, so it is never cut
    /// (its gap markers and geofence events stay, for the next batch). A quarantined batch waits
    /// for the app's decision (``discard(batch:)``), so the store can stay over a limit by at most
    /// its points. The gap markers are uploaded like any other, so the server's track shows the hole.
    ///
    /// - parameter limits: the limits to bring the store within.
    /// - parameter now: the time the age limit counts back from.
    /// - throws: ``SyncError`` (`.storage`) when the store cannot be read or written.
    @discardableResult
    public func enforceRetention(_ limits: RetentionLimits, now: Date) throws -> RetentionReport {
        try write { db in
            let totals = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, COALESCE(SUM(payload_bytes), 0) AS bytes FROM fixes")
            var excessPoints = limits.maxPoints.map { max(0, (totals?["n"] ?? 0) - $0) } ?? 0
            var excessBytes = limits.maxBytes.map { max(0, (totals?["bytes"] ?? 0) - $0) } ?? 0
            let cutoff = limits.maxAge.map { StoreTime.millis(now.addingTimeInterval(-$0)) }
            var dropped: [Int64] = []
            var droppedBatches: Set<String> = []
            var spans: [String: (first: Int64, last: Int64)] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, ride_id, timestamp_ms, payload_bytes, batch_key FROM fixes
                WHERE batch_key IS NULL OR batch_key IN (SELECT key FROM upload_batches WHERE state = 'pending')
                ORDER BY timestamp_ms, id
                """)
            while let row = try rows.next() {
                let time: Int64 = row["timestamp_ms"]
                let batch: String? = row["batch_key"]
                let tooOld = cutoff.map { time < $0 } ?? false
                if let batch, droppedBatches.contains(batch) {
                    // The rest of a batch already going: it goes whole.
                } else {
                    guard tooOld || excessPoints > 0 || excessBytes > 0 else {
                        if batch == nil { break } else { continue }
                    }
                    if let batch { droppedBatches.insert(batch) }
                }
                dropped.append(row["id"])
                let ride: String = row["ride_id"]
                spans[ride] = (spans[ride]?.first ?? time, time)
                excessPoints -= 1
                excessBytes -= row["payload_bytes"] as Int
            }
            for chunk in stride(from: 0, to: dropped.count, by: 500) {
                let ids = dropped[chunk..<min(chunk + 500, dropped.count)]
                try db.execute(sql: "DELETE FROM fixes WHERE id IN (\(ids.map { _ in "?" }.joined(separator: ",")))",
                               arguments: StatementArguments(Array(ids)))
            }
            for key in droppedBatches {
                try db.execute(sql: "DELETE FROM upload_batches WHERE key = ?", arguments: [key])   // its gaps and events wait for the next
            }
            var gaps: [GapRecord] = []
            for (ride, span) in spans.sorted(by: { $0.value.first < $1.value.first }) {
                try db.execute(sql: "INSERT INTO gaps (ride_id, start_ms, end_ms, reason) VALUES (?, ?, ?, ?)",
                               arguments: [ride, span.first, span.last, Self.retentionGapReason])
                gaps.append(GapRecord(ride: RideID(ride), start: StoreTime.date(span.first), end: StoreTime.date(span.last),
                                      reason: Self.retentionGapReason))
            }
            return RetentionReport(droppedPoints: dropped.count, gaps: gaps)
        }
    }
}
