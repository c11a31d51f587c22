import Foundation
import GRDB
import WaymarkGeo

extension SQLiteStore {
    /// Commits one request in one transaction; see ``Store/ingest(_:)``.
    public func ingest(_ write: IngestWrite) async throws -> IngestOutcome {
        try await storageErrors {
            try await pool.write { db in
                let received = write.receivedAt.millisecondsSince1970
                if let key = write.idempotencyKey {
                    if let row = try Row.fetchOne(
                        db, sql: "SELECT stored, duplicates FROM ingest_batches WHERE device_id = ? AND idem_key = ?",
                        arguments: [write.deviceID, key]) {
                        return IngestOutcome(stored: row["stored"], duplicates: row["duplicates"], replayed: true)
                    }
                }
                var state = try Self.fenceState(db, deviceID: write.deviceID)
                let insert = try db.cachedStatement(sql: """
                    INSERT INTO positions (device_id, ts, lat, lon, alt, h_acc, v_acc, speed, course,
                                           battery, charging, activity, source, received_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (device_id, ts) DO NOTHING
                    """)
                var newlyStored: [Position] = []
                newlyStored.reserveCapacity(write.positions.count)
                for p in write.positions {
                    let f = p.fix
                    try insert.execute(arguments: [
                        write.deviceID, p.timestampMillis, f.coordinate.latitude, f.coordinate.longitude,
                        f.altitude, f.horizontalAccuracy, f.verticalAccuracy, f.speed, f.course,
                        p.batteryLevel, p.isCharging, p.activity, f.source.rawValue, received,
                    ])
                    if db.changesCount > 0 { newlyStored.append(p) }
                }
                let stored = newlyStored.count
                let engine = try fenceEngine(db)
                let events = engine.evaluate(newlyStored, state: &state)
                state.prune(to: engine)
                try Self.saveFenceState(db, deviceID: write.deviceID, state: state)
                let records = try Self.insertEvents(db, events, receivedMillis: received)
                try Self.queueDeliveries(db, records, nowMillis: received)
                let outcome = IngestOutcome(stored: stored, duplicates: write.positions.count - stored, replayed: false,
                                            events: records)
                if let key = write.idempotencyKey {
                    try db.execute(sql: """
                        INSERT INTO ingest_batches (device_id, idem_key, received_ms, stored, duplicates)
                        VALUES (?, ?, ?, ?, ?)
                        """, arguments: [write.deviceID, key, received, outcome.stored, outcome.duplicates])
                }
                return outcome
            }
        }
    }

    /// The device's latest position; see ``Store/lastPosition(deviceID:)``.
    public func lastPosition(deviceID: String) async throws -> Position? {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM positions WHERE device_id = ? ORDER BY ts DESC LIMIT 1",
                                 arguments: [deviceID]).map(Self.position(from:))
            }
        }
    }

    /// One page of positions by key; see ``Store/positions(_:)``.
    public func positions(_ query: PositionQuery) async throws -> [Position] {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT * FROM positions WHERE device_id = ? AND ts > ? AND ts < ? ORDER BY ts LIMIT ?
                    """, arguments: [query.deviceID, query.lowerExclusiveMillis, query.upperExclusiveMillis, query.limit])
                    .map(Self.position(from:))
            }
        }
    }

    static func position(from row: Row) -> Position {
        let coordinate = Coordinate(uncheckedLatitude: row["lat"], longitude: row["lon"])
        let fix = Fix(coordinate: coordinate, altitude: row["alt"], horizontalAccuracy: row["h_acc"],
                      verticalAccuracy: row["v_acc"], speed: row["speed"], course: row["course"],
                      timestamp: Date(millisecondsSince1970: row["ts"]),
                      source: Fix.Source(rawValue: row["source"]) ?? .unknown)
        return Position(deviceID: row["device_id"], fix: fix, batteryLevel: row["battery"],
                        isCharging: row["charging"], activity: row["activity"])
    }
}
