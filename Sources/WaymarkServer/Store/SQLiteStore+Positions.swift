import Foundation
import GRDB
import GRDBSQLite
import WaymarkGeo

extension SQLiteStore {
    /// Writes one request inside the group's transaction (the caller's savepoint): the device check, the
    /// idempotency key, positions, fence evaluation, events, webhook deliveries and gap markers.
    func ingestOne(_ db: Database, _ write: IngestWrite) throws -> IngestOutcome {
        let received = write.receivedAt.millisecondsSince1970
        try Self.requireActiveDevice(db, id: write.deviceID)
        if let key = write.idempotencyKey {
            if let row = try Row.fetchOne(db.cachedStatement(
                sql: "SELECT stored, duplicates, request_digest FROM ingest_batches WHERE device_id = ? AND idem_key = ?"),
                arguments: [write.deviceID, key]) {
                try IngestWrite.checkReplay(key: key, stored: row["request_digest"], requested: write.requestDigest)
                return IngestOutcome(stored: row["stored"], duplicates: row["duplicates"], replayed: true)
            }
        }
        let engine = try fenceEngine(db)
        var events: [ServerFenceEvent] = []
        let newlyStored: [Position]
        if engine.fences.isEmpty {
            // No fence: no event and no state. A saved state is dropped, so the first request after fences are
            // added seeds from the last stored position, which is what the saved state would say.
            newlyStored = try Self.insertPositions(db, write.positions, deviceID: write.deviceID, receivedMillis: received)
            try db.cachedStatement(sql: "DELETE FROM fence_states WHERE device_id = ?").execute(arguments: [write.deviceID])
        } else {
            var state = try Self.fenceState(db, deviceID: write.deviceID)
            newlyStored = try Self.insertPositions(db, write.positions, deviceID: write.deviceID, receivedMillis: received)
            events = try engine.evaluate(newlyStored, state: &state, limits: write.fenceEventLimits)
            state.prune(to: engine)
            try Self.saveFenceState(db, deviceID: write.deviceID, state: state)
        }
        let stored = newlyStored.count
        let records = try Self.insertEvents(db, events, receivedMillis: received)
        try Self.queueDeliveries(db, records, nowMillis: received)
        let gapsStored = try Self.insertGaps(db, write.gaps, receivedMillis: received)
        var outcome = IngestOutcome(stored: stored, duplicates: write.positions.count - stored, replayed: false,
                                    events: records, gapsStored: gapsStored)
        outcome.newDeviceEvents = try Self.insertDeviceEvents(db, write.deviceEvents, deviceID: write.deviceID, nowMillis: received)
        outcome.deviceEventsStored = outcome.newDeviceEvents.count
        outcome.newPositions = newlyStored
        if let key = write.idempotencyKey {
            try db.cachedStatement(sql: """
                INSERT INTO ingest_batches (device_id, idem_key, received_ms, stored, duplicates, request_digest)
                VALUES (?, ?, ?, ?, ?, ?)
                """).execute(arguments: [write.deviceID, key, received, outcome.stored, outcome.duplicates, write.requestDigest])
        }
        return outcome
    }

    /// Throws 401 when the device does not exist or is revoked: a token cached before a revocation
    /// (``DeviceTokenCache``) stores nothing.
    static func requireActiveDevice(_ db: Database, id: String) throws {
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT revoked_ms FROM devices WHERE id = ?"), arguments: [id])
        guard let row, row["revoked_ms"] as Int64? == nil else {
            throw ServerError(.unauthorized, "the device token is unknown or revoked")
        }
    }

    /// Inserts positions with one prepared statement bound through the SQLite C API (GRDB's
    /// `StatementArguments` boxes every value, which costs more than SQLite's own insert);
    /// returns the positions that were new (not absorbed as duplicates).
    static func insertPositions(_ db: Database, _ positions: [Position], deviceID: String,
                                receivedMillis: Int64) throws -> [Position] {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO positions (device_id, ts, lat, lon, alt, h_acc, v_acc, speed, course,
                                   battery, charging, activity, source, received_ms, flags)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (device_id, ts) DO NOTHING
            """)
        let s = statement.sqliteStatement
        let connection = db.sqliteConnection
        defer {
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
        }
        func text(_ index: Int32, _ value: String?) {
            guard let value else { sqlite3_bind_null(s, index); return }
            _ = value.withCString { sqlite3_bind_text(s, index, $0, -1, transientDestructor) }
        }
        func double(_ index: Int32, _ value: Double?) {
            if let value { sqlite3_bind_double(s, index, value) } else { sqlite3_bind_null(s, index) }
        }
        text(1, deviceID)
        sqlite3_bind_int64(s, 14, receivedMillis)
        var newlyStored: [Position] = []
        newlyStored.reserveCapacity(positions.count)
        for p in positions {
            let f = p.fix
            sqlite3_bind_int64(s, 2, p.timestampMillis)
            sqlite3_bind_double(s, 3, f.coordinate.latitude)
            sqlite3_bind_double(s, 4, f.coordinate.longitude)
            double(5, f.altitude)
            double(6, f.horizontalAccuracy)
            double(7, f.verticalAccuracy)
            double(8, f.speed)
            double(9, f.course)
            double(10, p.batteryLevel)
            if let charging = p.isCharging { sqlite3_bind_int(s, 11, charging ? 1 : 0) } else { sqlite3_bind_null(s, 11) }
            text(12, p.activity)
            text(13, f.source.rawValue)
            sqlite3_bind_int(s, 15, Int32(f.packedFlags))
            let code = sqlite3_step(s)
            guard code == SQLITE_DONE else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)),
                                    sql: statement.sql)
            }
            if sqlite3_changes(connection) > 0 { newlyStored.append(p) }
            sqlite3_reset(s)
        }
        return newlyStored
    }

    /// Inserts gap markers, absorbing ones already stored (same device, start and end); returns how many were new.
    static func insertGaps(_ db: Database, _ gaps: [PositionGap], receivedMillis: Int64) throws -> Int {
        guard !gaps.isEmpty else { return 0 }
        let statement = try db.cachedStatement(sql: """
            INSERT INTO gaps (device_id, start_ms, end_ms, reason, ride_id, received_ms) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (device_id, start_ms, end_ms) DO NOTHING
            """)
        var stored = 0
        for gap in gaps {
            try statement.execute(arguments: [gap.deviceID, gap.start.millisecondsSince1970, gap.end.millisecondsSince1970,
                                              gap.reason, gap.rideID, receivedMillis])
            stored += db.changesCount
        }
        return stored
    }

    /// Inserts device events, absorbing copies already stored; returns how many were new.
    static func insertDeviceEvents(_ db: Database, _ events: [DeviceEventRecord], deviceID: String,
                                   nowMillis: Int64) throws -> [DeviceEventRecord] {
        guard !events.isEmpty else { return [] }
        let statement = try db.cachedStatement(sql: """
            INSERT INTO device_events (device_id, kind, ts_ms, received_ms, detail, digest) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (device_id, digest) DO NOTHING
            """)
        var stored: [DeviceEventRecord] = []
        for event in events {
            try statement.execute(arguments: [deviceID, event.kind, event.time?.millisecondsSince1970,
                                              event.receivedAt.millisecondsSince1970, event.detail, event.digest])
            guard db.changesCount > 0 else { continue }
            var record = event
            record.id = db.lastInsertedRowID
            record.deviceID = deviceID
            stored.append(record)
        }
        try queueDeliveries(db, deviceEvents: stored, nowMillis: nowMillis)
        return stored
    }

    /// A device's events after an id; see ``PositionStore/deviceEvents(deviceID:kind:afterID:limit:)``.
    public func deviceEvents(deviceID: String, kind: String?, afterID: Int64, limit: Int) async throws -> [DeviceEventRecord] {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT id, device_id, kind, ts_ms, received_ms, detail FROM device_events
                    WHERE device_id = ? AND id > ? \(kind == nil ? "" : "AND kind = ? ")ORDER BY id LIMIT ?
                    """, arguments: StatementArguments([deviceID, afterID] + (kind.map { [$0] } ?? []) + [max(1, limit)])).map { row in
                    DeviceEventRecord(id: row[0], deviceID: row[1], kind: row[2],
                                time: (row[3] as Int64?).map(Date.init(millisecondsSince1970:)),
                                receivedAt: Date(millisecondsSince1970: row[4]), detail: row[5])
                }
            }
        }
    }

    /// Retention; see ``PositionStore/deleteHistory(before:limit:)``. Positions go per device, through the
    /// (device, time) key, `limit` rows per write transaction.
    public func deleteHistory(before date: Date, limit: Int) async throws -> Int {
        let cutoff = date.millisecondsSince1970, batch = max(1, limit)
        return try await storageErrors {
            let devices = try await pool.read { db in try String.fetchAll(db, sql: "SELECT id FROM devices ORDER BY id") }
            var removed = 0
            for device in devices where removed < batch {
                let room = batch - removed
                removed += try await pool.write { db in
                    try db.execute(sql: """
                        DELETE FROM positions WHERE device_id = ? AND ts IN
                            (SELECT ts FROM positions WHERE device_id = ? AND ts < ? ORDER BY ts LIMIT ?)
                        """, arguments: [device, device, cutoff, room])
                    return db.changesCount
                }
            }
            removed += try await pool.write { db in
                try db.execute(sql: """
                    DELETE FROM gaps WHERE (device_id, start_ms, end_ms) IN
                        (SELECT device_id, start_ms, end_ms FROM gaps WHERE end_ms < ? LIMIT ?)
                    """, arguments: [cutoff, batch])
                var count = db.changesCount
                try db.execute(sql: "DELETE FROM device_events WHERE id IN (SELECT id FROM device_events WHERE received_ms < ? LIMIT ?)",
                               arguments: [cutoff, batch])
                count += db.changesCount
                return count
            }
            return removed
        }
    }

    /// Forgets old idempotency keys; see ``PositionStore/pruneIdempotencyKeys(receivedBefore:)``.
    public func pruneIdempotencyKeys(receivedBefore date: Date) async throws -> Int {
        try await storageErrors {
            try await pool.write { db in
                try db.execute(sql: "DELETE FROM ingest_batches WHERE received_ms < ?", arguments: [date.millisecondsSince1970])
                return db.changesCount
            }
        }
    }

    /// Gap markers by start time; see ``PositionStore/gaps(_:)``.
    public func gaps(_ query: GapQuery) async throws -> [PositionGap] {
        let after = query.after ?? GapQuery.Cursor(startMillis: Int64.min, endMillis: Int64.min)
        return try await storageErrors {
            try await pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT device_id, ride_id, start_ms, end_ms, reason FROM gaps
                    WHERE device_id = ? AND start_ms > ? AND start_ms < ? AND (start_ms, end_ms) > (?, ?)
                    ORDER BY start_ms, end_ms LIMIT ?
                    """, arguments: [query.deviceID, query.range.lowerExclusiveMillis, query.range.upperExclusiveMillis,
                                     after.startMillis, after.endMillis, query.limit])
                    .map { row in
                        PositionGap(deviceID: row[0], rideID: row[1], start: Date(millisecondsSince1970: row[2]),
                                    end: Date(millisecondsSince1970: row[3]), reason: row[4])
                    }
            }
        }
    }

    /// The device's latest position; see ``PositionStore/lastPosition(deviceID:)``.
    public func lastPosition(deviceID: String) async throws -> Position? {
        try await storageErrors {
            try await pool.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM positions WHERE device_id = ? ORDER BY ts DESC LIMIT 1",
                                 arguments: [deviceID]).map(Self.position(from:))
            }
        }
    }

    /// Every device's latest position; see ``PositionStore/lastPositions()``. One key seek per device, in one query.
    public func lastPositions() async throws -> [String: Position] {
        try await storageErrors {
            try await pool.read { db in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT p.* FROM devices d JOIN positions p
                    ON p.device_id = d.id AND p.ts = (SELECT max(ts) FROM positions WHERE device_id = d.id)
                    """)
                return Dictionary(rows.map { row in let p = Self.position(from: row); return (p.deviceID, p) }) { first, _ in first }
            }
        }
    }

    /// One page of positions by key; see ``PositionStore/positions(_:)``.
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
        var fix = Fix(coordinate: coordinate, altitude: row["alt"], horizontalAccuracy: row["h_acc"],
                      verticalAccuracy: row["v_acc"], speed: row["speed"], course: row["course"],
                      timestamp: Date(millisecondsSince1970: row["ts"]),
                      source: Fix.Source(rawValue: row["source"]) ?? .unknown)
        fix.packedFlags = row["flags"]
        return Position(deviceID: row["device_id"], fix: fix, batteryLevel: row["battery"],
                        isCharging: row["charging"], activity: row["activity"])
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bound text before the call returns.
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
