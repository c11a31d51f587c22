import Foundation
import GRDB
import WaymarkEngine
import WaymarkGeo

extension RideStore {
    /// Stores the engine's checkpoint of a ride: creates the ride's row the first time, then keeps
    /// its state, its end and the snapshot to restore it from.
    ///
    /// - throws: ``SyncError`` (`.storage`) when the store cannot be written.
    public func saveCheckpoint(_ snapshot: RideSnapshot) throws {
        let json: String
        do {
            json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        } catch {
            throw SyncError(.storage, "cannot encode the checkpoint of ride \(snapshot.rideID): \(error)")
        }
        let ended: Int64? = snapshot.state == .ended ? StoreTime.millis(snapshot.lastRecorded?.timestamp ?? snapshot.startedAt) : nil
        try write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO rides (id, started_ms, state) VALUES (?, ?, ?)",
                           arguments: [snapshot.rideID.rawValue, StoreTime.millis(snapshot.startedAt), snapshot.state.rawValue])
            try db.execute(sql: """
                UPDATE rides SET state = ?, checkpoint = ?, ended_ms = COALESCE(ended_ms, ?) WHERE id = ?
                """, arguments: [snapshot.state.rawValue, json, ended, snapshot.rideID.rawValue])
        }
    }

    /// The checkpoint of the ride still under way (the latest-started ride whose checkpoint is
    /// moving or paused), or nil: what a relaunched app passes to `Engine(device:…, ride:)`.
    ///
    /// The latest checkpoint of an automatic ride that ended is returned too when it holds the
    /// resting place (`RideSnapshot.startedAutomatically` with a `stopAnchor`): automatic tracking
    /// watches for the next departure from there after a relaunch, instead of looking for the place
    /// again.
    ///
    /// - throws: ``SyncError`` (`.storage`) when the store cannot be read or the checkpoint is damaged.
    public func lastCheckpoint() throws -> RideSnapshot? {
        guard let json = try read({ db in
            try String.fetchOne(db, sql: """
                SELECT checkpoint FROM rides WHERE checkpoint IS NOT NULL ORDER BY started_ms DESC, rowid DESC LIMIT 1
                """)
        }) else { return nil }
        let snapshot: RideSnapshot
        do {
            snapshot = try JSONDecoder().decode(RideSnapshot.self, from: Data(json.utf8))
        } catch {
            throw SyncError(.storage, "the stored ride checkpoint cannot be read: \(error)")
        }
        if snapshot.state.isActive { return snapshot }
        return snapshot.startedAutomatically && snapshot.stopAnchor != nil ? snapshot : nil
    }
}
