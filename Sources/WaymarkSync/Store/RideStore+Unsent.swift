import Foundation
import GRDB
import WaymarkEngine
import WaymarkGeo

/// Gap markers and geofence events that the upload format could not carry: kept on the device, not sent.
///
/// A `Sendable` value type.
public struct UnsentRecords: Hashable, Sendable {
    /// Gap markers kept on the device, oldest first.
    public var gaps: [GapRecord]
    /// Geofence events kept on the device, in the order they were stored.
    public var fenceEvents: [FenceEvent]

    /// Makes a value.
    public init(gaps: [GapRecord] = [], fenceEvents: [FenceEvent] = []) {
        self.gaps = gaps
        self.fenceEvents = fenceEvents
    }
}

extension RideStore {
    /// The `uploaded` value of a gap marker or geofence event kept on the device because the upload
    /// format cannot carry it (0: waiting for upload, 1: acknowledged by the server).
    static let keptUnsent = 2

    /// Marks gap markers and geofence events as kept on the device and not sent, because the upload
    /// format cannot carry them (every format but the native one): those of the batch `key`, or with
    /// nil those waiting for a batch. They leave the upload backlog and stay in the store, where
    /// ``unsentRecords()`` lists them; ``requeueUnsentRecords()`` puts them back in the backlog.
    ///
    /// - returns: how many gap markers and geofence events were kept.
    /// - throws: ``SyncError`` with code `.storage` when the write fails.
    @discardableResult
    public func keepUnsent(inBatch key: String?) throws -> (gaps: Int, fenceEvents: Int) {
        try write { db in
            var counts: [Int] = []
            for table in ["gaps", "fence_events"] {
                if let key {
                    try db.execute(sql: "UPDATE \(table) SET uploaded = \(Self.keptUnsent), batch_key = NULL WHERE batch_key = ?",
                                   arguments: [key])
                } else {
                    try db.execute(sql: "UPDATE \(table) SET uploaded = \(Self.keptUnsent) WHERE batch_key IS NULL AND uploaded = 0")
                }
                counts.append(db.changesCount)
            }
            return (counts[0], counts[1])
        }
    }

    /// The gap markers and geofence events kept on the device because the upload format could not
    /// carry them (``keepUnsent(inBatch:)``).
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails or an event cannot be decoded.
    public func unsentRecords() throws -> UnsentRecords {
        let (gaps, events) = try read { db in
            (try Row.fetchAll(db, sql: "SELECT * FROM gaps WHERE uploaded = \(Self.keptUnsent) ORDER BY start_ms, id").map(Self.gap(from:)),
             try String.fetchAll(db, sql: "SELECT event FROM fence_events WHERE uploaded = \(Self.keptUnsent) ORDER BY id"))
        }
        return UnsentRecords(gaps: gaps, fenceEvents: try events.map(Self.fenceEvent(from:)))
    }

    /// Puts every record kept unsent back into the upload backlog (after switching back to the native
    /// format, which carries them).
    ///
    /// - returns: how many gap markers and geofence events wait for upload again.
    /// - throws: ``SyncError`` with code `.storage` when the write fails.
    @discardableResult
    public func requeueUnsentRecords() throws -> (gaps: Int, fenceEvents: Int) {
        try write { db in
            try db.execute(sql: "UPDATE gaps SET uploaded = 0 WHERE uploaded = \(Self.keptUnsent)")
            let gaps = db.changesCount
            try db.execute(sql: "UPDATE fence_events SET uploaded = 0 WHERE uploaded = \(Self.keptUnsent)")
            return (gaps, db.changesCount)
        }
    }
}
