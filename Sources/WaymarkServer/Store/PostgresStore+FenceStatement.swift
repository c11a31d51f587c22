import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import WaymarkGeo

/// One statement for requests that need fence evaluation, and for requests with an `Idempotency-Key`.
///
/// The transaction path (``PostgresStore/ingestGroup(_:_:)``, ``PostgresStore/ingestAlone(_:)``) locks the fence
/// states, evaluates and writes in six to ten round trips, each waiting for the server's next statement while the
/// transaction is open. Here the process evaluates first, against the fence states it last wrote (or read), and
/// sends everything in one statement outside an explicit transaction, whose implicit commit syncs the WAL before
/// any request is answered:
/// - it locks the devices' fence-state rows (`FOR UPDATE`, in id order) and checks each still holds what the
///   evaluation started from, that the fence generation is the one evaluated with, and that every device is active;
/// - only then does it claim the idempotency key, save the new states, insert the points, and (under the advisory
///   lock that orders event ids by commit) the events and their webhook deliveries;
/// - when a check fails it writes nothing, and when a point or the key turns out to be stored already it fails
///   (division by zero, SQLSTATE 22012) so that nothing of it is kept; either way the requests go through the
///   transaction path, which decides as before.
///
/// Within the process, a device's turn (``DeviceTurns``) is held from evaluation to the statement's end, so two
/// groups of the same devices do not evaluate from the same state; another process's write is caught by the check.
/// The results are those of the transaction path: `PostgresFenceStatementTests` compares them.
struct StoredFenceState: Hashable, Sendable {
    var lastMillis: Int64
    var latitude: Double
    var longitude: Double
    var inside: String
    var dwelled: String

    /// The stored form of `state`, or nil when it has no last point (a state that must be seeded first).
    init?(_ state: DeviceFenceState) {
        guard let time = state.lastTimestamp, let place = state.lastCoordinate else { return nil }
        self.init(lastMillis: time.millisecondsSince1970, latitude: place.latitude, longitude: place.longitude,
                  inside: state.insideText, dwelled: state.dwelledText)
    }

    init(lastMillis: Int64, latitude: Double, longitude: Double, inside: String, dwelled: String) {
        self.lastMillis = lastMillis
        self.latitude = latitude
        self.longitude = longitude
        self.inside = inside
        self.dwelled = dwelled
    }

    var state: DeviceFenceState {
        DeviceFenceState(lastMillis: lastMillis, lastLatitude: latitude, lastLongitude: longitude, insideText: inside, dwelledText: dwelled)
    }
}

extension PostgresStore {
    /// Whether the one-statement fence path is used (`WAYMARK_PG_FENCE_STATEMENT=off` turns it off, to measure
    /// the transaction path in the same build).
    static let fenceStatementEnabled = ProcessInfo.processInfo.environment["WAYMARK_PG_FENCE_STATEMENT"] != "off"

    /// Points per request above which fence evaluation runs on the low-priority ``BackgroundExecutor`` rather than on
    /// the threads that serve every other request.
    static let backgroundEvaluationPoints = 500

    /// The SQLSTATE of the statement's own refusal (a point or key already stored): `division_by_zero`.
    static let fenceStatementRefusal = "22012"

    /// Whether ``fenceStatementIngest(_:)`` can take `writes`: points of the current UTC day only, and either no
    /// idempotency key or a single request.
    static func fitsFenceStatement(_ writes: [IngestWrite], today: Int64) -> Bool {
        guard fenceStatementEnabled, !writes.isEmpty, fitsOneStatement(writes, today: today) else { return false }
        return writes.count == 1 || writes.allSatisfy { $0.idempotencyKey == nil }
    }

    /// Commits `writes` in one statement (see `PostgresStore+FenceStatement.swift`), or returns nil, having stored
    /// nothing, when the transaction path must decide: no fence engine loaded yet, a device without a seeded fence
    /// state, a device unknown or revoked, a fence-event limit passed, or the check failed.
    func fenceStatementIngest(_ writes: [IngestWrite]) async throws -> [Result<IngestOutcome, any Error>]? {
        guard let (generation, engine) = fenceCache.cached else { return nil }
        let requested = Array(Set(writes.map(\.deviceID))).sorted()
        let tr0 = StageTrace.now()
        let turns = await deviceTurns.take(requested)
        let tr1 = StageTrace.now()
        defer { deviceTurns.giveBack(turns) }

        // The states the evaluation starts from: those this process last wrote or read, else read now.
        var expected: [String: StoredFenceState] = [:]
        if !engine.fences.isEmpty {
            expected = fenceStates.withLockedValue { cache in cache.filter { requested.contains($0.key) } }
            let missing = requested.filter { expected[$0] == nil }
            if !missing.isEmpty {
                let read = try await readFenceStates(missing)
                guard read.count == missing.count else { return nil }
                expected.merge(read) { $1 }
            }
        }

        // Each write's points in time order, less those an earlier write of the group (or itself) has at that millisecond.
        var seen = Set<DeviceMillis>()
        let candidates = writes.map { write in
            write.positions.enumerated()
                .sorted { ($0.element.timestampMillis, $0.offset) < ($1.element.timestampMillis, $1.offset) }
                .map(\.element)
                .filter { seen.insert(DeviceMillis(device: write.deviceID, millis: $0.timestampMillis)).inserted }
        }
        var states = expected.mapValues(\.state)
        var events = Array(repeating: [ServerFenceEvent](), count: writes.count)
        if !engine.fences.isEmpty {
            let points = candidates.reduce(0) { $0 + $1.count }
            let limits = writes.map(\.fenceEventLimits), devices = writes.map(\.deviceID), start = states
            do {
                (events, states) = try await Self.evaluating(points: points) {
                    var states = start
                    var events: [[ServerFenceEvent]] = []
                    for index in candidates.indices {
                        events.append(try engine.evaluate(candidates[index], state: &states[devices[index], default: DeviceFenceState()],
                                                          limits: limits[index]))
                    }
                    for device in states.keys { states[device]?.prune(to: engine) }
                    return (events, states)
                }
            } catch {
                return nil   // a fence-event limit: the transaction path refuses the request that passed it, alone
            }
        }
        var saved: [String: StoredFenceState] = [:]
        for (device, state) in states {
            guard let stored = StoredFenceState(state) else { return nil }
            saved[device] = stored
        }

        let statement = fenceStatement(writes, candidates: candidates, events: events, generation: generation,
                                       noFences: engine.fences.isEmpty, expected: expected, saved: saved)
        let rows: [PostgresRow]
        let tr2 = StageTrace.now()
        defer {
            if StageTrace.enabled, writes.count == 1, let key = writes[0].idempotencyKey {
                StageTrace.log("pg-statement key=\(key) turns=\(StageTrace.ms(tr0, tr1)) eval=\(StageTrace.ms(tr1, tr2)) query=\(StageTrace.ms(tr2, StageTrace.now()))")
            }
        }
        do {
            rows = try await client.query(statement, logger: logger).collect()
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == Self.fenceStatementRefusal {
            forgetFenceStates(requested)
            return nil
        } catch {
            forgetFenceStates(requested)
            throw error
        }
        guard let row = rows.first else { forgetFenceStates(requested); return nil }
        let (committed, ids) = try row.decode((Bool, [Int64]).self)
        guard committed else { forgetFenceStates(requested); return nil }
        fenceStates.withLockedValue { cache in cache.merge(saved) { $1 } }
        fenceStatementCount.withLockedValue { $0 += 1 }

        // Event ids ascend in the order the events were inserted (request by request), as in the transaction path.
        let flat = events.flatMap { $0 }
        guard ids.count == flat.count else {
            throw ServerError(.storage, "PostgreSQL: \(ids.count) fence event ids returned for \(flat.count) events")
        }
        var next = 0
        return writes.indices.map { index in
            let write = writes[index], stored = candidates[index].count
            let records = events[index].map { event -> FenceEventRecord in
                defer { next += 1 }
                return FenceEventRecord(id: ids[next], event: Self.storedEvent(event))
            }
            var outcome = IngestOutcome(stored: stored, duplicates: write.positions.count - stored, replayed: false,
                                        events: records, gapsStored: 0)
            outcome.newPositions = candidates[index]
            return .success(outcome)
        }
    }

    /// Runs `body` (a fence evaluation of `points` points) on the ``BackgroundExecutor`` when it is large, so an
    /// upload of thousands of points does not hold a thread that serves other requests.
    static func evaluating<T: Sendable>(points: Int, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard points > backgroundEvaluationPoints else { return try body() }
        return try await withTaskExecutorPreference(BackgroundExecutor.shared) { try body() }
    }

    /// `event` as stored: its time to the millisecond.
    static func storedEvent(_ event: ServerFenceEvent) -> ServerFenceEvent {
        var event = event
        event.timestamp = Date(millisecondsSince1970: event.timestamp.millisecondsSince1970)
        return event
    }

    /// The fence states of `ids` that have a last point, read outside any transaction.
    private func readFenceStates(_ ids: [String]) async throws -> [String: StoredFenceState] {
        var states: [String: StoredFenceState] = [:]
        for row in try await client.query("""
            SELECT device_id, last_ts, last_lat, last_lon, inside, dwelled FROM fence_states
            WHERE device_id = ANY(\(ids)::text[]) AND last_ts IS NOT NULL AND last_lat IS NOT NULL AND last_lon IS NOT NULL
            """, logger: logger).collect() {
            let (device, ts, lat, lon, inside, dwelled) = try row.decode((String, Int64, Double, Double, String, String).self)
            states[device] = StoredFenceState(lastMillis: ts, latitude: lat, longitude: lon, inside: inside, dwelled: dwelled)
        }
        return states
    }

    /// Drops what this process knows of the devices' fence states (another writer may have changed them).
    func forgetFenceStates(_ ids: some Sequence<String>) {
        fenceStates.withLockedValue { cache in for id in ids { cache[id] = nil } }
    }

    /// The statement of ``fenceStatementIngest(_:)``; its one row is `(committed, event ids in ascending order)`.
    private func fenceStatement(_ writes: [IngestWrite], candidates: [[Position]], events: [[ServerFenceEvent]],
                                generation: Int64, noFences: Bool, expected: [String: StoredFenceState],
                                saved: [String: StoredFenceState]) -> PostgresQuery {
        var sql = SQLText()
        let requested = Array(Set(writes.map(\.deviceID))).sorted()
        let old = expected.sorted { $0.key < $1.key }, new = saved.sorted { $0.key < $1.key }
        func stateColumns(_ states: [(key: String, value: StoredFenceState)]) -> String {
            "unnest(\(sql.bind(states.map(\.key)))::text[], \(sql.bind(states.map(\.value.lastMillis)))::int8[], "
                + "\(sql.bind(states.map(\.value.latitude)))::float8[], \(sql.bind(states.map(\.value.longitude)))::float8[], "
                + "\(sql.bind(states.map(\.value.inside)))::text[], \(sql.bind(states.map(\.value.dwelled)))::text[]) "
                + "AS s(device_id, last_ts, last_lat, last_lon, inside, dwelled)"
        }
        // Points in one order for every statement (device, time, arrival), as the other paths insert them.
        let rows = Self.statementRows(writes, candidates)
        let columns = PositionColumns(rows.map(\.position))
        let expectedRows = Int64(rows.count)

        var text = """
            WITH ok AS (SELECT coalesce((SELECT generation FROM fence_generation), 0) = \(sql.bind(generation))
                AND (SELECT count(*) FROM devices WHERE id = ANY(\(sql.bind(requested))::text[]) AND revoked_ms IS NULL)
                    = \(sql.bind(Int64(requested.count)))
                AND (SELECT count(*) FROM (SELECT device_id, last_ts, last_lat, last_lon, inside, dwelled FROM fence_states
                                           WHERE device_id = ANY(\(sql.bind(old.map(\.key)))::text[])
                                           ORDER BY device_id FOR UPDATE) AS f
                     JOIN \(stateColumns(old))
                       ON f.device_id = s.device_id AND f.last_ts = s.last_ts AND f.last_lat = s.last_lat
                      AND f.last_lon = s.last_lon AND f.inside = s.inside AND f.dwelled = s.dwelled) = \(sql.bind(Int64(old.count)))
                AS go),
            """
        let keyed = writes.count == 1 ? writes[0].idempotencyKey : nil
        if let key = keyed {
            let write = writes[0], stored = Int64(candidates[0].count)
            text += """
                 claim AS (INSERT INTO ingest_batches (device_id, idem_key, received_ms, stored, duplicates, request_digest)
                           SELECT \(sql.bind(write.deviceID)), \(sql.bind(key)), \(sql.bind(write.receivedAt.millisecondsSince1970)),
                                  \(sql.bind(stored)), \(sql.bind(Int64(write.positions.count) - stored)), \(sql.bind(write.requestDigest))::text
                           WHERE (SELECT go FROM ok)
                           ON CONFLICT (device_id, idem_key) DO NOTHING RETURNING 1),
                """
        }
        if noFences {
            text += """
                 dropped AS (DELETE FROM fence_states WHERE device_id = ANY(\(sql.bind(requested))::text[]) AND (SELECT go FROM ok)),
                """
        } else {
            text += """
                 saved AS (UPDATE fence_states f SET last_ts = s.last_ts, last_lat = s.last_lat, last_lon = s.last_lon,
                                  inside = s.inside, dwelled = s.dwelled
                           FROM \(stateColumns(new)) WHERE f.device_id = s.device_id AND (SELECT go FROM ok)),
                """
        }
        text += """
             inserted AS (
                 INSERT INTO positions (device_id, \(Self.insertedColumns), received_ms)
                 SELECT t.device_id, \(Self.insertedValues), t.received_ms
                 FROM unnest(\(sql.bind(rows.map { writes[$0.write].deviceID }))::text[], \(sql.bind(columns.ts))::int8[],
                             \(sql.bind(columns.lat))::float8[], \(sql.bind(columns.lon))::float8[], \(sql.bind(columns.alt))::float8[],
                             \(sql.bind(columns.hAcc))::float8[], \(sql.bind(columns.vAcc))::float8[], \(sql.bind(columns.speed))::float8[],
                             \(sql.bind(columns.course))::float8[], \(sql.bind(columns.battery))::float8[],
                             \(sql.bind(columns.charging))::int2[], \(sql.bind(columns.activity))::text[], \(sql.bind(columns.source))::text[],
                             \(sql.bind(columns.flags))::int2[],
                             \(sql.bind(rows.map { writes[$0.write].receivedAt.millisecondsSince1970 }))::int8[])
                      WITH ORDINALITY AS t(device_id, \(Self.insertedColumns), received_ms, n)
                 WHERE (SELECT go FROM ok)
                 ORDER BY t.n
                 ON CONFLICT (device_id, ts) DO NOTHING
                 RETURNING 1),
            """
        let flat = writes.indices.flatMap { index in events[index].map { (index, Self.storedEvent($0)) } }
        if flat.isEmpty {
            text += " events AS (SELECT NULL::int8 AS id WHERE false)\n"
        } else {
            // The event-order lock (see ``insertEventsInCommitOrder(_:_:receivedMillis:)``) once the check has passed,
            // held to the commit; ids are drawn after it. A delivery's payload is the event's, with its id put in.
            let received = flat.map { writes[$0.0].receivedAt.millisecondsSince1970 }
            let templates = flat.map { OutboxDelivery.payload(for: FenceEventRecord(id: Self.payloadIDPlaceholder, event: $0.1)) }
            text += """
                 ordered AS (SELECT 1 AS n FROM ok WHERE go AND \(Self.schemaLock(Self.eventOrderLock)) IS NOT NULL),
                 events AS (
                     INSERT INTO fence_events (device_id, fence_id, kind, ts, lat, lon, created_ms)
                     SELECT e.device_id, e.fence_id, e.kind, e.ts, e.lat, e.lon, e.created_ms
                     FROM unnest(\(sql.bind(flat.map(\.1.deviceID)))::text[], \(sql.bind(flat.map(\.1.fenceID)))::text[],
                                 \(sql.bind(flat.map(\.1.kind.rawValue)))::text[], \(sql.bind(flat.map(\.1.timestamp.millisecondsSince1970)))::int8[],
                                 \(sql.bind(flat.map(\.1.coordinate.latitude)))::float8[], \(sql.bind(flat.map(\.1.coordinate.longitude)))::float8[],
                                 \(sql.bind(received))::int8[])
                          WITH ORDINALITY AS e(device_id, fence_id, kind, ts, lat, lon, created_ms, n)
                     WHERE EXISTS (SELECT 1 FROM ordered)
                     ORDER BY e.n
                     RETURNING id),
                 numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM events),
                 queued AS (
                     INSERT INTO outbox (webhook_id, event_id, payload, state, attempts, next_attempt_ms, created_ms, updated_ms)
                     SELECT w.id, v.id, replace(p.payload, \(sql.bind(Self.payloadIDText)), '"id":' || v.id::text), 'pending', 0,
                            p.created_ms, p.created_ms, p.created_ms
                     FROM numbered v
                     JOIN unnest(\(sql.bind(templates))::text[], \(sql.bind(received))::int8[]) WITH ORDINALITY AS p(payload, created_ms, n)
                       ON p.n = v.n
                     CROSS JOIN webhooks w)

                """
        }
        // A point already stored or a key already claimed (by a writer the check could not see) means the evaluation
        // assumed too much: fail, so nothing of the statement is kept.
        let claimed = keyed == nil ? "true" : "EXISTS (SELECT 1 FROM claim)"
        text += """
            SELECT (SELECT go FROM ok)
                   AND 1 / (CASE WHEN NOT (SELECT go FROM ok)
                                   OR ((SELECT count(*) FROM inserted) = \(sql.bind(expectedRows)) AND \(claimed)) THEN 1 ELSE 0 END) = 1,
                   ARRAY(SELECT id FROM events ORDER BY id)
            """
        return PostgresQuery(unsafeSQL: text, binds: sql.binds)
    }

    /// The event id a payload template carries until the statement puts the real one in.
    static let payloadIDPlaceholder = Int64.min
    /// How the placeholder id reads in a template.
    static let payloadIDText = #""id":"# + String(Int64.min)
}

/// SQL text with numbered parameters: ``bind(_:)`` appends a value and returns its placeholder (`$1`, `$2`, …).
struct SQLText {
    var binds = PostgresBindings()

    mutating func bind<Value: PostgresThrowingDynamicTypeEncodable>(_ value: Value) -> String {
        // Encoding strings, numbers and their arrays cannot fail.
        try? binds.append(value)
        return "$\(binds.count)"
    }

    mutating func bind<Value: PostgresThrowingDynamicTypeEncodable>(_ value: Value?) -> String {
        try? binds.append(value)
        return "$\(binds.count)"
    }
}
