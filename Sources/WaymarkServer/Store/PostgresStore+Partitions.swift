import Foundation
import PostgresNIO

/// Monthly partitions of `positions` and retention by whole partitions.
extension PostgresStore {
    /// How many months ahead of the present partitions exist (points from a phone whose clock runs
    /// ahead, up to the 24 h the validator allows, land in a real partition).
    static let monthsAhead = 2
    /// How many months back partitions are created; older points (a backfill) stay in the DEFAULT partition.
    static let monthsBack = 12

    /// The first millisecond of the UTC month `offset` months after the one holding `date`.
    static func monthStart(_ date: Date, offset: Int = 0) -> (millis: Int64, name: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month], from: date)
        let start = calendar.date(byAdding: .month, value: offset, to: calendar.date(from: parts)!)!
        let shown = calendar.dateComponents([.year, .month], from: start)
        return (start.millisecondsSince1970, String(format: "positions_%04d_%02d", shown.year!, shown.month!))
    }

    /// Creates the monthly partitions from ``monthsBack`` months before `date`'s month to ``monthsAhead``
    /// months after it, moving the DEFAULT partition's rows of each new month into it. Safe to call from several processes (an advisory lock serialises them) and often
    /// (existing partitions are left alone). `migrate()` and the retention service call it.
    public func ensurePartitions(around date: Date) async throws {
        try await storageErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(727370)", logger: logger)
                let existing = Set(try await partitions(connection).map(\.name))
                for offset in -Self.monthsBack...Self.monthsAhead {
                    let month = Self.monthStart(date, offset: offset)
                    guard !existing.contains(month.name) else { continue }
                    let end = Self.monthStart(date, offset: offset + 1).millis
                    // Created detached, filled with the DEFAULT partition's rows of its month, then attached:
                    // attaching checks that DEFAULT holds none of them any more.
                    try await connection.query(PostgresQuery(unsafeSQL: """
                        CREATE TABLE \(month.name) (LIKE positions INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
                        """), logger: logger)
                    try await connection.query(PostgresQuery(unsafeSQL: """
                        WITH moved AS (DELETE FROM positions_default WHERE ts >= \(month.millis) AND ts < \(end) RETURNING *)
                        INSERT INTO \(month.name) SELECT * FROM moved
                        """), logger: logger)
                    try await connection.query(PostgresQuery(unsafeSQL: """
                        ALTER TABLE positions ATTACH PARTITION \(month.name) FOR VALUES FROM (\(month.millis)) TO (\(end))
                        """), logger: logger)
                }
            }
        }
    }

    /// Removes positions, gap markers and device events older than `date`; see ``Store/deleteHistory(before:limit:)``.
    ///
    /// Monthly partitions that end before `date` are dropped whole (each counts as its row count); then at most
    /// `limit` older rows of the partition holding `date` and of the DEFAULT partition are deleted.
    public func deleteHistory(before date: Date, limit: Int) async throws -> Int {
        let cutoff = date.millisecondsSince1970
        return try await storageErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(727370)", logger: logger)
                var removed = 0
                for (name, bound) in try await partitions(connection) {
                    // "FOR VALUES FROM ('A') TO ('B')": dropped when B <= cutoff.
                    guard let upper = Self.upperBound(bound), upper <= cutoff else { continue }
                    removed += try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(name)"), logger: logger)
                        .collect().first?.decode(Int.self) ?? 0
                    try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(name)"), logger: logger)
                }
                let batch = max(1, limit)
                removed += try await connection.query("""
                    DELETE FROM positions WHERE (device_id, ts) IN (SELECT device_id, ts FROM positions WHERE ts < \(cutoff) LIMIT \(batch))
                    RETURNING 1
                    """, logger: logger).collect().count
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
    }

    /// The partitions of `positions` in the current schema, with their bound expressions
    /// (`FOR VALUES FROM ('A') TO ('B')`, or `DEFAULT`).
    func partitions(_ connection: PostgresConnection) async throws -> [(name: String, bound: String)] {
        try await connection.query("""
            SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'positions' AND p.relnamespace = c.relnamespace
            AND p.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
            """, logger: logger).collect().map { row in
            let (name, bound) = try row.decode((String, String).self)
            return (name, bound)
        }
    }

    /// The upper bound of a range partition's bound expression, or nil (DEFAULT).
    static func upperBound(_ bound: String) -> Int64? {
        guard let to = bound.range(of: "TO ('") else { return nil }
        return Int64(bound[to.upperBound...].prefix { $0 != "'" })
    }
}
