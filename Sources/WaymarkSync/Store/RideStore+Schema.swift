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
        return migrator
    }()
}
