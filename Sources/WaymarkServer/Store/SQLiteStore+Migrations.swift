import GRDB

extension SQLiteStore {
    /// The schema history. Append migrations; never edit a shipped one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-devices-positions") { db in
            try db.execute(sql: """
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE,
                    created_ms INTEGER NOT NULL,
                    revoked_ms INTEGER
                );
                CREATE TABLE positions (
                    device_id TEXT NOT NULL REFERENCES devices(id),
                    ts INTEGER NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    alt REAL,
                    h_acc REAL,
                    v_acc REAL,
                    speed REAL,
                    course REAL,
                    battery REAL,
                    charging INTEGER,
                    activity TEXT,
                    source TEXT NOT NULL,
                    received_ms INTEGER NOT NULL,
                    PRIMARY KEY (device_id, ts),
                    CHECK (lat BETWEEN -90 AND 90 AND lon BETWEEN -180 AND 180),
                    CHECK (battery IS NULL OR battery BETWEEN 0 AND 1)
                ) WITHOUT ROWID;
                CREATE TABLE ingest_batches (
                    device_id TEXT NOT NULL REFERENCES devices(id),
                    idem_key TEXT NOT NULL,
                    received_ms INTEGER NOT NULL,
                    stored INTEGER NOT NULL,
                    duplicates INTEGER NOT NULL,
                    PRIMARY KEY (device_id, idem_key)
                ) WITHOUT ROWID;
                CREATE TABLE settings (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2-fences") { db in
            try db.execute(sql: """
                CREATE TABLE fences (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    geometry TEXT NOT NULL,
                    radius_m REAL,
                    dwell_s REAL,
                    created_ms INTEGER NOT NULL
                );
                CREATE TABLE fence_generation (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    generation INTEGER NOT NULL
                );
                INSERT INTO fence_generation (id, generation) VALUES (1, 0);
                CREATE TABLE fence_states (
                    device_id TEXT PRIMARY KEY REFERENCES devices(id),
                    last_ts INTEGER,
                    last_lat REAL,
                    last_lon REAL,
                    inside TEXT NOT NULL,
                    dwelled TEXT NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE fence_events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    device_id TEXT NOT NULL REFERENCES devices(id),
                    fence_id TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    ts INTEGER NOT NULL,
                    lat REAL NOT NULL,
                    lon REAL NOT NULL,
                    created_ms INTEGER NOT NULL
                );
                CREATE INDEX fence_events_device ON fence_events (device_id, id);
                """)
        }
        migrator.registerMigration("v3-webhooks-outbox") { db in
            try db.execute(sql: """
                CREATE TABLE webhooks (
                    id TEXT PRIMARY KEY,
                    url TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    created_ms INTEGER NOT NULL
                );
                CREATE TABLE outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    webhook_id TEXT NOT NULL,
                    event_id INTEGER NOT NULL,
                    payload TEXT NOT NULL,
                    state TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_ms INTEGER NOT NULL,
                    last_error TEXT,
                    created_ms INTEGER NOT NULL,
                    updated_ms INTEGER NOT NULL,
                    UNIQUE (webhook_id, event_id)
                );
                CREATE INDEX outbox_due ON outbox (state, next_attempt_ms);
                """)
        }
        migrator.registerMigration("v4-gaps") { db in
            try db.execute(sql: """
                CREATE TABLE gaps (
                    device_id TEXT NOT NULL REFERENCES devices(id),
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER NOT NULL,
                    reason TEXT NOT NULL,
                    ride_id TEXT,
                    received_ms INTEGER NOT NULL,
                    PRIMARY KEY (device_id, start_ms, end_ms)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v5-device-events") { db in
            try db.execute(sql: """
                CREATE TABLE device_events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    device_id TEXT NOT NULL REFERENCES devices(id),
                    kind TEXT NOT NULL,
                    ts_ms INTEGER,
                    received_ms INTEGER NOT NULL,
                    detail TEXT NOT NULL,
                    digest TEXT NOT NULL,
                    UNIQUE (device_id, digest)
                );
                CREATE INDEX device_events_by_device ON device_events (device_id, id);
                """)
        }
        // The fingerprint (route and body digest) of the request that used a key: a reuse with another body is refused.
        migrator.registerMigration("v6-idempotency-digest") { db in
            try db.execute(sql: "ALTER TABLE ingest_batches ADD COLUMN request_digest TEXT")
        }
        // Webhook deliveries of fence events a device reported (`device_events`) beside those the server
        // decided (`fence_events`): a delivery names its event's table in `event_source`, and the unique
        // key includes it. SQLite cannot change a table's constraint, so the table is rebuilt, keeping its
        // rows and recreating every index it had.
        migrator.registerMigration("v7-outbox-event-source") { db in
            let indexes = try String.fetchAll(db, sql: """
                SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox' AND sql IS NOT NULL
                """)
            let columns = "id, webhook_id, event_id, payload, state, attempts, next_attempt_ms, last_error, created_ms, updated_ms"
            try db.execute(sql: """
                CREATE TABLE outbox_v7 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    webhook_id TEXT NOT NULL,
                    event_source TEXT NOT NULL DEFAULT 'server',
                    event_id INTEGER NOT NULL,
                    payload TEXT NOT NULL,
                    state TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_ms INTEGER NOT NULL,
                    last_error TEXT,
                    created_ms INTEGER NOT NULL,
                    updated_ms INTEGER NOT NULL,
                    UNIQUE (webhook_id, event_source, event_id)
                );
                INSERT INTO outbox_v7 (\(columns)) SELECT \(columns) FROM outbox;
                DROP TABLE outbox;
                ALTER TABLE outbox_v7 RENAME TO outbox;
                """)
            for index in indexes { try db.execute(sql: index) }
            // `device-events?kind=` reads one kind of a device's records in id order.
            try db.execute(sql: "CREATE INDEX device_events_by_kind ON device_events (device_id, kind, id)")
        }
        // Each point's honesty marks (`Fix.packedFlags`: bit 0 origin known, 1 simulated by software,
        // 2 produced by an accessory, 3 implies an impossible speed); 0 for points stored before.
        migrator.registerMigration("v8-position-flags") { db in
            try db.execute(sql: "ALTER TABLE positions ADD COLUMN flags INTEGER NOT NULL DEFAULT 0")
        }
        return migrator
    }
}
