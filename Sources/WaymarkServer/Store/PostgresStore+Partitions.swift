import Foundation
import PostgresNIO

/// Time partitions of `positions` (by UTC day) and `position_chunks` (by UTC month), and retention by whole partitions.
extension PostgresStore {
    /// A table partitioned by ranges of one time column, with the partitions kept around the present.
    struct PartitionPlan: Sendable {
        let table: String
        let column: String
        /// Days when true, calendar months when false (UTC).
        let daily: Bool
        /// Periods before and after the present that get a partition; rows outside land in the DEFAULT partition.
        let back: Int, ahead: Int
        /// The SQL aggregate of how many points a partition holds (retention counts a dropped one as these).
        let points: String
    }

    /// New points: today's and the next two days' partitions (a phone's clock may run up to 24 h ahead). Days
    /// are compacted into chunks once over and their partitions dropped, so none is created backwards;
    /// a late point for an older day lands in DEFAULT until compaction moves it.
    static let positionPlan = PartitionPlan(table: "positions", column: "ts", daily: true, back: 0, ahead: 2, points: "count(*)")
    /// Chunks: a month each, twelve back and two ahead (older history, a backfill, lands in DEFAULT).
    static let chunkPlan = PartitionPlan(table: "position_chunks", column: "first_ts", daily: false, back: 12, ahead: 2,
                                         points: "coalesce(sum(count), 0)")

    /// The first millisecond of the period `offset` periods after the one holding `date`, and its partition's name
    /// (`positions_2026_11_26`, `position_chunks_2026_11`).
    static func periodStart(_ date: Date, _ plan: PartitionPlan, offset: Int = 0) -> (millis: Int64, name: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let unit: Calendar.Component = plan.daily ? .day : .month
        let parts = calendar.dateComponents(plan.daily ? [.year, .month, .day] : [.year, .month], from: date)
        let start = calendar.date(byAdding: unit, value: offset, to: calendar.date(from: parts)!)!
        let shown = calendar.dateComponents([.year, .month, .day], from: start)
        let name = plan.daily ? String(format: "%@_%04d_%02d_%02d", plan.table, shown.year!, shown.month!, shown.day!)
                              : String(format: "%@_%04d_%02d", plan.table, shown.year!, shown.month!)
        return (start.millisecondsSince1970, name)
    }

    /// Creates the partitions of `positions` (the day of `date` and the next two) and `position_chunks` (twelve
    /// months before `date`'s to two after) that do not exist yet, moving the DEFAULT partition's rows of each new range into it; a
    /// range an existing partition already covers (a monthly one of an older schema) is left alone. Safe to call
    /// from several processes (an advisory lock serialises them) and often. `migrate()` and the retention
    /// service call it.
    public func ensurePartitions(around date: Date) async throws {
        try await storageErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await lockPartitionChanges(connection)
                for plan in [Self.positionPlan, Self.chunkPlan] {
                    let existing = try await partitions(connection, of: plan.table)
                    let ranges = existing.compactMap { partition in
                        Self.lowerBound(partition.bound).flatMap { lower in Self.upperBound(partition.bound).map { (lower, $0) } }
                    }
                    for offset in -plan.back...plan.ahead {
                        let period = Self.periodStart(date, plan, offset: offset)
                        let end = Self.periodStart(date, plan, offset: offset + 1).millis
                        guard !existing.contains(where: { $0.name == period.name }),
                              !ranges.contains(where: { $0.0 < end && period.millis < $0.1 }) else { continue }
                        // Created detached, filled with the DEFAULT partition's rows of its range, then attached:
                        // attaching checks that DEFAULT holds none of them any more.
                        try await connection.query(PostgresQuery(unsafeSQL: """
                            CREATE TABLE \(period.name) (LIKE \(plan.table) INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
                            """), logger: logger)
                        try await connection.query(PostgresQuery(unsafeSQL: """
                            WITH moved AS (DELETE FROM \(plan.table)_default WHERE \(plan.column) >= \(period.millis)
                                           AND \(plan.column) < \(end) RETURNING *)
                            INSERT INTO \(period.name) SELECT * FROM moved
                            """), logger: logger)
                        try await connection.query(PostgresQuery(unsafeSQL: """
                            ALTER TABLE \(plan.table) ATTACH PARTITION \(period.name) FOR VALUES FROM (\(period.millis)) TO (\(end))
                            """), logger: logger)
                    }
                }
            }
        }
    }

    /// Takes the transaction-scoped advisory lock that serialises creating partitions and retention's drops
    /// across the processes sharing the database. (Compaction's drops do not take it: they re-list the
    /// partitions under the table lock and skip one that is gone.)
    func lockPartitionChanges(_ connection: PostgresConnection) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: "SELECT " + Self.schemaLock(Self.partitionLock)), logger: logger)
    }

    /// Removes positions, gap markers and device events older than `date`; see ``PositionStore/deleteHistory(before:limit:)``.
    ///
    /// Partitions of `positions` and `position_chunks` that end by `date` are dropped whole (each counts as the
    /// points it held). Then at most `limit` of each of these go: older `positions` rows, chunks wholly older,
    /// chunks that straddle `date` (rewritten without their older points), gap markers and device events.
    public func deleteHistory(before date: Date, limit: Int) async throws -> Int {
        let cutoff = date.millisecondsSince1970
        let batch = max(1, limit)
        var removed = try await storageErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await lockPartitionChanges(connection)
                var removed = 0
                for plan in [Self.positionPlan, Self.chunkPlan] {
                    for (name, bound) in try await partitions(connection, of: plan.table) {
                        // "FOR VALUES FROM ('A') TO ('B')": dropped when B <= cutoff.
                        guard let upper = Self.upperBound(bound), upper <= cutoff else { continue }
                        removed += try await connection.query(PostgresQuery(unsafeSQL: "SELECT \(plan.points) FROM \(name)"), logger: logger)
                            .collect().first?.decode(Int.self) ?? 0
                        try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(name)"), logger: logger)
                    }
                }
                removed += try await connection.query("""
                    DELETE FROM positions WHERE (device_id, ts) IN (SELECT device_id, ts FROM positions WHERE ts < \(cutoff) LIMIT \(batch))
                    RETURNING 1
                    """, logger: logger).collect().count
                removed += try await connection.query("""
                    DELETE FROM position_chunks WHERE (device_id, first_ts) IN
                        (SELECT device_id, first_ts FROM position_chunks WHERE last_ts < \(cutoff) LIMIT \(batch))
                    RETURNING count
                    """, logger: logger).collect().reduce(0) { $0 + Int(try $1.decode(Int32.self)) }
                removed += try await connection.query("""
                    DELETE FROM gaps WHERE (device_id, start_ms, end_ms) IN
                        (SELECT device_id, start_ms, end_ms FROM gaps WHERE end_ms < \(cutoff) LIMIT \(batch))
                    RETURNING 1
                    """, logger: logger).collect().count
                removed += try await connection.query("""
                    DELETE FROM device_events WHERE id IN (SELECT id FROM device_events WHERE received_ms < \(cutoff) LIMIT \(batch))
                    RETURNING 1
                    """, logger: logger).collect().count
                return removed
            }
        }
        removed += try await trimChunks(before: cutoff, limit: batch)
        return removed
    }

    /// Rewrites up to `limit` chunks that hold points on both sides of `cutoff` without the older ones, each
    /// under its device's chunk lock; returns how many points went.
    func trimChunks(before cutoff: Int64, limit: Int) async throws -> Int {
        let devices = try await storageErrors {
            try await client.query("""
                SELECT DISTINCT device_id FROM position_chunks WHERE first_ts < \(cutoff) AND last_ts >= \(cutoff) LIMIT \(limit)
                """, logger: logger).collect().map { try $0.decode(String.self) }
        }
        var removed = 0
        for device in devices {
            removed += try await storageErrors {
                try await client.withTransaction(logger: logger) { connection in
                    try await lockChunks(connection, deviceID: device, shared: false)
                    let rows = try await connection.query("""
                        DELETE FROM position_chunks WHERE device_id = \(device) AND first_ts < \(cutoff) AND last_ts >= \(cutoff)
                        RETURNING first_ts, data
                        """, logger: logger).collect()
                    var kept = ChunkRows(), dropped = 0
                    for row in rows {
                        let (first, data) = try row.decode((Int64, ByteBuffer).self)
                        let points = try Self.decodeChunk(data, deviceID: device, first: first)
                        let newer = points.filter { $0.millis >= cutoff }
                        dropped += points.count - newer.count
                        kept.append(newer)
                    }
                    try await kept.insert(connection, deviceID: device, logger: logger)
                    return dropped
                }
            }
        }
        return removed
    }

    /// The partitions of `table` in the current schema, with their bound expressions
    /// (`FOR VALUES FROM ('A') TO ('B')`, or `DEFAULT`).
    func partitions(_ connection: PostgresConnection, of table: String) async throws -> [(name: String, bound: String)] {
        try await connection.query("""
            SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = \(table) AND p.relnamespace = c.relnamespace
            AND p.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
            """, logger: logger).collect().map { row in
            let (name, bound) = try row.decode((String, String).self)
            return (name, bound)
        }
    }

    /// The lower bound of a range partition's bound expression, or nil (DEFAULT).
    static func lowerBound(_ bound: String) -> Int64? {
        guard let from = bound.range(of: "FROM ('") else { return nil }
        return Int64(bound[from.upperBound...].prefix { $0 != "'" })
    }

    /// The upper bound of a range partition's bound expression, or nil (DEFAULT).
    static func upperBound(_ bound: String) -> Int64? {
        guard let to = bound.range(of: "TO ('") else { return nil }
        return Int64(bound[to.upperBound...].prefix { $0 != "'" })
    }
}

extension PostgresStore {
    /// The advisory lock class that serialises migrations.
    static let migrationLock: Int32 = 727_369
    /// The advisory lock class that serialises creating and dropping partitions.
    static let partitionLock: Int32 = 727_370

    /// The SQL call that takes the transaction-scoped advisory lock `lockClass` for this store's schema:
    /// `pg_advisory_xact_lock(class, hashtext(current_schema()))`.
    ///
    /// Every lock the store takes is scoped to its schema (the first of `search_path`), so the processes
    /// sharing one schema serialise as they must, while deployments in other schemas of the same database
    /// (and the test suite's one schema per test) never wait for each other. Before, the keys were
    /// database-wide: the whole test suite's migrations queued behind one another on one lock.
    /// Processes that share a schema must take the same key, so they must all run a version with
    /// schema-scoped locks (Docs/SERVER.md, "Advisory locks are per schema").
    static func schemaLock(_ lockClass: Int32) -> String {
        "pg_advisory_xact_lock(\(lockClass), hashtext(coalesce(current_schema(), '')))"
    }
}
