import Foundation
import GRDB
import WaymarkGeo

extension SQLiteStore {
    /// Adds or replaces fences; see ``FenceStore/upsertFences(_:at:)``.
    public func upsertFences(_ fences: [ServerFence], at date: Date) async throws {
        try ServerFence.checkAll(fences)
        try await storageErrors {
            try await pool.write { db in
                let statement = try db.makeStatement(sql: """
                    INSERT INTO fences (id, name, geometry, radius_m, dwell_s, created_ms) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET name = excluded.name, geometry = excluded.geometry,
                        radius_m = excluded.radius_m, dwell_s = excluded.dwell_s
                    """)
                for fence in fences {
                    var radius: Double?
                    if case .circle(_, let r) = fence.shape { radius = r }
                    try statement.execute(arguments: [fence.id, fence.name, FenceCodec.geometryText(fence.shape), radius,
                                                      fence.dwellSeconds, date.millisecondsSince1970])
                }
                try db.execute(sql: "UPDATE fence_generation SET generation = generation + 1")
            }
        }
    }

    /// Every fence; see ``FenceStore/listFences()``.
    public func listFences() async throws -> [ServerFence] {
        try await storageErrors { try await pool.read { db in try Self.loadFences(db) } }
    }

    /// One page of fences by id; see ``FenceStore/fences(after:limit:)``.
    public func fences(after afterID: String?, limit: Int) async throws -> [ServerFence] {
        // Every id has at least one byte, so "" sorts before all of them; `id > ?` is a range
        // scan of the primary key's index (SEARCH fences USING INDEX sqlite_autoindex_fences_1 (id>?)).
        try await storageErrors {
            try await pool.read { db in
                try Self.fences(db, sql: "SELECT id, name, geometry, radius_m, dwell_s FROM fences WHERE id > ? ORDER BY id LIMIT ?",
                                arguments: [afterID ?? "", max(1, limit)])
            }
        }
    }

    /// The fence set's version; see ``FenceStore/fenceGeneration()``.
    public func fenceGeneration() async throws -> Int64 {
        try await storageErrors {
            try await pool.read { db in try Int64.fetchOne(db, sql: "SELECT generation FROM fence_generation") ?? 0 }
        }
    }

    /// Deletes a fence; see ``FenceStore/deleteFence(id:)``.
    public func deleteFence(id: String) async throws -> Bool {
        try await storageErrors {
            try await pool.write { db in
                try db.execute(sql: "DELETE FROM fences WHERE id = ?", arguments: [id])
                guard db.changesCount > 0 else { return false }
                try db.execute(sql: "UPDATE fence_generation SET generation = generation + 1")
                return true
            }
        }
    }

    /// Stored events; see ``FenceStore/fenceEvents(deviceID:afterID:limit:)``.
    public func fenceEvents(deviceID: String?, afterID: Int64, limit: Int) async throws -> [FenceEventRecord] {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT * FROM fence_events WHERE id > ? AND (? IS NULL OR device_id = ?) ORDER BY id LIMIT ?
                    """, arguments: [afterID, deviceID, deviceID, max(1, limit)]).map(Self.eventRecord(from:))
            }
        }
    }

    static func loadFences(_ db: Database) throws -> [ServerFence] {
        try fences(db, sql: "SELECT id, name, geometry, radius_m, dwell_s FROM fences ORDER BY id")
    }

    /// The fences a `SELECT id, name, geometry, radius_m, dwell_s` query returns, in its order.
    static func fences(_ db: Database, sql: String, arguments: StatementArguments = StatementArguments()) throws -> [ServerFence] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            try FenceCodec.fence(id: row["id"], name: row["name"], geometryText: row["geometry"],
                                 radiusMeters: row["radius_m"], dwellSeconds: row["dwell_s"])
        }
    }

    /// The engine for the fences committed now (rebuilt only when the generation moved).
    func fenceEngine(_ db: Database) throws -> FenceEngine {
        let generation = try Int64.fetchOne(db.cachedStatement(sql: "SELECT generation FROM fence_generation")) ?? 0
        return try fenceCache.engine(generation: generation) { try Self.loadFences(db) }
    }

    /// The device's fence state, seeded from its last stored position when none was saved yet.
    static func fenceState(_ db: Database, deviceID: String) throws -> DeviceFenceState {
        if let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM fence_states WHERE device_id = ?"),
                                      arguments: [deviceID]) {
            return DeviceFenceState(lastMillis: row["last_ts"], lastLatitude: row["last_lat"], lastLongitude: row["last_lon"],
                                    insideText: row["inside"], dwelledText: row["dwelled"])
        }
        var state = DeviceFenceState()
        let last = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM positions WHERE device_id = ? ORDER BY ts DESC LIMIT 1"),
                                    arguments: [deviceID]).map(position(from:))
        state.seed(from: last)
        return state
    }

    static func saveFenceState(_ db: Database, deviceID: String, state: DeviceFenceState) throws {
        try db.cachedStatement(sql: """
            INSERT INTO fence_states (device_id, last_ts, last_lat, last_lon, inside, dwelled) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (device_id) DO UPDATE SET last_ts = excluded.last_ts, last_lat = excluded.last_lat,
                last_lon = excluded.last_lon, inside = excluded.inside, dwelled = excluded.dwelled
            """).execute(arguments: [deviceID, state.lastTimestamp?.millisecondsSince1970, state.lastCoordinate?.latitude,
                             state.lastCoordinate?.longitude, state.insideText, state.dwelledText])
    }

    static func insertEvents(_ db: Database, _ events: [ServerFenceEvent], receivedMillis: Int64) throws -> [FenceEventRecord] {
        guard !events.isEmpty else { return [] }
        let statement = try db.cachedStatement(sql: """
            INSERT INTO fence_events (device_id, fence_id, kind, ts, lat, lon, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        return try events.map { e in
            var e = e
            e.timestamp = Date(millisecondsSince1970: e.timestamp.millisecondsSince1970)
            try statement.execute(arguments: [e.deviceID, e.fenceID, e.kind.rawValue, e.timestamp.millisecondsSince1970,
                                              e.coordinate.latitude, e.coordinate.longitude, receivedMillis])
            return FenceEventRecord(id: db.lastInsertedRowID, event: e)
        }
    }

    static func eventRecord(from row: Row) -> FenceEventRecord {
        FenceEventRecord(id: row["id"], event: ServerFenceEvent(
            deviceID: row["device_id"], fenceID: row["fence_id"],
            kind: ServerFenceEvent.Kind(rawValue: row["kind"]) ?? .enter,
            timestamp: Date(millisecondsSince1970: row["ts"]),
            coordinate: Coordinate(uncheckedLatitude: row["lat"], longitude: row["lon"])))
    }
}
