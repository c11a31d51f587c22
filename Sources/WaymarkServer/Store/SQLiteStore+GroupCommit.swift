import GRDB
import NIOConcurrencyHelpers

extension SQLiteStore {
    /// Commits one request; see ``PositionStore/ingest(_:)``. Concurrent requests share a transaction and its
    /// sync (`IngestGroups`); this returns after the commit that made the request durable.
    public func ingest(_ write: IngestWrite) async throws -> IngestOutcome {
        try await withCheckedThrowingContinuation { continuation in
            if groups.enqueue(IngestGroups.Job(write: write, continuation: continuation)) { scheduleGroup() }
        }
    }

    /// Puts one group commit on the writer's queue.
    private func scheduleGroup() {
        pool.asyncWriteWithoutTransaction { db in
            let (jobs, more) = self.groups.nextGroup()
            if more { self.scheduleGroup() }
            self.commit(jobs, db)
        }
    }

    /// Writes `jobs` in one `IMMEDIATE` transaction, one savepoint each, then answers each of them.
    private func commit(_ jobs: [IngestGroups.Job], _ db: Database) {
        guard !jobs.isEmpty else { return }
        let traceStart = StageTrace.now()
        defer {
            if StageTrace.enabled {
                let end = StageTrace.now()
                let jobsText = jobs.map { "\($0.write.idempotencyKey ?? $0.write.deviceID.prefix(6).description):\($0.write.positions.count):wait=\(StageTrace.ms($0.enqueued, traceStart))" }
                StageTrace.log("sqlite-group n=\(jobs.count) positions=\(jobs.reduce(0) { $0 + $1.write.positions.count }) commit=\(StageTrace.ms(traceStart, end)) at=\(traceStart / 1_000_000) jobs=\(jobsText.joined(separator: ","))")
            }
        }
        var results: [Result<IngestOutcome, any Error>] = []
        results.reserveCapacity(jobs.count)
        do {
            try db.inTransaction(.immediate) {
                for job in jobs {
                    var outcome: IngestOutcome?
                    do {
                        try db.inSavepoint {
                            outcome = try ingestOne(db, job.write)
                            return .commit
                        }
                        results.append(.success(outcome!))
                    } catch {
                        // SQLite rolls back the whole transaction after some errors (disk full, I/O): then the
                        // group fails, since the requests before this one are no longer in it either.
                        guard db.isInsideTransaction else { throw error }
                        results.append(.failure(Self.storageError(error)))
                    }
                }
                return .commit
            }
        } catch {
            let failure = Self.storageError(error)
            results = jobs.map { _ in .failure(failure) }
        }
        for (job, result) in zip(jobs, results) { job.continuation.resume(with: result) }
    }

    /// `error` as a ``ServerError`` (SQLite's errors as ``ServerError/Code/storage``).
    static func storageError(_ error: any Error) -> any Error {
        error is ServerError ? error : ServerError(.storage, "SQLite: \(error)")
    }
}
