import Foundation
import GRDB
import WaymarkEngine
import WaymarkGeo

extension RideStore {
    /// What waits for upload: unbatched fixes and pending batches in sending order.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails.
    public func backlog() throws -> UploadBacklog {
        try read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS n, COALESCE(SUM(payload_bytes), 0) AS bytes, MIN(timestamp_ms) AS oldest
                FROM fixes WHERE batch_key IS NULL
                """)
            let pending = try Row.fetchAll(db, sql: """
                SELECT key, point_count FROM upload_batches WHERE state = 'pending' ORDER BY seq, key
                """).map { UploadBacklog.Batch(key: $0["key"], points: $0["point_count"]) }
            let quarantined = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM upload_batches WHERE state = 'quarantined'") ?? 0
            let gaps = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS n, MIN(end_ms) AS oldest FROM gaps WHERE batch_key IS NULL AND uploaded = 0
                """)
            let events = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS n, MIN(delivered_ms) AS oldest FROM fence_events WHERE batch_key IS NULL AND uploaded = 0
                """)
            let oldest = [row?["oldest"] as Int64?, gaps?["oldest"] as Int64?, events?["oldest"] as Int64?].compactMap { $0 }.min()
            return UploadBacklog(unbatchedPoints: row?["n"] ?? 0, unbatchedBytes: row?["bytes"] ?? 0,
                                 oldestUnbatched: oldest.map(StoreTime.date),
                                 pending: pending, quarantined: quarantined, unbatchedGaps: gaps?["n"] ?? 0,
                                 unbatchedFenceEvents: events?["n"] ?? 0,
                                 oldestUnbatchedFenceEvent: (events?["oldest"] as Int64?).map(StoreTime.date))
        }
    }

    /// Puts the oldest unbatched fixes, every gap marker not yet uploaded or batched, and the oldest
    /// geofence events not yet uploaded or batched (at most ``maxFenceEventsPerBatch``) into a new
    /// pending batch with a fresh idempotency key.
    ///
    /// Takes at most `maxPoints` fixes and stops before the encoded body (in `format`) would pass
    /// `maxBytes`, but always takes at least one fix (gap markers and events, a few hundred bytes
    /// each, are not counted). Returns nil when nothing is unbatched.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the write fails.
    @discardableResult
    public func formBatch(maxPoints: Int, maxBytes: Int, format: NativeBatchFormat = NativeBatchFormat(),
                          at now: Date, key: String = UUID().uuidString) throws -> UploadBacklog.Batch? {
        precondition(maxPoints > 0, "a batch holds at least one point")
        return try write { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, payload_bytes FROM fixes WHERE batch_key IS NULL ORDER BY timestamp_ms, id LIMIT ?
                """, arguments: [maxPoints])
            var ids: [Int64] = []
            var bytes = NativeBatchFormat.envelopeBytes - 1  // n features have n - 1 commas
            let extra = format.deviceIDBytes
            for row in rows {
                let size: Int = row["payload_bytes"]
                bytes += size + extra
                if !ids.isEmpty, bytes > maxBytes { break }
                ids.append(row["id"])
            }
            let gapIDs = try Int64.fetchAll(db, sql: "SELECT id FROM gaps WHERE batch_key IS NULL AND uploaded = 0 ORDER BY start_ms, id")
            let eventIDs = try Int64.fetchAll(db, sql: "SELECT id FROM fence_events WHERE batch_key IS NULL AND uploaded = 0 ORDER BY id LIMIT ?",
                                              arguments: [Self.maxFenceEventsPerBatch])
            guard !ids.isEmpty || !gapIDs.isEmpty || !eventIDs.isEmpty else { return nil }
            try insertBatch(db, key: key, createdMillis: StoreTime.millis(now), fixIDs: ids)
            try assign(db, table: "gaps", gapIDs, to: key)
            try assign(db, table: "fence_events", eventIDs, to: key)
            return UploadBacklog.Batch(key: key, points: ids.count)
        }
    }

    /// The batch with this key and its fixes, or nil when it no longer exists (acknowledged).
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails.
    public func batch(_ key: String) throws -> UploadBatch? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM upload_batches WHERE key = ?", arguments: [key]) else {
                return nil
            }
            let fixes = try Row.fetchAll(db, sql: "SELECT \(Self.fixColumns) FROM fixes WHERE batch_key = ? ORDER BY timestamp_ms, id",
                                         arguments: [key]).map(Self.fix(from:))
            let gaps = try Row.fetchAll(db, sql: "SELECT * FROM gaps WHERE batch_key = ? ORDER BY start_ms, id", arguments: [key])
                .map(Self.gap(from:))
            let events = try String.fetchAll(db, sql: "SELECT event FROM fence_events WHERE batch_key = ? ORDER BY id", arguments: [key])
                .map(Self.fenceEvent(from:))
            return UploadBatch(key: key, fixes: fixes, created: StoreTime.date(row["created_ms"]),
                               state: UploadBatch.State(rawValue: row["state"]) ?? .pending, reason: row["reason"], gaps: gaps,
                               fenceEvents: events)
        }
    }

    /// The server acknowledged the batch: deletes its fixes and the batch, in one transaction;
    /// its gap markers and geofence events stay on the device, marked as uploaded.
    ///
    /// Each point in `rejecting` (by its index in the request, which lists the batch's fixes in
    /// order) is kept instead, alone in a quarantined batch `key.r<index>` with the server's
    /// reason. Indexes past the fixes (gap markers and events) are ignored. Acknowledging a batch that no
    /// longer exists does nothing. Returns the number of fixes removed.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the write fails.
    @discardableResult
    public func acknowledge(batch key: String, rejecting rejected: [UploadRejection] = []) throws -> Int {
        try write { db in
            if !rejected.isEmpty, let row = try Row.fetchOne(db, sql: "SELECT seq, created_ms FROM upload_batches WHERE key = ?",
                                                              arguments: [key]) {
                let ids = try Int64.fetchAll(db, sql: "SELECT id FROM fixes WHERE batch_key = ? ORDER BY timestamp_ms, id",
                                             arguments: [key])
                var seen = Set<Int>()
                for rejection in rejected where ids.indices.contains(rejection.index) && seen.insert(rejection.index).inserted {
                    let held = "\(key).r\(rejection.index)"
                    try insertBatch(db, key: held, createdMillis: row["created_ms"], fixIDs: [ids[rejection.index]], seq: row["seq"])
                    try db.execute(sql: "UPDATE upload_batches SET state = 'quarantined', reason = ? WHERE key = ?",
                                   arguments: ["rejected by the server: \(rejection.reason)", held])
                }
            }
            try db.execute(sql: "DELETE FROM fixes WHERE batch_key = ?", arguments: [key])
            let removed = db.changesCount
            try db.execute(sql: "UPDATE gaps SET uploaded = 1, batch_key = NULL WHERE batch_key = ?", arguments: [key])
            try db.execute(sql: "UPDATE fence_events SET uploaded = 1, batch_key = NULL WHERE batch_key = ?", arguments: [key])
            try db.execute(sql: "DELETE FROM upload_batches WHERE key = ?", arguments: [key])
            return removed
        }
    }

    /// Replaces a batch of two or more fixes by two halves with their own keys (`key.a`, `key.b`),
    /// which take its place in the sending order. Returns the halves, or nil when the batch has
    /// fewer than two fixes or no longer exists.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the write fails.
    @discardableResult
    public func split(batch key: String) throws -> [UploadBacklog.Batch]? {
        try write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT seq, created_ms FROM upload_batches WHERE key = ?",
                                             arguments: [key]) else { return nil }
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM fixes WHERE batch_key = ? ORDER BY timestamp_ms, id",
                                         arguments: [key])
            guard ids.count >= 2 else { return nil }
            let half = ids.count / 2
            let parts = [(key + ".a", Array(ids[..<half])), (key + ".b", Array(ids[half...]))]
            let seq: Int64 = row["seq"]
            let gapIDs = try Int64.fetchAll(db, sql: "SELECT id FROM gaps WHERE batch_key = ?", arguments: [key])
            let eventIDs = try Int64.fetchAll(db, sql: "SELECT id FROM fence_events WHERE batch_key = ?", arguments: [key])
            try db.execute(sql: "UPDATE fixes SET batch_key = NULL WHERE batch_key = ?", arguments: [key])
            try db.execute(sql: "DELETE FROM upload_batches WHERE key = ?", arguments: [key])
            for part in parts {
                try insertBatch(db, key: part.0, createdMillis: row["created_ms"], fixIDs: part.1, seq: seq)
            }
            // Gap markers and geofence events travel with the first half.
            try assign(db, table: "gaps", gapIDs, to: parts[0].0)
            try assign(db, table: "fence_events", eventIDs, to: parts[0].0)
            return parts.map { UploadBacklog.Batch(key: $0.0, points: $0.1.count) }
        }
    }

    /// Sets a batch aside with the server's reason; it is not sent again until ``requeue(batch:)``.
    ///
    /// - throws: ``SyncError`` `.notFound` for an unknown batch, `.storage` when the write fails.
    public func quarantine(batch key: String, reason: String) throws {
        try setState(of: key, to: .quarantined, reason: reason)
    }

    /// Makes a quarantined batch pending again (after the server or the data was fixed).
    ///
    /// - throws: ``SyncError`` `.notFound` for an unknown batch, `.storage` when the write fails.
    public func requeue(batch key: String) throws {
        try setState(of: key, to: .pending, reason: nil)
    }

    /// Deletes a batch and its fixes without upload (the user gave up on them).
    ///
    /// - throws: ``SyncError`` with code `.storage` when the write fails.
    public func discard(batch key: String) throws {
        try acknowledge(batch: key)
    }

    /// Quarantined batches with their fixes and reasons, oldest first.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails.
    public func quarantinedBatches() throws -> [UploadBatch] {
        let keys = try read { db in
            try String.fetchAll(db, sql: "SELECT key FROM upload_batches WHERE state = 'quarantined' ORDER BY seq, key")
        }
        return try keys.compactMap { try batch($0) }
    }

    private func setState(of key: String, to state: UploadBatch.State, reason: String?) throws {
        try write { db in
            try db.execute(sql: "UPDATE upload_batches SET state = ?, reason = ? WHERE key = ?",
                           arguments: [state.rawValue, reason, key])
            guard db.changesCount > 0 else { throw SyncError(.notFound, "no upload batch \(key) in the store") }
        }
    }

    private func insertBatch(_ db: Database, key: String, createdMillis: Int64, fixIDs: [Int64], seq: Int64? = nil) throws {
        let order = try seq ?? ((Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM upload_batches") ?? 0) + 1)
        try db.execute(sql: "INSERT INTO upload_batches (key, seq, created_ms, point_count) VALUES (?, ?, ?, ?)",
                       arguments: [key, order, createdMillis, fixIDs.count])
        let update = try db.cachedStatement(sql: "UPDATE fixes SET batch_key = ? WHERE id = ?")
        for id in fixIDs { try update.execute(arguments: [key, id]) }
    }

    /// Puts rows of `table` (gap markers or geofence events) into the batch `key`.
    private func assign(_ db: Database, table: String, _ ids: [Int64], to key: String) throws {
        guard !ids.isEmpty else { return }
        try db.execute(sql: "UPDATE \(table) SET batch_key = ? WHERE id IN (\(ids.map(String.init).joined(separator: ",")))",
                       arguments: [key])
    }
}
