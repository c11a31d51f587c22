import Foundation
import PostgresNIO
import WaymarkGeo

extension PostgresStore {
    /// Commits one request in a transaction of its own: a request with an idempotency key, and each
    /// request of a group whose transaction failed (`PostgresStore+GroupCommit.swift`).
    func ingestAlone(_ write: IngestWrite) async throws -> IngestOutcome {
        let received = write.receivedAt.millisecondsSince1970
        return try await storageErrors { try await retryingConflicts {
            try await client.withTransaction(logger: logger) { connection in
                // A token cached before a revocation (DeviceTokenCache) stores nothing.
                try await requireActiveDevice(connection, id: write.deviceID)
                if let key = write.idempotencyKey {
                    // A concurrent request with the same key blocks here until the first commits.
                    let claimed = try await connection.query("""
                        INSERT INTO ingest_batches (device_id, idem_key, received_ms, stored, duplicates, request_digest)
                        VALUES (\(write.deviceID), \(key), \(received), 0, 0, \(write.requestDigest))
                        ON CONFLICT (device_id, idem_key) DO NOTHING RETURNING 1
                        """, logger: logger).collect()
                    if claimed.isEmpty {
                        let row = try await connection.query("""
                            SELECT stored, duplicates, request_digest FROM ingest_batches
                            WHERE device_id = \(write.deviceID) AND idem_key = \(key)
                            """, logger: logger).collect().first
                        let (stored, duplicates, digest) = try row?.decode((Int, Int, String?).self) ?? (0, 0, nil)
                        try IngestWrite.checkReplay(key: key, stored: digest, requested: write.requestDigest)
                        return IngestOutcome(stored: stored, duplicates: duplicates, replayed: true)
                    }
                }
                let engine = try await fenceEngine(connection)
                // No fence: no event and no state. A saved state is dropped, so the first request after fences are
                // added seeds from the last stored position (as after a gap in the fences, the device may have moved).
                var state = DeviceFenceState()
                if engine.fences.isEmpty {
                    forgetFenceStates([write.deviceID])
                    try await connection.query("DELETE FROM fence_states WHERE device_id = \(write.deviceID)", logger: logger)
                } else {
                    state = try await lockFenceState(connection, deviceID: write.deviceID)
                }
                var newlyStored: [Position] = []
                // Points of days that have ended may be in chunks already (PostgresStore+Chunks.swift).
                var candidates = write.positions
                let today = Self.dayStart(Date().millisecondsSince1970)
                if candidates.contains(where: { $0.timestampMillis < today }) {
                    candidates = try await withoutCompacted(connection, deviceID: write.deviceID, candidates, before: today)
                }
                if !candidates.isEmpty {
                    // Rows go in timestamp order (a stable sort, so the first of two equal timestamps still
                    // wins): concurrent uploads of the same points then take the unique index's locks in one
                    // order and cannot deadlock, whatever order each client sent them in.
                    candidates.sort { $0.timestampMillis < $1.timestampMillis }
                    let columns = PositionColumns(candidates)
                    let rows = try await connection.query("""
                        INSERT INTO positions (device_id, \(unescaped: Self.insertedColumns), received_ms)
                        SELECT \(write.deviceID), \(unescaped: Self.insertedValues), \(received)
                        FROM unnest(\(columns.ts)::int8[], \(columns.lat)::float8[], \(columns.lon)::float8[],
                                    \(columns.alt)::float8[], \(columns.hAcc)::float8[], \(columns.vAcc)::float8[],
                                    \(columns.speed)::float8[], \(columns.course)::float8[], \(columns.battery)::float8[],
                                    \(columns.charging)::int2[], \(columns.activity)::text[], \(columns.source)::text[], \(columns.flags)::int2[])
                             WITH ORDINALITY AS t(\(unescaped: Self.insertedColumns), n)
                        ORDER BY t.n
                        ON CONFLICT (device_id, ts) DO NOTHING
                        RETURNING ts
                        """, logger: logger).collect()
                    var byMillis: [Int64: Position] = [:]
                    for p in candidates where byMillis[p.timestampMillis] == nil { byMillis[p.timestampMillis] = p }
                    for row in rows {
                        if let p = byMillis[try row.decode(Int64.self)] { newlyStored.append(p) }
                    }
                }
                let stored = newlyStored.count
                var events: [ServerFenceEvent] = []
                if !engine.fences.isEmpty {
                    let start = state, stored = newlyStored, limits = write.fenceEventLimits
                    (events, state) = try await Self.evaluating(points: stored.count) {
                        var state = start
                        let events = try engine.evaluate(stored, state: &state, limits: limits)
                        state.prune(to: engine)
                        return (events, state)
                    }
                    forgetFenceStates([write.deviceID])
                    try await saveFenceState(connection, deviceID: write.deviceID, state: state)
                }
                let gapsStored = try await insertGaps(connection, write.gaps, receivedMillis: received)
                let newDeviceEvents = try await insertDeviceEvents(connection, write.deviceEvents, deviceID: write.deviceID,
                                                                   nowMillis: received)
                if let key = write.idempotencyKey {
                    try await connection.query("""
                        UPDATE ingest_batches SET stored = \(stored), duplicates = \(write.positions.count - stored)
                        WHERE device_id = \(write.deviceID) AND idem_key = \(key)
                        """, logger: logger)
                }
                // Last, so the lock inside is held only until the commit right after.
                let records = try await insertEventsInCommitOrder(connection, events, receivedMillis: received)
                try await queueDeliveries(connection, records, nowMillis: received)
                var outcome = IngestOutcome(stored: stored, duplicates: write.positions.count - stored, replayed: false,
                                            events: records, gapsStored: gapsStored)
                outcome.deviceEventsStored = newDeviceEvents.count
                outcome.newDeviceEvents = newDeviceEvents
                outcome.newPositions = newlyStored
                return outcome
            }
        } }
    }

    /// The columns an insert fills from `PositionColumns`, as named in `unnest(…) AS t(…)`, and the values it
    /// stores from them (NaN, -1 and "" become NULL).
    static let insertedColumns = "ts, lat, lon, alt, h_acc, v_acc, speed, course, battery, charging, activity, source, flags"
    static let insertedValues = """
        t.ts, t.lat, t.lon, nullif(t.alt, 'NaN'), nullif(t.h_acc, 'NaN'), nullif(t.v_acc, 'NaN'), nullif(t.speed, 'NaN'),
        nullif(t.course, 'NaN'), nullif(t.battery, 'NaN'), CASE t.charging WHEN 1 THEN true WHEN 0 THEN false END,
        nullif(t.activity, ''), t.source, t.flags
        """

    /// Inserts `positions` of several devices (`devices` and `receivedMillis` element by element) in one statement,
    /// in the order given, absorbing each one whose device already has a point at that millisecond (an
    /// earlier one of the same statement included); returns the keys of the rows inserted. (A request committed
    /// alone inserts its points with its device id and time as single values instead.)
    func insertPositions(_ connection: PostgresConnection, devices: [String], _ positions: [Position],
                         receivedMillis: [Int64]) async throws -> [DeviceMillis] {
        let columns = PositionColumns(positions)
        return try await connection.query("""
            INSERT INTO positions (device_id, \(unescaped: Self.insertedColumns), received_ms)
            SELECT t.device_id, \(unescaped: Self.insertedValues), t.received_ms
            FROM unnest(\(devices)::text[], \(columns.ts)::int8[], \(columns.lat)::float8[], \(columns.lon)::float8[],
                        \(columns.alt)::float8[], \(columns.hAcc)::float8[], \(columns.vAcc)::float8[],
                        \(columns.speed)::float8[], \(columns.course)::float8[], \(columns.battery)::float8[],
                        \(columns.charging)::int2[], \(columns.activity)::text[], \(columns.source)::text[], \(columns.flags)::int2[],
                        \(receivedMillis)::int8[])
                 WITH ORDINALITY AS t(device_id, \(unescaped: Self.insertedColumns), received_ms, n)
            ORDER BY t.n
            ON CONFLICT (device_id, ts) DO NOTHING
            RETURNING device_id, ts
            """, logger: logger).collect().map { row in
                let (device, millis) = try row.decode((String, Int64).self)
                return DeviceMillis(device: device, millis: millis)
            }
    }

    /// Inserts gap markers in one statement, absorbing ones already stored (same device, start and end);
    /// returns how many were new.
    func insertGaps(_ connection: PostgresConnection, _ gaps: [PositionGap], receivedMillis: Int64) async throws -> Int {
        guard !gaps.isEmpty else { return 0 }
        // In key order, like the positions, so concurrent uploads of the same gaps cannot deadlock.
        let gaps = gaps.sorted { ($0.deviceID, $0.start, $0.end) < ($1.deviceID, $1.start, $1.end) }
        let devices = gaps.map(\.deviceID), starts = gaps.map(\.start.millisecondsSince1970)
        let ends = gaps.map(\.end.millisecondsSince1970), reasons = gaps.map(\.reason), rides = gaps.map { $0.rideID ?? "" }
        return try await connection.query("""
            INSERT INTO gaps (device_id, start_ms, end_ms, reason, ride_id, received_ms)
            SELECT g.device_id, g.start_ms, g.end_ms, g.reason, nullif(g.ride_id, ''), \(receivedMillis)
            FROM unnest(\(devices)::text[], \(starts)::int8[], \(ends)::int8[], \(reasons)::text[], \(rides)::text[])
                 WITH ORDINALITY AS g(device_id, start_ms, end_ms, reason, ride_id, n)
            ORDER BY g.n
            ON CONFLICT (device_id, start_ms, end_ms) DO NOTHING
            RETURNING 1
            """, logger: logger).collect().count
    }

    /// Inserts device events, absorbing copies already stored; returns how many were new.
    func insertDeviceEvents(_ connection: PostgresConnection, _ events: [DeviceEventRecord], deviceID: String,
                            nowMillis: Int64) async throws -> [DeviceEventRecord] {
        guard !events.isEmpty else { return [] }
        let kinds = events.map(\.kind), times = events.map { $0.time?.millisecondsSince1970 ?? Int64.min }
        let received = events.map(\.receivedAt.millisecondsSince1970), details = events.map(\.detail), digests = events.map(\.digest)
        let rows = try await connection.query("""
            INSERT INTO device_events (device_id, kind, ts_ms, received_ms, detail, digest)
            SELECT \(deviceID), e.kind, nullif(e.ts_ms, \(Int64.min)), e.received_ms, e.detail, e.digest
            FROM unnest(\(kinds)::text[], \(times)::int8[], \(received)::int8[], \(details)::text[], \(digests)::text[])
                 WITH ORDINALITY AS e(kind, ts_ms, received_ms, detail, digest, n)
            ORDER BY e.n
            ON CONFLICT (device_id, digest) DO NOTHING
            RETURNING id, digest
            """, logger: logger).collect()
        var byDigest: [String: DeviceEventRecord] = [:]
        for event in events where byDigest[event.digest] == nil { byDigest[event.digest] = event }
        var stored: [DeviceEventRecord] = []
        for row in rows {
            let (id, digest) = try row.decode((Int64, String).self)
            guard var record = byDigest[digest] else { continue }
            record.id = id
            record.deviceID = deviceID
            stored.append(record)
        }
        stored.sort { $0.id < $1.id }
        try await queueDeliveries(connection, deviceEvents: stored, nowMillis: nowMillis)
        return stored
    }

    /// A device's events after an id; see ``PositionStore/deviceEvents(deviceID:kind:afterID:limit:)``.
    public func deviceEvents(deviceID: String, kind: String?, afterID: Int64, limit: Int) async throws -> [DeviceEventRecord] {
        try await storageErrors {
            try await client.query("""
                SELECT id, device_id, kind, ts_ms, received_ms, detail FROM device_events
                WHERE device_id = \(deviceID) AND id > \(afterID) AND (\(kind)::text IS NULL OR kind = \(kind))
                ORDER BY id LIMIT \(max(1, limit))
                """, logger: logger).collect().map { row in
                let (id, device, kind, ts, received, detail) = try row.decode((Int64, String, String, Int64?, Int64, String).self)
                return DeviceEventRecord(id: id, deviceID: device, kind: kind, time: ts.map(Date.init(millisecondsSince1970:)),
                                   receivedAt: Date(millisecondsSince1970: received), detail: detail)
            }
        }
    }

    /// Forgets old idempotency keys; see ``PositionStore/pruneIdempotencyKeys(receivedBefore:)``.
    public func pruneIdempotencyKeys(receivedBefore date: Date) async throws -> Int {
        try await storageErrors {
            try await client.query("DELETE FROM ingest_batches WHERE received_ms < \(date.millisecondsSince1970) RETURNING 1",
                                   logger: logger).collect().count
        }
    }

    /// Gap markers by start time; see ``PositionStore/gaps(_:)``.
    public func gaps(_ query: GapQuery) async throws -> [PositionGap] {
        let after = query.after ?? GapQuery.Cursor(startMillis: Int64.min, endMillis: Int64.min)
        return try await storageErrors {
            try await client.query("""
                SELECT device_id, ride_id, start_ms, end_ms, reason FROM gaps
                WHERE device_id = \(query.deviceID) AND start_ms > \(query.range.lowerExclusiveMillis)
                  AND start_ms < \(query.range.upperExclusiveMillis)
                  AND (start_ms, end_ms) > (\(after.startMillis), \(after.endMillis))
                ORDER BY start_ms, end_ms LIMIT \(query.limit)
                """, logger: logger).collect().map { row in
                    let (device, ride, start, end, reason) = try row.decode((String, String?, Int64, Int64, String).self)
                    return PositionGap(deviceID: device, rideID: ride, start: Date(millisecondsSince1970: start),
                                       end: Date(millisecondsSince1970: end), reason: reason)
                }
        }
    }

    /// The device's latest position; see ``PositionStore/lastPosition(deviceID:)``.
    public func lastPosition(deviceID: String) async throws -> Position? {
        try await storageErrors {
            try await client.withConnection { connection in try await lastPosition(connection, deviceID: deviceID) }
        }
    }

    /// Every device's latest position; see ``PositionStore/lastPositions()``. Two queries of one index probe per device:
    /// `positions`, then the chunks.
    public func lastPositions() async throws -> [String: Position] {
        try await storageErrors {
            try await client.withConnection { connection in
                let rows = try await connection.query("""
                    SELECT \(unescaped: Self.positionColumns) FROM devices d CROSS JOIN LATERAL
                        (SELECT * FROM positions WHERE device_id = d.id ORDER BY ts DESC LIMIT 1) p
                    """, logger: logger).collect()
                var latest = Dictionary(try rows.map { row in let p = try Self.position(from: row); return (p.deviceID, p) }) { first, _ in first }
                for (device, cold) in try await lastChunkPositions(connection) where (latest[device]?.timestampMillis ?? .min) < cold.timestampMillis {
                    latest[device] = cold
                }
                return latest
            }
        }
    }

    /// One page of positions by key; see ``PositionStore/positions(_:)``.
    /// `positions` rows and chunks merged in time order.
    public func positions(_ query: PositionQuery) async throws -> [Position] {
        try await storageErrors {
            try await client.withConnection { connection in
                let hot = try await connection.query("""
                    SELECT \(unescaped: Self.positionColumns) FROM positions
                    WHERE device_id = \(query.deviceID) AND ts > \(query.lowerExclusiveMillis)
                      AND ts < \(query.upperExclusiveMillis)
                    ORDER BY ts LIMIT \(query.limit)
                    """, logger: logger).collect().map(Self.position(from:))
                // A full page of rows ends the page at its last row: later chunk points cannot be on it.
                let upper = hot.count == query.limit ? min(query.upperExclusiveMillis, hot[hot.count - 1].timestampMillis + 1)
                                                     : query.upperExclusiveMillis
                let cold = try await chunkPositions(connection, deviceID: query.deviceID, lower: query.lowerExclusiveMillis,
                                                    upper: upper, limit: query.limit)
                guard !cold.isEmpty else { return hot }
                guard !hot.isEmpty else { return cold }
                var byMillis = Dictionary(cold.map { ($0.timestampMillis, $0) }) { first, _ in first }
                for position in hot where byMillis[position.timestampMillis] == nil { byMillis[position.timestampMillis] = position }
                return Array(byMillis.keys.sorted().prefix(query.limit).map { byMillis[$0]! })
            }
        }
    }

    static let positionColumns =
        "device_id, ts, lat, lon, alt, h_acc, v_acc, speed, course, battery, charging, activity, source, flags"

    static func position(from row: PostgresRow) throws -> Position {
        let r = row.makeRandomAccess()
        var fix = Fix(
            coordinate: Coordinate(uncheckedLatitude: try r[2].decode(Double.self), longitude: try r[3].decode(Double.self)),
            altitude: try r[4].decode(Double?.self), horizontalAccuracy: try r[5].decode(Double?.self),
            verticalAccuracy: try r[6].decode(Double?.self), speed: try r[7].decode(Double?.self),
            course: try r[8].decode(Double?.self),
            timestamp: Date(millisecondsSince1970: try r[1].decode(Int64.self)),
            source: Fix.Source(rawValue: try r[12].decode(String.self)) ?? .unknown)
        fix.packedFlags = Int(try r[13].decode(Int16.self))
        return Position(deviceID: try r[0].decode(String.self), fix: fix, batteryLevel: try r[9].decode(Double?.self),
                        isCharging: try r[10].decode(Bool?.self), activity: try r[11].decode(String?.self))
    }
}

/// A stored point's key: its device and its millisecond.
struct DeviceMillis: Hashable {
    let device: String
    let millis: Int64
}

/// A batch of positions as parallel arrays for `unnest`; NaN, -1 and "" stand for NULL.
struct PositionColumns {
    var ts: [Int64] = [], lat: [Double] = [], lon: [Double] = [], alt: [Double] = []
    var hAcc: [Double] = [], vAcc: [Double] = [], speed: [Double] = [], course: [Double] = []
    var battery: [Double] = [], charging: [Int16] = [], activity: [String] = [], source: [String] = []
    /// `Fix.packedFlags` of each point.
    var flags: [Int16] = []

    init(_ positions: [Position]) {
        for p in positions {
            let f = p.fix
            ts.append(p.timestampMillis)
            lat.append(f.coordinate.latitude)
            lon.append(f.coordinate.longitude)
            alt.append(f.altitude ?? .nan)
            hAcc.append(f.horizontalAccuracy ?? .nan)
            vAcc.append(f.verticalAccuracy ?? .nan)
            speed.append(f.speed ?? .nan)
            course.append(f.course ?? .nan)
            battery.append(p.batteryLevel ?? .nan)
            charging.append(p.isCharging.map { $0 ? 1 : 0 } ?? -1)
            activity.append(p.activity ?? "")
            source.append(f.source.rawValue)
            flags.append(Int16(f.packedFlags))
        }
    }
}

extension PostgresStore {
    /// Throws 401 when the device does not exist or is revoked.
    func requireActiveDevice(_ connection: PostgresConnection, id: String) async throws {
        let row = try await connection.query("SELECT revoked_ms FROM devices WHERE id = \(id)", logger: logger).collect().first
        guard let row, try row.decode(Int64?.self) == nil else {
            throw ServerError(.unauthorized, "the device token is unknown or revoked")
        }
    }
}

