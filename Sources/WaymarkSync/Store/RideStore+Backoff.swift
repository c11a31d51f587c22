import Foundation
import GRDB

extension RideStore {
    /// The upload queue's saved retry state (no failure, no wait when nothing was saved).
    ///
    /// - throws: ``SyncError`` with code `.storage` when the read fails.
    public func uploadBackoff() throws -> UploadBackoff {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT failures, retry_at_ms FROM upload_state WHERE id = 1") else {
                return UploadBackoff()
            }
            return UploadBackoff(failures: row["failures"], retryAt: (row["retry_at_ms"] as Int64?).map(StoreTime.date))
        }
    }

    /// Saves the upload queue's retry state, replacing the previous one; committed when this returns.
    ///
    /// - throws: ``SyncError`` with code `.storage` when the write fails.
    public func saveUploadBackoff(_ backoff: UploadBackoff) throws {
        try write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO upload_state (id, failures, retry_at_ms) VALUES (1, ?, ?)",
                           arguments: [backoff.failures, backoff.retryAt.map(StoreTime.millis)])
        }
    }
}
