import GRDB

extension RideStore {
    /// Schema version names, oldest first. Never edit a shipped migration: add a new one.
    enum Migration {
        /// Rides, fixes (unique per ride and millisecond) and gap markers.
        static let v1 = "v1-rides-fixes-gaps"
        /// Upload state: batches with their idempotency keys, quarantine, and each fix's batch.
        static let v2 = "v2-upload-batches"
        /// The upload queue's retry state, and gap markers riding along in upload batches.
        static let v3 = "v3-backoff-gap-upload"
        static let v4 = "v4-ride-checkpoints"
        /// The device's own geofence events, kept until the server acknowledged them.
        static let v5 = "v5-fence-events"
        /// The phone's copy of the server's fences, with its ETag (`FenceSync`).
        static let v6 = "v6-server-fence-copy"
        /// Each fix's honesty marks (`Fix.packedFlags`: its origin as iOS reported it, the
        /// impossible-speed flag); 0, an unknown origin and no flag, for fixes stored before.
        static let v7 = "v7-fix-flags"
    }

    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(Migration.v1) { db in
            try db.execute(sql: """
                CREATE TABLE rides (
                    id TEXT PRIMARY KEY NOT NULL,
                    started_ms INTEGER NOT NULL,
                    ended_ms INTEGER,
                    state TEXT NOT NULL,
                    policy TEXT
                );
                CREATE TABLE fixes (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    ride_id TEXT NOT NULL REFERENCES rides(id) ON DELETE CASCADE,
                    timestamp_ms INTEGER NOT NULL,
                    latitude REAL NOT NULL,
                    longitude REAL NOT NULL,
                    altitude REAL,
                    horizontal_accuracy REAL,
                    vertical_accuracy REAL,
                    speed REAL,
                    course REAL,
                    source TEXT NOT NULL,
                    payload_bytes INTEGER NOT NULL,
                    UNIQUE (ride_id, timestamp_ms)
                );
                CREATE TABLE gaps (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    ride_id TEXT NOT NULL REFERENCES rides(id) ON DELETE CASCADE,
                    start_ms INTEGER NOT NULL,
                    end_ms INTEGER NOT NULL,
                    reason TEXT NOT NULL
                );
                CREATE INDEX gaps_ride ON gaps(ride_id, start_ms);
                """)
        }
        migrator.registerMigration(Migration.v2) { db in
            try db.execute(sql: """
                CREATE TABLE upload_batches (
                    key TEXT PRIMARY KEY NOT NULL,
                    seq INTEGER NOT NULL,
                    created_ms INTEGER NOT NULL,
                    state TEXT NOT NULL DEFAULT 'pending',
                    reason TEXT,
                    point_count INTEGER NOT NULL
                );
                CREATE INDEX upload_batches_order ON upload_batches(state, seq);
                ALTER TABLE fixes ADD COLUMN batch_key TEXT REFERENCES upload_batches(key) ON DELETE SET NULL;
                CREATE INDEX fixes_batch ON fixes(batch_key, timestamp_ms);
                """)
        }
        migrator.registerMigration(Migration.v3) { db in
            try db.execute(sql: """
                CREATE TABLE upload_state (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    failures INTEGER NOT NULL,
                    retry_at_ms INTEGER
                );
                ALTER TABLE gaps ADD COLUMN batch_key TEXT REFERENCES upload_batches(key) ON DELETE SET NULL;
                ALTER TABLE gaps ADD COLUMN uploaded INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX gaps_batch ON gaps(batch_key, uploaded);
                """)
        }
        migrator.registerMigration(Migration.v4) { db in
            // The engine's latest `RideSnapshot` of each ride (JSON), so a relaunched app hands the
            // running ride back to the engine (RideRecorder, `lastCheckpoint()`).
            try db.execute(sql: "ALTER TABLE rides ADD COLUMN checkpoint TEXT")
        }
        migrator.registerMigration(Migration.v5) { db in
            // One row per event the engine decided (`FenceEvent`, as JSON in `event`), unique by
            // fence and sequence so that a replayed delivery is stored once. Like gap markers, an
            // event rides along in the next upload batch and stays, marked uploaded, once the
            // server acknowledged that batch.
            try db.execute(sql: """
                CREATE TABLE fence_events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    fence_id TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    time_ms INTEGER NOT NULL,
                    delivered_ms INTEGER NOT NULL,
                    event TEXT NOT NULL,
                    batch_key TEXT REFERENCES upload_batches(key) ON DELETE SET NULL,
                    uploaded INTEGER NOT NULL DEFAULT 0,
                    UNIQUE (fence_id, sequence)
                );
                CREATE INDEX fence_events_batch ON fence_events(batch_key, uploaded);
                """)
        }
        migrator.registerMigration(Migration.v6) { db in
            // One row: the fences last fetched from the server (`[Fence]` as JSON), the page ETag they
            // came with, and when and where they were fetched (for the next refresh's decision).
            try db.execute(sql: """
                CREATE TABLE server_fence_copy (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    etag TEXT,
                    fetched_ms INTEGER NOT NULL,
                    latitude REAL,
                    longitude REAL,
                    fences TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration(Migration.v7) { db in
            try db.execute(sql: "ALTER TABLE fixes ADD COLUMN flags INTEGER NOT NULL DEFAULT 0")
        }
        return migrator
    }()
}
