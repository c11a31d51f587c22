import Foundation
import GRDB

extension SQLiteStore {
    /// Writes a consistent copy of the whole database to a new file at `path`, while the server keeps
    /// ingesting (`waymark backup`).
    ///
    /// The copy is SQLite's online backup of one read snapshot, taken in a single step: it holds every
    /// write committed (and so acknowledged) before the backup started, and nothing half-written. Writers
    /// are not blocked (WAL). The new file is created with mode 0600 and opens as a ``SQLiteStore``.
    /// Returns the number of positions in the copy.
    /// - throws: ``ServerError`` ``ServerError/Code/badRequest`` when `path` exists (a backup never
    ///   overwrites), ``ServerError/Code/storage`` when the copy fails (the partial file is removed).
    public func backup(to path: String) async throws -> Int {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ServerError(.badRequest, "\(path) already exists; a backup never overwrites a file")
        }
        guard Self.createPrivateFile(at: path) == nil, FileManager.default.fileExists(atPath: path) else {
            throw ServerError(.storage, "cannot create the backup file \(path)")
        }
        do {
            let destination = try DatabaseQueue(path: path)
            try await pool.read { db in
                try destination.writeWithoutTransaction { copy in try db.backup(to: copy) }
            }
            return try await destination.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM positions") ?? 0 }
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            throw Self.storageError(error)
        }
    }
}
