import Foundation
import GRDB
import WaymarkGeo

extension RideStore {
    /// Starts a ride and stores it; committed when this returns.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the write fails.
    @discardableResult
    public func startRide(id: RideID = RideID(), at started: Date, state: String = "moving",
                          policy: String? = nil) throws -> RideRecord {
        let ride = RideRecord(id: id, started: started, state: state, policy: policy)
        try write { db in
            try db.execute(sql: "INSERT INTO rides (id, started_ms, state, policy) VALUES (?, ?, ?, ?)",
                           arguments: [id.rawValue, StoreTime.millis(started), state, policy])
        }
        return ride
    }

    /// Updates a ride's state, policy or end; nil arguments leave the field as it is.
    ///
    /// - throws: ``SyncError`` `.notFound` for an unknown ride, `.storage` when the write fails.
    public func updateRide(_ id: RideID, state: String? = nil, policy: String? = nil, ended: Date? = nil) throws {
        try write { db in
            try db.execute(sql: """
                UPDATE rides SET state = COALESCE(?, state), policy = COALESCE(?, policy),
                                 ended_ms = COALESCE(?, ended_ms) WHERE id = ?
                """, arguments: [state, policy, ended.map(StoreTime.millis), id.rawValue])
            guard db.changesCount > 0 else { throw SyncError(.notFound, "no ride \(id) in the store") }
        }
    }

    /// The ride with this id, or nil.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails.
    public func ride(_ id: RideID) throws -> RideRecord? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM rides WHERE id = ?", arguments: [id.rawValue]).map(Self.ride(from:))
        }
    }

    /// All rides, oldest first.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails.
    public func rides() throws -> [RideRecord] {
        try read { db in try Row.fetchAll(db, sql: "SELECT * FROM rides ORDER BY started_ms").map(Self.ride(from:)) }
    }

    /// Appends recorded fixes to a ride in one transaction, committed when this returns.
    ///
    /// A fix whose millisecond timestamp the ride already has is skipped (a replayed delivery).
    /// Returns the number of fixes actually added.
    ///
    /// - throws: ``SyncError`` `.notFound` for an unknown ride, `.storage` when the write fails
    ///   (then nothing of the call was stored).
    @discardableResult
    public func append(_ fixes: [Fix], to ride: RideID) throws -> Int {
        let format = NativeBatchFormat()
        let sizes = fixes.map(format.featureBytes)
        return try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM rides WHERE id = ?", arguments: [ride.rawValue]) == true else {
                throw SyncError(.notFound, "no ride \(ride) in the store; start it before appending fixes")
            }
            let statement = try db.cachedStatement(sql: """
                INSERT OR IGNORE INTO fixes (ride_id, timestamp_ms, latitude, longitude, altitude,
                    horizontal_accuracy, vertical_accuracy, speed, course, source, payload_bytes, flags)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            var added = 0
            for (fix, size) in zip(fixes, sizes) {
                try statement.execute(arguments: [
                    ride.rawValue, StoreTime.millis(fix.timestamp), fix.coordinate.latitude, fix.coordinate.longitude,
                    fix.altitude, fix.horizontalAccuracy, fix.verticalAccuracy, fix.speed, fix.course,
                    fix.source.rawValue, size, fix.packedFlags,
                ])
                added += db.changesCount
            }
            return added
        }
    }

    /// Stores a gap marker; committed when this returns.
    ///
    /// - throws: ``SyncError`` `.notFound` for an unknown ride, `.storage` when the write fails.
    public func recordGap(_ gap: GapRecord) throws {
        try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM rides WHERE id = ?", arguments: [gap.ride.rawValue]) == true else {
                throw SyncError(.notFound, "no ride \(gap.ride) in the store; start it before recording gaps")
            }
            try db.execute(sql: "INSERT INTO gaps (ride_id, start_ms, end_ms, reason) VALUES (?, ?, ?, ?)",
                           arguments: [gap.ride.rawValue, StoreTime.millis(gap.start), StoreTime.millis(gap.end), gap.reason])
        }
    }

    /// The ride's gap markers, oldest first.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails.
    public func gaps(of ride: RideID) throws -> [GapRecord] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM gaps WHERE ride_id = ? ORDER BY start_ms", arguments: [ride.rawValue])
                .map(Self.gap(from:))
        }
    }

    /// Gap markers of all rides that the server has not acknowledged yet, oldest first.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails.
    public func gapsAwaitingUpload() throws -> [GapRecord] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM gaps WHERE uploaded = 0 ORDER BY start_ms, id").map(Self.gap(from:))
        }
    }

    static func gap(from row: Row) -> GapRecord {
        GapRecord(ride: RideID(row["ride_id"] as String), start: StoreTime.date(row["start_ms"]),
                  end: StoreTime.date(row["end_ms"]), reason: row["reason"])
    }

    /// The ride's fixes still on the device (not yet acknowledged by the server), oldest first.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails.
    public func fixes(of ride: RideID) throws -> [Fix] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.fixColumns) FROM fixes WHERE ride_id = ? ORDER BY timestamp_ms",
                             arguments: [ride.rawValue]).map(Self.fix(from:))
        }
    }

    /// Number of fixes on the device (all rides), acknowledged ones excluded since they are deleted.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails.
    public func fixCount() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM fixes") ?? 0 }
    }

    static func ride(from row: Row) -> RideRecord {
        RideRecord(id: RideID(row["id"] as String), started: StoreTime.date(row["started_ms"]),
                   ended: (row["ended_ms"] as Int64?).map(StoreTime.date), state: row["state"], policy: row["policy"])
    }

    /// The columns ``fix(from:)`` reads, in order (positional access is much faster than by name).
    static let fixColumns = """
        timestamp_ms, latitude, longitude, altitude, horizontal_accuracy, vertical_accuracy, speed, course, source, flags
        """

    /// A fix from a row selecting ``fixColumns``.
    static func fix(from row: Row) -> Fix {
        // Coordinates were validated as `Coordinate`s before they were stored.
        let coordinate = Coordinate(uncheckedLatitude: row[1], longitude: row[2])
        var fix = Fix(coordinate: coordinate, altitude: row[3], horizontalAccuracy: row[4], verticalAccuracy: row[5],
                      speed: row[6], course: row[7], timestamp: StoreTime.date(row[0]),
                      source: Fix.Source(rawValue: row[8]) ?? .unknown)
        fix.packedFlags = row[9]
        return fix
    }
}
