import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import WaymarkGeo

/// Group commit on PostgreSQL: the requests without an idempotency key that arrive while earlier ones are
/// being committed share one transaction, so a group of single-point requests (OwnTracks, OsmAnd, Traccar
/// Client) costs a handful of statements and one `COMMIT`, with its WAL sync, instead of each request
/// costing as many.
///
/// - Up to ``groupCommitters`` groups are in flight at a time, each on its own connection; a group is
///   formed from the requests queued when a committer is free (``IngestGroups``).
/// - Each request is answered only after its group's `COMMIT` returned, so it is as durable as a request
///   committed alone (`synchronous_commit` per ``StoreDurability``).
/// - The group is written as the requests would be one after another, in arrival order: of two requests
///   with a point at the same millisecond, the first stores it; fence events follow each device's points
///   request by request; event ids ascend in that order.
/// - A request of a revoked or unknown device fails with 401 and writes nothing; the others commit.
/// - When PostgreSQL refuses the group's transaction for any other reason (a deadlock or serialization
///   failure is first run again, as for a single request), nothing of it is stored and every request of
///   the group is committed alone, each answered as soon as it is done, so one request that cannot be
///   stored fails alone. When the database cannot be reached, the whole group fails at once.
/// - A group waits for every lock any of its requests needs (a device's fence state, its chunks while
///   they are being compacted, partitions being created), so one request's wait holds up the others of
///   its group.
/// - A request with an idempotency key is committed alone: claiming its key must see the commit of a
///   concurrent request with the same key.
extension PostgresStore {
    /// Most groups committed at a time (each holds one connection of the pool's 20 while it runs).
    static let groupCommitters = 2

    /// Commits one request; see ``PositionStore/ingest(_:)``.
    ///
    /// Requests without an idempotency key are committed in groups; see `PostgresStore+GroupCommit.swift`.
    public func ingest(_ write: IngestWrite) async throws -> IngestOutcome {
        guard write.idempotencyKey == nil else {
            // A keyed request of points of today: one statement (key, points, fence states and events), else alone.
            if Self.fitsFenceStatement([write], today: Self.dayStart(Date().millisecondsSince1970)) {
                do {
                    let traceStart = StageTrace.now()
                    if let done = try await retryingConflicts({ try await fenceStatementIngest([write]) }), let result = done.first {
                        StageTrace.log("pg-keyed key=\(write.idempotencyKey ?? "") statement=\(StageTrace.ms(traceStart, StageTrace.now())) at=\(traceStart / 1_000_000)")
                        return try result.get()
                    }
                } catch where !Self.isRefusal(error) {
                    throw Self.serverError(error)
                } catch {
                    // Refused by PostgreSQL: nothing of the statement was stored; the transaction decides.
                }
            }
            return try await ingestAlone(write)
        }
        return try await withCheckedThrowingContinuation { continuation in
            if groups.enqueue(IngestGroups.Job(write: write, continuation: continuation)) {
                Task { await self.runCommitter() }
            }
        }
    }

    /// Commits groups until the queue is empty.
    private func runCommitter() async {
        while let jobs = groups.nextGroupOrStop() {
            let traceStart = StageTrace.now()
            _ = await commitGroup(jobs.map(\.write)) { index, result in jobs[index].continuation.resume(with: result) }
            if StageTrace.enabled {
                let end = StageTrace.now()
                let jobsText = jobs.map { "\($0.write.deviceID.prefix(6)):\($0.write.positions.count):wait=\(StageTrace.ms($0.enqueued, traceStart))" }
                StageTrace.log("pg-group n=\(jobs.count) commit=\(StageTrace.ms(traceStart, end)) at=\(traceStart / 1_000_000) jobs=\(jobsText.joined(separator: ","))")
            }
        }
    }

    /// Commits `writes` in one transaction, or, when PostgreSQL refused it, each alone; `answer` gets each
    /// write's result (by its index) as soon as it is known, and every result is returned too, in order.
    ///
    /// When the database could not be reached (no statement was refused: the connection or the pool failed),
    /// every write fails at once: committing each alone would wait for a connection again, once per write.
    @discardableResult
    func commitGroup(_ writes: [IngestWrite],
                     answer: (Int, Result<IngestOutcome, any Error>) -> Void = { _, _ in }) async -> [Result<IngestOutcome, any Error>] {
        var results: [Result<IngestOutcome, any Error>]
        let today = Self.dayStart(Date().millisecondsSince1970)
        // With fences known to exist, the point-only statement would write nothing: go to the fence statement at once.
        let fencesKnown = fenceCache.cached.map { !$0.engine.fences.isEmpty } ?? false
        // The point-only statement, then the fence statement (which counts its own commits).
        var statements: [(fits: Bool, run: () async throws -> [Result<IngestOutcome, any Error>]?, counter: NIOLockedValueBox<Int>?)] = []
        statements.append((!fencesKnown && Self.fitsOneStatement(writes, today: today), { try await self.oneStatementGroup(writes) },
                           oneStatementGroupCount))
        statements.append((Self.fitsFenceStatement(writes, today: today), { try await self.fenceStatementIngest(writes) }, nil))
        for statement in statements where statement.fits {
            do {
                if let done = try await retryingConflicts(statement.run) {
                    groupCommitCounts.withLockedValue { $0.groups += 1; $0.requests += writes.count }
                    statement.counter?.withLockedValue { $0 += 1 }
                    for (index, result) in done.enumerated() { answer(index, result) }
                    return done
                }
            } catch where !Self.isRefusal(error) {
                // The database could not be reached: every write fails at once, as below.
                results = writes.map { _ in .failure(Self.serverError(error)) }
                for (index, result) in results.enumerated() { answer(index, result) }
                return results
            } catch {
                // Refused (a constraint): nothing of the statement was stored; the transaction below finds the culprit.
            }
        }
        do {
            results = try await retryingConflicts {
                try await client.withTransaction(logger: logger) { connection in try await ingestGroup(connection, writes) }
            }
            groupCommitCounts.withLockedValue { $0.groups += 1; $0.requests += writes.count }
        } catch {
            let failure = Self.serverError(error)
            if writes.count > 1, Self.isRefusal(error) {
                logger.notice("a group commit of \(writes.count) requests failed (\(error)); committing each request alone")
                groupCommitCounts.withLockedValue { $0.fallbacks += 1 }
                results = []
                for (index, write) in writes.enumerated() {
                    let result: Result<IngestOutcome, any Error>
                    do { result = .success(try await ingestAlone(write)) } catch { result = .failure(error) }
                    answer(index, result)
                    results.append(result)
                }
                return results
            }
            results = writes.map { _ in .failure(failure) }
        }
        for (index, result) in results.enumerated() { answer(index, result) }
        return results
    }

    /// Whether `writes` can be committed by ``oneStatementGroup(_:)``: points only (no gap marker, no device event),
    /// all of them of the current UTC day (no chunk can hold them yet).
    static func fitsOneStatement(_ writes: [IngestWrite], today: Int64) -> Bool {
        writes.allSatisfy { write in
            write.gaps.isEmpty && write.deviceEvents.isEmpty && write.positions.allSatisfy { $0.timestampMillis >= today }
        }
    }

    /// The points of a group's writes (`candidates[i]` for `writes[i]`; only those of `indices` when given) in
    /// one order for every statement:
    /// device, then time, then arrival (write, then rank). Concurrent groups so take the unique index's locks
    /// without deadlock, as in the transaction path.
    static func statementRows(_ writes: [IngestWrite], _ candidates: [[Position]],
                              of indices: [Int]? = nil) -> [(write: Int, rank: Int, position: Position)] {
        var rows: [(write: Int, rank: Int, position: Position)] = []
        for index in indices ?? Array(writes.indices) {
            for (rank, position) in candidates[index].enumerated() { rows.append((index, rank, position)) }
        }
        rows.sort { a, b in
            let (da, db) = (writes[a.write].deviceID, writes[b.write].deviceID)
            if da != db { return da < db }
            if a.position.timestampMillis != b.position.timestampMillis { return a.position.timestampMillis < b.position.timestampMillis }
            return (a.write, a.rank) < (b.write, b.rank)
        }
        return rows
    }

    /// Commits a group of point-only writes of the current day as one statement outside any explicit transaction:
    /// one round trip, whose implicit commit (with its WAL sync under `synchronous_commit = on`) ends it, where the
    /// transaction of ``ingestGroup(_:_:)`` takes four (`BEGIN`, the device check, the insert, `COMMIT`).
    ///
    /// The statement checks that no fence exists, the devices are active, drops their saved fence states (as
    /// ``ingestGroup(_:_:)`` does without fences) and inserts the points of the active devices, all in one snapshot.
    /// Returns nil, having written nothing, when a fence exists: fences need the fence states and events of the
    /// transaction path. Results are the same as ``ingestGroup(_:_:)``'s: the first write in arrival order with a
    /// point at a millisecond stores it; a revoked or unknown device's write fails with 401.
    func oneStatementGroup(_ writes: [IngestWrite]) async throws -> [Result<IngestOutcome, any Error>]? {
        let requested = Array(Set(writes.map(\.deviceID))).sorted()
        let candidates = writes.map { write in
            write.positions.enumerated()
                .sorted { ($0.element.timestampMillis, $0.offset) < ($1.element.timestampMillis, $1.offset) }
                .map(\.element)
        }
        let rows = Self.statementRows(writes, candidates)
        let columns = PositionColumns(rows.map(\.position))
        let devices = rows.map { writes[$0.write].deviceID }
        let received = rows.map { writes[$0.write].receivedAt.millisecondsSince1970 }
        let answer = try await client.query("""
            WITH guard AS (SELECT NOT EXISTS (SELECT 1 FROM fences) AS ok),
                 active AS (SELECT id FROM devices WHERE id = ANY(\(requested)::text[]) AND revoked_ms IS NULL
                            AND (SELECT ok FROM guard)),
                 dropped AS (DELETE FROM fence_states WHERE device_id IN (SELECT id FROM active)),
                 inserted AS (
                     INSERT INTO positions (device_id, \(unescaped: Self.insertedColumns), received_ms)
                     SELECT t.device_id, \(unescaped: Self.insertedValues), t.received_ms
                     FROM unnest(\(devices)::text[], \(columns.ts)::int8[], \(columns.lat)::float8[], \(columns.lon)::float8[],
                                 \(columns.alt)::float8[], \(columns.hAcc)::float8[], \(columns.vAcc)::float8[],
                                 \(columns.speed)::float8[], \(columns.course)::float8[], \(columns.battery)::float8[],
                                 \(columns.charging)::int2[], \(columns.activity)::text[], \(columns.source)::text[], \(columns.flags)::int2[],
                                 \(received)::int8[])
                          WITH ORDINALITY AS t(device_id, \(unescaped: Self.insertedColumns), received_ms, n)
                     WHERE t.device_id IN (SELECT id FROM active)
                     ORDER BY t.n
                     ON CONFLICT (device_id, ts) DO NOTHING
                     RETURNING device_id, ts)
            SELECT 0::int4, id, 0::int8 FROM active
            UNION ALL SELECT 1::int4, device_id, ts FROM inserted
            UNION ALL SELECT 2::int4, '', 0::int8 FROM guard WHERE NOT ok
            """, logger: logger).collect()
        forgetFenceStates(requested)
        var active = Set<String>(), inserted = Set<DeviceMillis>()
        for row in answer {
            let (kind, device, millis) = try row.decode((Int32, String, Int64).self)
            switch kind {
            case 0: active.insert(device)
            case 1: inserted.insert(DeviceMillis(device: device, millis: millis))
            default: return nil
            }
        }
        return writes.indices.map { index in
            let write = writes[index]
            guard active.contains(write.deviceID) else {
                return .failure(ServerError(.unauthorized, "the device token is unknown or revoked"))
            }
            let newlyStored = candidates[index].filter {
                inserted.remove(DeviceMillis(device: write.deviceID, millis: $0.timestampMillis)) != nil
            }
            var outcome = IngestOutcome(stored: newlyStored.count, duplicates: write.positions.count - newlyStored.count,
                                        replayed: false, gapsStored: 0)
            outcome.newPositions = newlyStored
            return .success(outcome)
        }
    }

    /// Whether `error` (also inside a transaction's error) is a refusal of a statement by PostgreSQL, or one of
    /// the store's own checks inside the transaction, rather than a database that could not be reached (a
    /// connection error, the pool's circuit breaker after failed connects, a closed pool).
    static func isRefusal(_ error: any Error) -> Bool {
        switch error {
        case let error as PostgresTransactionError:
            return [error.closureError, error.beginError, error.commitError].contains { $0.map(isRefusal) ?? false }
        case let error as PSQLError:
            return error.code == .server
        case is ServerError:
            return true
        default:
            return false
        }
    }

    /// Writes `writes` (none with an idempotency key) in the transaction of `connection`, one statement per
    /// step for all of them; see the type's documentation for the order it keeps.
    func ingestGroup(_ connection: PostgresConnection, _ writes: [IngestWrite]) async throws
        -> [Result<IngestOutcome, any Error>] {
        // One round trip: which devices are active (a token cached before a revocation, DeviceTokenCache, stores
        // nothing), the fence generation, and, when there is no fence, the active devices' saved states dropped
        // (as for one request: the first request after fences are added seeds anew). One statement sees one
        // snapshot, so "no fence" here and in the generation agree.
        let requested = Array(Set(writes.map(\.deviceID))).sorted()
        let rows = try await connection.query("""
            WITH active AS (SELECT id FROM devices WHERE id = ANY(\(requested)::text[]) AND revoked_ms IS NULL),
                 dropped AS (DELETE FROM fence_states WHERE device_id IN (SELECT id FROM active)
                             AND NOT EXISTS (SELECT 1 FROM fences))
            SELECT id, (SELECT generation FROM fence_generation) FROM active
            """, logger: logger).collect()
        var active = Set<String>(), generation: Int64 = 0
        for row in rows {
            let (id, current) = try row.decode((String, Int64?).self)
            active.insert(id)
            generation = current ?? 0
        }
        let live = writes.indices.filter { active.contains(writes[$0].deviceID) }
        let devices = requested.filter(active.contains)
        let engine = live.isEmpty ? FenceEngine(fences: []) : try await fenceEngine(connection, generation: generation)
        var states: [String: DeviceFenceState] = [:]
        if !engine.fences.isEmpty {
            states = try await lockFenceStates(connection, deviceIDs: devices)
        }
        let candidates = try await groupCandidates(connection, writes, live: live)
        let newlyStored = try await insertGroupPositions(connection, writes, candidates, live: live)
        var events = Array(repeating: [ServerFenceEvent](), count: writes.count)
        if !engine.fences.isEmpty {
            let points = live.reduce(0) { $0 + newlyStored[$1].count }
            let start = states, stored = newlyStored
            let work = live.map { (index: $0, device: writes[$0].deviceID, limits: writes[$0].fenceEventLimits) }
            let evaluated = try await Self.evaluating(points: points) {
                var states = start
                var events: [Int: [ServerFenceEvent]] = [:]
                for item in work {
                    events[item.index] = try engine.evaluate(stored[item.index], state: &states[item.device, default: DeviceFenceState()],
                                                             limits: item.limits)
                }
                for device in states.keys { states[device]?.prune(to: engine) }
                return (events, states)
            }
            for (index, list) in evaluated.0 { events[index] = list }
            states = evaluated.1
            forgetFenceStates(states.keys)
            try await saveFenceStates(connection, states)
        } else {
            forgetFenceStates(devices)
        }
        var outcomes: [Int: IngestOutcome] = [:]
        for index in live {
            let write = writes[index], received = write.receivedAt.millisecondsSince1970
            let stored = newlyStored[index].count
            var outcome = IngestOutcome(stored: stored, duplicates: write.positions.count - stored, replayed: false,
                                        gapsStored: try await insertGaps(connection, write.gaps, receivedMillis: received))
            outcome.newDeviceEvents = try await insertDeviceEvents(connection, write.deviceEvents, deviceID: write.deviceID,
                                                                   nowMillis: received)
            outcome.deviceEventsStored = outcome.newDeviceEvents.count
            outcome.newPositions = newlyStored[index]
            outcomes[index] = outcome
        }
        // Events last, request by request, so their ids ascend in arrival order and the lock inside is held
        // only until the commit.
        for index in live where !events[index].isEmpty {
            let received = writes[index].receivedAt.millisecondsSince1970
            let records = try await insertEventsInCommitOrder(connection, events[index], receivedMillis: received)
            try await queueDeliveries(connection, records, nowMillis: received)
            outcomes[index]?.events = records
        }
        return writes.indices.map { index in
            outcomes[index].map { .success($0) }
                ?? .failure(ServerError(.unauthorized, "the device token is unknown or revoked"))
        }
    }

    /// Each live write's positions that its device's chunks do not hold already (only points of ended days can
    /// be there), in timestamp order, equal timestamps in request order.
    private func groupCandidates(_ connection: PostgresConnection, _ writes: [IngestWrite], live: [Int]) async throws
        -> [[Position]] {
        let today = Self.dayStart(Date().millisecondsSince1970)
        var old: [String: [Position]] = [:]
        for index in live where writes[index].positions.contains(where: { $0.timestampMillis < today }) {
            old[writes[index].deviceID, default: []].append(contentsOf: writes[index].positions)
        }
        let compacted = try await compactedTimestamps(connection, of: old, before: today)
        var candidates = Array(repeating: [Position](), count: writes.count)
        for index in live {
            var positions = writes[index].positions
            if let done = compacted[writes[index].deviceID] { positions.removeAll { done.contains($0.timestampMillis) } }
            candidates[index] = positions.enumerated()
                .sorted { ($0.element.timestampMillis, $0.offset) < ($1.element.timestampMillis, $1.offset) }
                .map(\.element)
        }
        return candidates
    }

    /// Inserts the candidates of every live write in one statement, ordered by device, timestamp and arrival
    /// (one order for every transaction, so concurrent groups take the unique index's locks without deadlock),
    /// and returns what each write newly stored: a point of a key inserted belongs to the first write, in
    /// arrival order, that has it.
    private func insertGroupPositions(_ connection: PostgresConnection, _ writes: [IngestWrite], _ candidates: [[Position]],
                                      live: [Int]) async throws -> [[Position]] {
        let rows = Self.statementRows(writes, candidates, of: live)
        var newlyStored = Array(repeating: [Position](), count: writes.count)
        guard !rows.isEmpty else { return newlyStored }
        var inserted = Set(try await insertPositions(
            connection, devices: rows.map { writes[$0.write].deviceID }, rows.map(\.position),
            receivedMillis: rows.map { writes[$0.write].receivedAt.millisecondsSince1970 }))
        for index in live {
            for position in candidates[index]
            where inserted.remove(DeviceMillis(device: writes[index].deviceID, millis: position.timestampMillis)) != nil {
                newlyStored[index].append(position)
            }
        }
        return newlyStored
    }
}
