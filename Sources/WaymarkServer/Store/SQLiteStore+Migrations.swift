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
        return migrator
    }
}
