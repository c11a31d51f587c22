import GRDB
import NIOConcurrencyHelpers

/// Group commit: the ingest requests waiting for SQLite's single writer share one transaction and,
/// with ``StoreDurability/full``, one sync of the write-ahead log.
///
/// Each request is written inside its own savepoint, so its writes are all or nothing and a request
/// that fails (a revoked device, a constraint) leaves the others of its group alone. Every request
/// is answered only after the group's `COMMIT` returned: nothing is acknowledged before it is
/// durable. When the commit itself fails, every request of the group fails and nothing of it is
/// stored. A group holds at most ``maxRequests`` requests and ``maxPositions`` positions (one
/// larger request goes alone); a group is one job on GRDB's writer queue, so writes of other kinds
/// (fences, webhooks) interleave between groups.
struct IngestGroups: Sendable {
    struct Job: Sendable {
        let write: IngestWrite
        let continuation: CheckedContinuation<IngestOutcome, any Error>
    }

    private struct Queue {
        var jobs: [Job] = []
        var scheduled = false
    }

    /// Most requests committed together.
    let maxRequests: Int
    /// Most positions committed together (a single larger request still goes, alone).
    let maxPositions: Int
    private let queue = NIOLockedValueBox(Queue())

    init(maxRequests: Int = 256, maxPositions: Int = 50_000) {
        self.maxRequests = max(1, maxRequests)
        self.maxPositions = max(1, maxPositions)
    }

    /// Queues `job`; true when the caller must schedule a commit (none is scheduled yet).
    func enqueue(_ job: Job) -> Bool {
        queue.withLockedValue { queue in
            queue.jobs.append(job)
            guard !queue.scheduled else { return false }
            queue.scheduled = true
            return true
        }
    }

    /// Requests waiting for a commit.
    var queued: Int { queue.withLockedValue { $0.jobs.count } }

    /// The next group, oldest first; `more` says whether jobs remain queued after it (then the caller
    /// schedules another commit; otherwise the next ``enqueue(_:)`` does).
    func nextGroup() -> (jobs: [Job], more: Bool) {
        queue.withLockedValue { queue in
            var count = 0, positions = 0
            while count < queue.jobs.count, count < maxRequests {
                let size = queue.jobs[count].write.positions.count
                if count > 0, positions + size > maxPositions { break }
                positions += size
                count += 1
            }
            let group = Array(queue.jobs.prefix(count))
            queue.jobs.removeFirst(count)
            if queue.jobs.isEmpty { queue.scheduled = false }
            return (group, !queue.jobs.isEmpty)
        }
    }
}

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
