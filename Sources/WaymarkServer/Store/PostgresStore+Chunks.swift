import Foundation
import Logging
import NIOCore
import PostgresNIO

/// History in chunks: PostgreSQL keeps each finished UTC day of a device's points as a few rows of
/// `position_chunks` (``PositionChunkCodec``, 12–40 bytes a point) instead of one `positions` row per
/// point (about 160 bytes with its key).
///
/// - Ingest writes `positions` rows, partitioned by day. ``compactHistory(before:pointsPerTransaction:)`` (the
///   retention service runs it every hour) moves the rows of days that have ended into chunks and drops
///   each day partition once it is empty, so its space goes back to the file system at once.
/// - Reads merge both: a device's chunks are disjoint in time and at most ``PositionChunkCodec/maximumPoints``
///   long, so a page of positions decodes one or two of them.
/// - A point uploaded late for a day already compacted is checked against that day's chunks, so it is
///   stored once, as before; compaction merges it into the chunk on its next pass.
/// - Per-device advisory locks (``compactionLock``) order compaction, retention's trimming of chunks and the
///   ingest of points from ended days, so a chunk is never rewritten from a stale copy.
extension PostgresStore {
    static let dayMillis: Int64 = 86_400_000
    /// The advisory lock class of a device's chunks ("WMCH" in ASCII); the second key is `hashtext(device_id)`.
    static let compactionLock: Int32 = 0x574D_4348
    /// Chunk rows read per round trip while paging.
    static let chunksPerFetch = 4

    /// The first millisecond of the UTC day holding `millis`.
    static func dayStart(_ millis: Int64) -> Int64 {
        let remainder = millis % dayMillis
        return remainder < 0 ? millis - remainder - dayMillis : millis - remainder
    }

    /// Moves every position before the UTC day holding `horizon` (and never one of the current day) from
    /// `positions` into chunks, merging with chunks already stored, then drops the emptied day partitions
    /// and empties the DEFAULT partition's files when it holds no row. Returns how many positions moved.
    ///
    /// Each transaction moves at most `pointsPerTransaction` of one device's positions, so ingest and queries go
    /// on meanwhile and a long backlog (a bulk import) needs no more memory than one such batch.
    @discardableResult
    public func compactHistory(before horizon: Date, pointsPerTransaction: Int = 50_000) async throws -> Int {
        let cutoff = min(Self.dayStart(horizon.millisecondsSince1970), Self.dayStart(Date().millisecondsSince1970))
        let limit = max(1, pointsPerTransaction)
        var moved = 0
        var after = ""
        while !Task.isCancelled {
            let ids = try await storageErrors {
                try await client.query("SELECT id FROM devices WHERE id > \(after) ORDER BY id LIMIT 200", logger: logger)
                    .collect().map { try $0.decode(String.self) }
            }
            guard let last = ids.last else { break }
            for id in ids {
                while !Task.isCancelled {
                    let count = try await compactDevice(id, before: cutoff, limit: limit)
                    moved += count
                    if count < limit { break }
                }
            }
            after = last
        }
        try await dropCompactedPartitions(before: cutoff)
        return moved
    }

    /// Moves up to `limit` of the device's oldest positions before `cutoff` into its chunks, in one transaction.
    func compactDevice(_ deviceID: String, before cutoff: Int64, limit: Int) async throws -> Int {
        try await storageErrors {
            try await client.withTransaction(logger: logger) { connection in
                try await lockChunks(connection, deviceID: deviceID, shared: false)
                let rows = try await connection.query("""
                    DELETE FROM positions WHERE device_id = \(deviceID) AND ts IN
                        (SELECT ts FROM positions WHERE device_id = \(deviceID) AND ts < \(cutoff) ORDER BY ts LIMIT \(limit))
                    RETURNING \(unescaped: Self.positionColumns), received_ms
                    """, logger: logger).collect()
                guard !rows.isEmpty else { return 0 }
                var byDay: [Int64: [ChunkPoint]] = [:]
                for row in rows {
                    let position = try Self.position(from: row)
                    let received = try row.makeRandomAccess()[14].decode(Int64.self)
                    byDay[Self.dayStart(position.timestampMillis), default: []]
                        .append(ChunkPoint(position: position, receivedMillis: received))
                }
                try await mergeIntoChunks(connection, deviceID: deviceID, byDay: byDay)
                return rows.count
            }
        }
    }

    /// Rewrites the device's chunks of each day in `byDay` with those points added (a point already in a chunk
    /// keeps its stored copy).
    func mergeIntoChunks(_ connection: PostgresConnection, deviceID: String, byDay: [Int64: [ChunkPoint]]) async throws {
        guard let firstDay = byDay.keys.min(), let lastDay = byDay.keys.max() else { return }
        var merged: [Int64: [Int64: ChunkPoint]] = [:]
        var replaced: [Int64] = []
        let existing = try await connection.query("""
            SELECT first_ts, data FROM position_chunks WHERE device_id = \(deviceID)
              AND first_ts >= \(firstDay) AND first_ts < \(lastDay + Self.dayMillis) FOR UPDATE
            """, logger: logger).collect()
        for row in existing {
            let (first, data) = try row.decode((Int64, ByteBuffer).self)
            guard byDay[Self.dayStart(first)] != nil else { continue }
            replaced.append(first)
            for point in try Self.decodeChunk(data, deviceID: deviceID, first: first) {
                merged[Self.dayStart(first), default: [:]][point.millis] = point
            }
        }
        for (day, points) in byDay {
            for point in points where merged[day]?[point.millis] == nil { merged[day, default: [:]][point.millis] = point }
        }
        var chunks = ChunkRows()
        for day in merged.keys.sorted() {
            chunks.append(merged[day]!.values.sorted { $0.millis < $1.millis })
        }
        if !replaced.isEmpty {
            try await connection.query("""
                DELETE FROM position_chunks WHERE device_id = \(deviceID) AND first_ts = ANY(\(replaced)::int8[])
                """, logger: logger)
        }
        try await chunks.insert(connection, deviceID: deviceID, logger: logger)
    }

    /// Takes the device's chunk lock for the transaction: exclusive to rewrite chunks, shared to read them
    /// for the duplicate check of ingest.
    func lockChunks(_ connection: PostgresConnection, deviceID: String, shared: Bool) async throws {
        let function = shared ? "pg_advisory_xact_lock_shared" : "pg_advisory_xact_lock"
        try await connection.query("SELECT \(unescaped: function)(\(Self.compactionLock), hashtext(\(deviceID)))", logger: logger)
    }

    /// `positions` without those already in the device's chunks; only points before `today` can be there.
    func withoutCompacted(_ connection: PostgresConnection, deviceID: String, _ positions: [Position],
                          before today: Int64) async throws -> [Position] {
        let compacted = try await compactedTimestamps(connection, of: [deviceID: positions], before: today)[deviceID] ?? []
        return compacted.isEmpty ? positions : positions.filter { !compacted.contains($0.timestampMillis) }
    }

    /// For each device, which of its `positions` timestamps before `today` its chunks already hold (only
    /// devices with such points are keys). Takes each such device's chunk lock shared, in id order, and reads
    /// the chunks of all of them in one query: one round trip each, however many devices a group of
    /// requests has.
    func compactedTimestamps(_ connection: PostgresConnection, of positions: [String: [Position]],
                             before today: Int64) async throws -> [String: Set<Int64>] {
        var devices: [String] = [], earliest: [Int64] = [], latest: [Int64] = []
        for (device, points) in positions.sorted(by: { $0.key < $1.key }) {
            let old = points.lazy.map(\.timestampMillis).filter { $0 < today }
            guard let first = old.min(), let last = old.max() else { continue }
            devices.append(device)
            earliest.append(first)
            latest.append(last)
        }
        guard !devices.isEmpty else { return [:] }
        let rows: [PostgresRow]
        if devices.count == 1 {
            // One device (every request committed alone): the plain index probe.
            try await lockChunks(connection, deviceID: devices[0], shared: true)
            rows = try await connection.query("""
                SELECT device_id, first_ts, data FROM position_chunks WHERE device_id = \(devices[0])
                  AND first_ts > \(earliest[0] - Self.dayMillis) AND first_ts <= \(latest[0]) AND last_ts >= \(earliest[0])
                """, logger: logger).collect()
        } else {
            // Shared locks, one per device (they wait only for a compaction of that device); every row read, so
            // each lock has been taken when the next statement starts.
            _ = try await connection.query("""
                SELECT pg_advisory_xact_lock_shared(\(Self.compactionLock), hashtext(d)) FROM unnest(\(devices)::text[]) AS d
                """, logger: logger).collect()
            rows = try await connection.query("""
                SELECT c.device_id, c.first_ts, c.data
                FROM unnest(\(devices)::text[], \(earliest)::int8[], \(latest)::int8[]) AS r(device_id, earliest, latest)
                JOIN position_chunks c ON c.device_id = r.device_id AND c.first_ts > r.earliest - \(Self.dayMillis)
                                      AND c.first_ts <= r.latest AND c.last_ts >= r.earliest
                """, logger: logger).collect()
        }
        var compacted: [String: Set<Int64>] = [:]
        for row in rows {
            let (device, first, data) = try row.decode((String, Int64, ByteBuffer).self)
            do {
                compacted[device, default: []].formUnion(try PositionChunkCodec.timestamps(Array(data.readableBytesView)))
            } catch {
                throw Self.unreadable(error, deviceID: device, first: first)
            }
        }
        return compacted
    }

    /// The first `limit` points from the device's chunks strictly between `lower` and `upper`, in time order
    /// (fewer when the chunks hold fewer).
    func chunkPositions(_ connection: PostgresConnection, deviceID: String, lower: Int64, upper: Int64,
                        limit: Int) async throws -> [Position] {
        var points: [Position] = []
        // A chunk lies within one day, so one that starts a day or more before `lower` ends before it.
        var cursor = lower > Int64.min + Self.dayMillis ? lower - Self.dayMillis : Int64.min
        while points.count < limit {
            let rows = try await connection.query("""
                SELECT first_ts, data FROM position_chunks WHERE device_id = \(deviceID)
                  AND first_ts > \(cursor) AND first_ts < \(upper) AND last_ts > \(lower)
                ORDER BY first_ts LIMIT \(Self.chunksPerFetch)
                """, logger: logger).collect()
            for row in rows {
                let (first, data) = try row.decode((Int64, ByteBuffer).self)
                cursor = first
                for point in try Self.decodeChunk(data, deviceID: deviceID, first: first) where point.millis > lower && point.millis < upper {
                    points.append(point.position)
                }
            }
            if rows.count < Self.chunksPerFetch { break }
        }
        return Array(points.prefix(limit))
    }

    /// The latest point in the device's chunks.
    func lastChunkPosition(_ connection: PostgresConnection, deviceID: String) async throws -> Position? {
        let row = try await connection.query("""
            SELECT first_ts, last_point FROM position_chunks WHERE device_id = \(deviceID) ORDER BY first_ts DESC LIMIT 1
            """, logger: logger).collect().first
        guard let row else { return nil }
        let (first, data) = try row.decode((Int64, ByteBuffer).self)
        return try Self.decodeChunk(data, deviceID: deviceID, first: first).last?.position
    }

    /// The device's latest position, from `positions` or from its chunks.
    func lastPosition(_ connection: PostgresConnection, deviceID: String) async throws -> Position? {
        let hot = try await connection.query("""
            SELECT \(unescaped: Self.positionColumns) FROM positions WHERE device_id = \(deviceID) ORDER BY ts DESC LIMIT 1
            """, logger: logger).collect().first.map(Self.position(from:))
        // Chunks hold only days before the current one.
        if let hot, hot.timestampMillis >= Self.dayStart(Date().millisecondsSince1970) { return hot }
        guard let cold = try await lastChunkPosition(connection, deviceID: deviceID) else { return hot }
        guard let hot else { return cold }
        return hot.timestampMillis >= cold.timestampMillis ? hot : cold
    }

    /// Every device's latest point in its chunks.
    func lastChunkPositions(_ connection: PostgresConnection) async throws -> [String: Position] {
        var result: [String: Position] = [:]
        let rows = try await connection.query("""
            SELECT d.id, c.first_ts, c.last_point FROM devices d CROSS JOIN LATERAL
                (SELECT first_ts, last_point FROM position_chunks WHERE device_id = d.id ORDER BY first_ts DESC LIMIT 1) c
            """, logger: logger).collect()
        for row in rows {
            let (device, first, data) = try row.decode((String, Int64, ByteBuffer).self)
            result[device] = try Self.decodeChunk(data, deviceID: device, first: first).last?.position
        }
        return result
    }

    /// A stored chunk's points, or a storage error naming the chunk.
    static func decodeChunk(_ data: ByteBuffer, deviceID: String, first: Int64) throws -> [ChunkPoint] {
        do {
            return try PositionChunkCodec.decode(Array(data.readableBytesView), deviceID: deviceID)
        } catch {
            throw unreadable(error, deviceID: deviceID, first: first)
        }
    }

    static func unreadable(_ error: any Error, deviceID: String, first: Int64) -> ServerError {
        ServerError(.storage, "PostgreSQL: the chunk of device \(deviceID) starting at \(first) ms is unreadable (\(error))")
    }

    /// Drops the `positions` partitions that end by `cutoff` and hold no row, and truncates an empty DEFAULT
    /// partition, so the space of compacted rows (and of their index entries) goes back to the file system.
    /// Each candidate is vacuumed first, so the check for rows under the table lock is short; when the lock is
    /// not granted within 5 s (a long query is reading), the next pass tries again.
    func dropCompactedPartitions(before cutoff: Int64) async throws {
        let candidates = try await storageErrors {
            try await client.withConnection { connection in
                try await partitions(connection, of: "positions").filter { Self.upperBound($0.bound).map { $0 <= cutoff } ?? true }
            }
        }
        var worthLocking = false
        for candidate in candidates {
            guard let (occupied, bytes) = try await vacuumedUse(candidate.name) else { continue }
            worthLocking = worthLocking || (!occupied && (Self.upperBound(candidate.bound) != nil || bytes > 16_384))
        }
        // The table lock pauses ingest for a moment: taken only when a partition can go or shrink.
        guard worthLocking else { return }
        do {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SET LOCAL lock_timeout = '5s'", logger: logger)
                try await connection.query("LOCK TABLE positions IN ACCESS EXCLUSIVE MODE", logger: logger)
                let present = Set(try await partitions(connection, of: "positions").map(\.name))
                for candidate in candidates where present.contains(candidate.name) {
                    let (occupied, bytes) = try await partitionUse(candidate.name, connection)
                    guard !occupied else { continue }
                    if Self.upperBound(candidate.bound) != nil {
                        try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(candidate.name)"), logger: logger)
                    } else if bytes > 16_384 {
                        try await connection.query(PostgresQuery(unsafeSQL: "TRUNCATE \(candidate.name)"), logger: logger)
                    }
                }
            }
        } catch let error as PostgresTransactionError {
            if let inner = error.closureError as? PSQLError, inner.serverInfo?[.sqlState] == "55P03" {
                logger.info("compaction left emptied partitions for the next pass: the table lock was not granted in 5 s")
                return
            }
            throw Self.serverError(error)
        } catch {
            throw Self.serverError(error)
        }
    }
}

extension PostgresStore {
    /// Vacuums a partition (so that an emptied one has no pages left to scan), then ``partitionUse(_:_:)``;
    /// nil when the partition no longer exists (another server on the same database dropped it a moment ago).
    func vacuumedUse(_ name: String) async throws -> (occupied: Bool, bytes: Int64)? {
        do {
            return try await client.withConnection { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "VACUUM \(name)"), logger: logger)
                return try await partitionUse(name, connection)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {
            return nil
        } catch {
            throw Self.serverError(error)
        }
    }

    /// Whether a partition holds a row, and its heap and index bytes.
    func partitionUse(_ name: String, _ connection: PostgresConnection? = nil) async throws -> (occupied: Bool, bytes: Int64) {
        let sql = PostgresQuery(unsafeSQL: """
            SELECT EXISTS (SELECT 1 FROM \(name)), pg_relation_size('\(name)') + pg_indexes_size('\(name)')
            """)
        let rows = if let connection {
            try await connection.query(sql, logger: logger).collect()
        } else {
            try await storageErrors { try await client.query(sql, logger: logger).collect() }
        }
        return try rows.first?.decode((Bool, Int64).self) ?? (true, 0)
    }
}

/// New chunk rows as parallel arrays for one `unnest` insert.
struct ChunkRows {
    var first: [Int64] = [], last: [Int64] = [], count: [Int32] = []
    var data: [ByteBuffer] = [], lastPoint: [ByteBuffer] = []

    /// Adds one day's points (sorted by time, no time twice), split into chunks of at most
    /// ``PositionChunkCodec/maximumPoints``.
    mutating func append(_ points: [ChunkPoint]) {
        var start = 0
        while start < points.count {
            let slice = Array(points[start..<min(points.count, start + PositionChunkCodec.maximumPoints)])
            first.append(slice[0].millis)
            last.append(slice[slice.count - 1].millis)
            count.append(Int32(slice.count))
            data.append(ByteBuffer(bytes: PositionChunkCodec.encode(slice)))
            lastPoint.append(ByteBuffer(bytes: PositionChunkCodec.encode([slice[slice.count - 1]])))
            start += slice.count
        }
    }

    func insert(_ connection: PostgresConnection, deviceID: String, logger: Logger) async throws {
        guard !first.isEmpty else { return }
        try await connection.query("""
            INSERT INTO position_chunks (device_id, first_ts, last_ts, count, data, last_point)
            SELECT \(deviceID), c.first_ts, c.last_ts, c.count, c.data, c.last_point
            FROM unnest(\(first)::int8[], \(last)::int8[], \(count)::int4[], \(data)::bytea[], \(lastPoint)::bytea[])
                 AS c(first_ts, last_ts, count, data, last_point)
            """, logger: logger)
    }
}
