import Foundation
import PostgresNIO

extension PostgresStore {
    /// The schema history, one statement per entry. Append; never edit a shipped migration.
    static let migrations: [(name: String, statements: [String])] = [
        ("v1-devices-positions", [
            """
            CREATE TABLE devices (
                id text PRIMARY KEY,
                name text NOT NULL,
                token_hash text NOT NULL UNIQUE,
                created_ms bigint NOT NULL,
                revoked_ms bigint
            )
            """,
            """
            CREATE TABLE positions (
                device_id text NOT NULL REFERENCES devices(id),
                ts bigint NOT NULL,
                lat double precision NOT NULL,
                lon double precision NOT NULL,
                alt double precision,
                h_acc double precision,
                v_acc double precision,
                speed double precision,
                course double precision,
                battery double precision,
                charging boolean,
                activity text,
                source text NOT NULL,
                received_ms bigint NOT NULL,
                PRIMARY KEY (device_id, ts),
                CHECK (lat BETWEEN -90 AND 90 AND lon BETWEEN -180 AND 180),
                CHECK (battery IS NULL OR battery BETWEEN 0 AND 1)
            )
            """,
            """
            CREATE TABLE ingest_batches (
                device_id text NOT NULL REFERENCES devices(id),
                idem_key text NOT NULL,
                received_ms bigint NOT NULL,
                stored integer NOT NULL,
                duplicates integer NOT NULL,
                PRIMARY KEY (device_id, idem_key)
            )
            """,
            "CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL)",
        ]),
        ("v2-fences", [
            """
            CREATE TABLE fences (
                id text PRIMARY KEY,
                name text NOT NULL,
                geometry text NOT NULL,
                radius_m double precision,
                dwell_s double precision,
                created_ms bigint NOT NULL
            )
            """,
            "CREATE TABLE fence_generation (id integer PRIMARY KEY CHECK (id = 1), generation bigint NOT NULL)",
            "INSERT INTO fence_generation (id, generation) VALUES (1, 0)",
            """
            CREATE TABLE fence_states (
                device_id text PRIMARY KEY REFERENCES devices(id),
                last_ts bigint,
                last_lat double precision,
                last_lon double precision,
                inside text NOT NULL,
                dwelled text NOT NULL
            )
            """,
            """
            CREATE TABLE fence_events (
                id bigserial PRIMARY KEY,
                device_id text NOT NULL REFERENCES devices(id),
                fence_id text NOT NULL,
                kind text NOT NULL,
                ts bigint NOT NULL,
                lat double precision NOT NULL,
                lon double precision NOT NULL,
                created_ms bigint NOT NULL
            )
            """,
            "CREATE INDEX fence_events_device ON fence_events (device_id, id)",
        ]),
        ("v3-webhooks-outbox", [
            "CREATE TABLE webhooks (id text PRIMARY KEY, url text NOT NULL, secret text NOT NULL, created_ms bigint NOT NULL)",
            """
            CREATE TABLE outbox (
                id bigserial PRIMARY KEY,
                webhook_id text NOT NULL,
                event_id bigint NOT NULL,
                payload text NOT NULL,
                state text NOT NULL,
                attempts integer NOT NULL DEFAULT 0,
                next_attempt_ms bigint NOT NULL,
                last_error text,
                created_ms bigint NOT NULL,
                updated_ms bigint NOT NULL,
                UNIQUE (webhook_id, event_id)
            )
            """,
            "CREATE INDEX outbox_due ON outbox (state, next_attempt_ms)",
        ]),
        ("v4-gaps", [
            """
            CREATE TABLE gaps (
                device_id text NOT NULL REFERENCES devices(id),
                start_ms bigint NOT NULL,
                end_ms bigint NOT NULL,
                reason text NOT NULL,
                ride_id text,
                received_ms bigint NOT NULL,
                PRIMARY KEY (device_id, start_ms, end_ms)
            )
            """,
        ]),
        ("v5-device-events", [
            """
            CREATE TABLE device_events (
                id bigserial PRIMARY KEY,
                device_id text NOT NULL REFERENCES devices(id),
                kind text NOT NULL,
                ts_ms bigint,
                received_ms bigint NOT NULL,
                detail text NOT NULL,
                digest text NOT NULL,
                UNIQUE (device_id, digest)
            )
            """,
            "CREATE INDEX device_events_by_device ON device_events (device_id, id)",
        ]),
        // Positions partitioned by time (native declarative partitioning; partitions created ahead by
        // ``PostgresStore/ensurePartitions(around:)``, monthly until v7, daily since; a DEFAULT partition
        // catches the rest), so retention drops whole partitions and a partition's index stays small.
        ("v6-positions-partitioned", [
            "ALTER TABLE positions RENAME TO positions_unpartitioned",
            "ALTER TABLE positions_unpartitioned RENAME CONSTRAINT positions_pkey TO positions_unpartitioned_pkey",
            // The same columns, NOT NULLs and checks as the table of v1; keys added below.
            """
            CREATE TABLE positions (LIKE positions_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
            PARTITION BY RANGE (ts)
            """,
            "ALTER TABLE positions ADD PRIMARY KEY (device_id, ts)",
            "ALTER TABLE positions ADD CONSTRAINT positions_device_fkey FOREIGN KEY (device_id) REFERENCES devices(id)",
            "CREATE TABLE positions_default PARTITION OF positions DEFAULT",
            "INSERT INTO positions SELECT * FROM positions_unpartitioned",
            "DROP TABLE positions_unpartitioned",
        ]),
        // Finished days of positions as compact chunks (PostgresStore+Chunks.swift), partitioned by month like
        // the positions they replace; ensurePartitions creates the months and, from now on, day partitions of
        // `positions` (monthly ones made by v6 stay until compaction empties and drops them). `last_point` repeats
        // the chunk's last point as a one-point chunk, so the device list reads every device's latest point
        // without decoding whole chunks.
        ("v7-position-chunks", [
            """
            CREATE TABLE position_chunks (
                device_id text NOT NULL REFERENCES devices(id),
                first_ts bigint NOT NULL,
                last_ts bigint NOT NULL,
                count integer NOT NULL,
                data bytea NOT NULL,
                last_point bytea NOT NULL,
                PRIMARY KEY (device_id, first_ts),
                CHECK (count > 0 AND last_ts >= first_ts)
            ) PARTITION BY RANGE (first_ts)
            """,
            "CREATE TABLE position_chunks_default PARTITION OF position_chunks DEFAULT",
        ]),
        // The fingerprint (route and body digest) of the request that used a key: a reuse with another body is refused.
        ("v8-idempotency-digest", ["ALTER TABLE ingest_batches ADD COLUMN request_digest text"]),
        // Webhook deliveries of fence events a device reported (`device_events`) beside those the server
        // decided (`fence_events`): a delivery names its event's table, and the unique key includes it.
        ("v9-outbox-event-source", [
            "ALTER TABLE outbox ADD COLUMN event_source text NOT NULL DEFAULT 'server'",
            "ALTER TABLE outbox DROP CONSTRAINT outbox_webhook_id_event_id_key",
            "ALTER TABLE outbox ADD CONSTRAINT outbox_webhook_source_event_key UNIQUE (webhook_id, event_source, event_id)",
            // `device-events?kind=` reads one kind of a device's records in id order.
            "CREATE INDEX device_events_by_kind ON device_events (device_id, kind, id)",
        ]),
        // Each point's honesty marks (`Fix.packedFlags`: bit 0 origin known, 1 simulated by software, 2 produced
        // by an accessory, 3 implies an impossible speed); 0 for points stored before. Added to the partitioned
        // table, so every partition has it; chunks carry the marks from their version 2 on (PositionChunkCodec).
        ("v10-position-flags", ["ALTER TABLE positions ADD COLUMN flags smallint NOT NULL DEFAULT 0"]),
    ]

    /// Creates or upgrades the schema; see ``StoreSchema/migrate()``.
    public func migrate() async throws {
        try await storageErrors {
            try await client.withTransaction(logger: logger) { connection in
                // Serialises concurrent migrations of this schema from several processes.
                try await connection.query(PostgresQuery(unsafeSQL: "SELECT " + Self.schemaLock(Self.migrationLock)),
                                           logger: logger)
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                    logger: logger)
                let applied = try await connection.query("SELECT name FROM schema_migrations", logger: logger)
                    .collect().map { try $0.decode(String.self) }
                for migration in Self.migrations where !applied.contains(migration.name) {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO schema_migrations (name) VALUES (\(migration.name))",
                                               logger: logger)
                }
            }
        }
        try await ensurePartitions(around: Date())
    }
}

extension PostgresStore {
    /// Runs one SQL statement without parameters (administration and tests).
    func execute(unsafeSQL sql: String) async throws {
        try await storageErrors {
            try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        }
    }
}
