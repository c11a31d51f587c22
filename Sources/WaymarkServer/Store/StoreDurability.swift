/// When a store acknowledges a write: after it reached the disk, or after the database has it in memory.
///
/// `waymark serve --durability full|relaxed`. The phone deletes a point once the server acknowledges it,
/// so an acknowledged point that is lost is lost for good.
public enum StoreDurability: String, Sendable, CaseIterable {
    /// The default: an acknowledged write survives an OS crash or power loss. SQLite syncs its
    /// write-ahead log at every commit (`synchronous = FULL`); PostgreSQL waits for its WAL flush
    /// (`synchronous_commit = on`). Group commit shares one sync among the requests committed together.
    case full
    /// An acknowledged write survives a crash of the server process, but an OS crash or power loss
    /// can lose the last acknowledged writes (the database itself stays consistent). SQLite syncs
    /// only at checkpoints (`synchronous = NORMAL`); PostgreSQL acknowledges before its WAL flush
    /// (`synchronous_commit = off`, up to three times `wal_writer_delay` of commits at risk).
    case relaxed

    /// SQLite's `PRAGMA synchronous` value for this durability in WAL mode.
    var sqliteSynchronous: String { self == .full ? "FULL" : "NORMAL" }

    /// PostgreSQL's `synchronous_commit` value for this durability.
    var postgresSynchronousCommit: String { self == .full ? "on" : "off" }
}
