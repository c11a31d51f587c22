import Foundation
import PostgresNIO
import WaymarkGeo

extension PostgresStore {
    /// Adds or replaces fences; see ``FenceStore/upsertFences(_:at:)``.
    public func upsertFences(_ fences: [ServerFence], at date: Date) async throws {
        try ServerFence.checkAll(fences)
        let ids = fences.map(\.id), names = fences.map(\.name), geometries = fences.map { FenceCodec.geometryText($0.shape) }
        let radii = fences.map { fence -> Double in
            if case .circle(_, let r) = fence.shape { return r }
            return .nan
        }
        let dwells = fences.map { $0.dwellSeconds ?? .nan }
        let created = date.millisecondsSince1970
        try await storageErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("""
                    INSERT INTO fences (id, name, geometry, radius_m, dwell_s, created_ms)
                    SELECT t.id, t.name, t.geometry, nullif(t.radius, 'NaN'), nullif(t.dwell, 'NaN'), \(created)
                    FROM unnest(\(ids)::text[], \(names)::text[], \(geometries)::text[], \(radii)::float8[], \(dwells)::float8[])
                         AS t(id, name, geometry, radius, dwell)
                    ON CONFLICT (id) DO UPDATE SET name = excluded.name, geometry = excluded.geometry,
                        radius_m = excluded.radius_m, dwell_s = excluded.dwell_s
                    """, logger: logger)
                try await connection.query("UPDATE fence_generation SET generation = generation + 1", logger: logger)
            }
        }
    }

    /// Every fence; see ``FenceStore/listFences()``.
    public func listFences() async throws -> [ServerFence] {
        try await storageErrors {
            try await client.withConnection { connection in try await loadFences(connection) }
        }
    }

    /// One page of fences by id; see ``FenceStore/fences(after:limit:)``.
    public func fences(after afterID: String?, limit: Int) async throws -> [ServerFence] {
        // Every id has at least one byte, so '' sorts before all of them; `id > $1 ORDER BY id LIMIT $2`
        // is an index range scan of fences_pkey.
        try await storageErrors {
            try await client.query("""
                SELECT id, name, geometry, radius_m, dwell_s FROM fences
                WHERE id > \(afterID ?? "") ORDER BY id LIMIT \(max(1, limit))
                """, logger: logger).collect().map(Self.fence(from:))
        }
    }

    /// The fence set's version; see ``FenceStore/fenceGeneration()``.
    public func fenceGeneration() async throws -> Int64 {
        try await storageErrors {
            try await client.query("SELECT generation FROM fence_generation", logger: logger).collect().first?.decode(Int64.self) ?? 0
        }
    }

    /// Deletes a fence; see ``FenceStore/deleteFence(id:)``.
    public func deleteFence(id: String) async throws -> Bool {
        try await storageErrors {
            try await client.withTransaction(logger: logger) { connection in
                let rows = try await connection.query("DELETE FROM fences WHERE id = \(id) RETURNING 1", logger: logger).collect()
                guard !rows.isEmpty else { return false }
                try await connection.query("UPDATE fence_generation SET generation = generation + 1", logger: logger)
                return true
            }
        }
    }

    /// Stored events; see ``FenceStore/fenceEvents(deviceID:afterID:limit:)``.
    public func fenceEvents(deviceID: String?, afterID: Int64, limit: Int) async throws -> [FenceEventRecord] {
        try await storageErrors {
            try await client.query("""
                SELECT id, device_id, fence_id, kind, ts, lat, lon FROM fence_events
                WHERE id > \(afterID) AND (\(deviceID)::text IS NULL OR device_id = \(deviceID))
                ORDER BY id LIMIT \(max(1, limit))
                """, logger: logger).collect().map(Self.eventRecord(from:))
        }
    }

    func loadFences(_ connection: PostgresConnection) async throws -> [ServerFence] {
        try await connection.query("SELECT id, name, geometry, radius_m, dwell_s FROM fences ORDER BY id", logger: logger)
            .collect().map(Self.fence(from:))
    }

    /// The fence in a row of `SELECT id, name, geometry, radius_m, dwell_s`.
    static func fence(from row: PostgresRow) throws -> ServerFence {
        let (id, name, geometry, radius, dwell) = try row.decode((String, String, String, Double?, Double?).self)
        return try FenceCodec.fence(id: id, name: name, geometryText: geometry, radiusMeters: radius, dwellSeconds: dwell)
    }

    /// The engine for the fences committed now (rebuilt only when the generation moved).
    func fenceEngine(_ connection: PostgresConnection) async throws -> FenceEngine {
        let generation = try await connection.query("SELECT generation FROM fence_generation", logger: logger)
            .collect().first?.decode(Int64.self) ?? 0
        return try await fenceEngine(connection, generation: generation)
    }

    /// The fences of `generation`, read in `connection`'s transaction when the cache holds another generation.
    func fenceEngine(_ connection: PostgresConnection, generation: Int64) async throws -> FenceEngine {
        // Single flight: the first transaction loads on its connection; concurrent ones wait for its result.
        try await fenceCache.engine(generation: generation) { [self] in try await loadFences(connection) }
    }

    /// Locks the device's fence-state row for this transaction (so one device's requests are evaluated one
    /// at a time, even across processes) and returns the state, seeded from the last stored position if new.
    func lockFenceState(_ connection: PostgresConnection, deviceID: String) async throws -> DeviceFenceState {
        try await connection.query("""
            INSERT INTO fence_states (device_id, inside, dwelled) VALUES (\(deviceID), '{}', '[]')
            ON CONFLICT (device_id) DO NOTHING
            """, logger: logger)
        let row = try await connection.query("""
            SELECT last_ts, last_lat, last_lon, inside, dwelled FROM fence_states WHERE device_id = \(deviceID) FOR UPDATE
            """, logger: logger).collect().first
        guard let row else { throw ServerError(.storage, "PostgreSQL: the fence state of \(deviceID) vanished") }
        let (ts, lat, lon, inside, dwelled) = try row.decode((Int64?, Double?, Double?, String, String).self)
        return try await seeded(connection, deviceID: deviceID,
                                DeviceFenceState(lastMillis: ts, lastLatitude: lat, lastLongitude: lon, insideText: inside, dwelledText: dwelled))
    }

    /// `state`, seeded from the device's last stored position when it has no point yet.
    private func seeded(_ connection: PostgresConnection, deviceID: String, _ state: DeviceFenceState) async throws -> DeviceFenceState {
        guard state.lastTimestamp == nil else { return state }
        var state = state
        state.seed(from: try await lastPosition(connection, deviceID: deviceID))
        return state
    }

    /// ``lockFenceState(_:deviceID:)`` for several devices (a group commit): the rows are created and locked in id
    /// order, so two transactions locking overlapping sets cannot deadlock on them.
    func lockFenceStates(_ connection: PostgresConnection, deviceIDs: [String]) async throws -> [String: DeviceFenceState] {
        let ids = Array(Set(deviceIDs)).sorted()
        guard !ids.isEmpty else { return [:] }
        try await connection.query("""
            INSERT INTO fence_states (device_id, inside, dwelled)
            SELECT d, '{}', '[]' FROM unnest(\(ids)::text[]) WITH ORDINALITY AS t(d, n) ORDER BY t.n
            ON CONFLICT (device_id) DO NOTHING
            """, logger: logger)
        let rows = try await connection.query("""
            SELECT device_id, last_ts, last_lat, last_lon, inside, dwelled FROM fence_states
            WHERE device_id = ANY(\(ids)::text[]) ORDER BY device_id FOR UPDATE
            """, logger: logger).collect()
        // A row deleted between the two statements (a concurrent request found no fence just then): fail, so
        // the group's requests are committed alone, as one request would in ``lockFenceState(_:deviceID:)``.
        guard rows.count == ids.count else {
            throw ServerError(.storage, "PostgreSQL: the fence state of a device vanished")
        }
        var states: [String: DeviceFenceState] = [:]
        for row in rows {
            let (device, ts, lat, lon, inside, dwelled) = try row.decode((String, Int64?, Double?, Double?, String, String).self)
            states[device] = try await seeded(connection, deviceID: device,
                DeviceFenceState(lastMillis: ts, lastLatitude: lat, lastLongitude: lon, insideText: inside, dwelledText: dwelled))
        }
        return states
    }

    func saveFenceState(_ connection: PostgresConnection, deviceID: String, state: DeviceFenceState) async throws {
        try await connection.query("""
            UPDATE fence_states SET last_ts = \(state.lastTimestamp?.millisecondsSince1970),
                last_lat = \(state.lastCoordinate?.latitude), last_lon = \(state.lastCoordinate?.longitude),
                inside = \(state.insideText), dwelled = \(state.dwelledText)
            WHERE device_id = \(deviceID)
            """, logger: logger)
    }

    /// Writes the states of several devices in one statement (their rows are locked by ``lockFenceStates(_:deviceIDs:)``).
    func saveFenceStates(_ connection: PostgresConnection, _ states: [String: DeviceFenceState]) async throws {
        guard !states.isEmpty else { return }
        let sorted = states.sorted { $0.key < $1.key }
        let ids = sorted.map(\.key), inside = sorted.map(\.value.insideText), dwelled = sorted.map(\.value.dwelledText)
        // NULL stands as Int64.min and NaN in the arrays.
        let times = sorted.map { $0.value.lastTimestamp?.millisecondsSince1970 ?? Int64.min }
        let lats = sorted.map { $0.value.lastCoordinate?.latitude ?? .nan }
        let lons = sorted.map { $0.value.lastCoordinate?.longitude ?? .nan }
        try await connection.query("""
            UPDATE fence_states f
            SET last_ts = nullif(s.last_ts, \(Int64.min)), last_lat = nullif(s.last_lat, 'NaN'),
                last_lon = nullif(s.last_lon, 'NaN'), inside = s.inside, dwelled = s.dwelled
            FROM unnest(\(ids)::text[], \(times)::int8[], \(lats)::float8[], \(lons)::float8[], \(inside)::text[],
                        \(dwelled)::text[]) AS s(device_id, last_ts, last_lat, last_lon, inside, dwelled)
            WHERE f.device_id = s.device_id
            """, logger: logger)
    }

    /// The advisory lock class that orders fence-event ids by commit ("WMFE" in ASCII); see ``schemaLock(_:)``.
    static let eventOrderLock: Int32 = 0x574D_4645

    /// ``insertEvents(_:_:receivedMillis:)`` under a transaction-scoped advisory lock, so that event
    /// ids become visible in increasing order: a transaction draws its ids only after every earlier
    /// event-writing transaction has committed (the lock is released at commit). Without it, a
    /// client paging `/api/events?after=` could pass an id that a slower transaction commits later.
    /// Call it as the transaction's last write: the lock serializes only that tail and the commit.
    func insertEventsInCommitOrder(_ connection: PostgresConnection, _ events: [ServerFenceEvent], receivedMillis: Int64)
        async throws -> [FenceEventRecord] {
        guard !events.isEmpty else { return [] }
        try await connection.query(PostgresQuery(unsafeSQL: "SELECT " + Self.schemaLock(Self.eventOrderLock)), logger: logger)
        return try await insertEvents(connection, events, receivedMillis: receivedMillis)
    }

    /// Inserts the events in one statement (one round trip however many events a batch causes) and
    /// returns them with their ids, in the order given.
    ///
    /// The rows are inserted in `ORDER BY n` order, so the `bigserial` ids this statement draws
    /// ascend in the events' order (other transactions may take ids in between, never within):
    /// sorting the returned ids restores the pairing.
    func insertEvents(_ connection: PostgresConnection, _ events: [ServerFenceEvent], receivedMillis: Int64) async throws
        -> [FenceEventRecord] {
        guard !events.isEmpty else { return [] }
        let stored = events.map { e -> ServerFenceEvent in
            var e = e
            e.timestamp = Date(millisecondsSince1970: e.timestamp.millisecondsSince1970)
            return e
        }
        let devices = stored.map(\.deviceID), fences = stored.map(\.fenceID), kinds = stored.map(\.kind.rawValue)
        let times = stored.map(\.timestamp.millisecondsSince1970)
        let lats = stored.map(\.coordinate.latitude), lons = stored.map(\.coordinate.longitude)
        let rows = try await connection.query("""
            WITH inserted AS (
                INSERT INTO fence_events (device_id, fence_id, kind, ts, lat, lon, created_ms)
                SELECT e.device_id, e.fence_id, e.kind, e.ts, e.lat, e.lon, \(receivedMillis)
                FROM unnest(\(devices)::text[], \(fences)::text[], \(kinds)::text[], \(times)::int8[],
                            \(lats)::float8[], \(lons)::float8[]) WITH ORDINALITY AS e(device_id, fence_id, kind, ts, lat, lon, n)
                ORDER BY e.n
                RETURNING id)
            SELECT id FROM inserted ORDER BY id
            """, logger: logger).collect()
        let ids = try rows.map { try $0.decode(Int64.self) }
        guard ids.count == stored.count else {
            throw ServerError(.storage, "PostgreSQL: \(ids.count) fence event ids returned for \(stored.count) events")
        }
        return zip(ids, stored).map { FenceEventRecord(id: $0, event: $1) }
    }

    static func eventRecord(from row: PostgresRow) throws -> FenceEventRecord {
        let (id, device, fence, kind, ts, lat, lon) = try row.decode((Int64, String, String, String, Int64, Double, Double).self)
        return FenceEventRecord(id: id, event: ServerFenceEvent(
            deviceID: device, fenceID: fence, kind: ServerFenceEvent.Kind(rawValue: kind) ?? .enter,
            timestamp: Date(millisecondsSince1970: ts), coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon)))
    }
}
