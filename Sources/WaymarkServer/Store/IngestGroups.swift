import NIOConcurrencyHelpers

/// Group commit: ingest requests that arrive while earlier ones are being committed share one
/// transaction and, with ``StoreDurability/full``, one sync.
///
/// The queue only forms groups; each store commits them (`SQLiteStore+GroupCommit.swift`,
/// `PostgresStore+GroupCommit.swift`). Every request is answered only after the commit of its group
/// returned: nothing is acknowledged before it is durable. A group holds at most ``maxRequests``
/// requests and ``maxPositions`` positions (one larger request goes alone), oldest first.
///
/// At most ``maxCommitters`` committers run at a time: one for SQLite, whose single writer takes one
/// transaction at a time anyway, and a few for PostgreSQL, so that the next group forms and is
/// written while the previous one waits for its sync.
struct IngestGroups: Sendable {
    struct Job: Sendable {
        let write: IngestWrite
        let continuation: CheckedContinuation<IngestOutcome, any Error>
    }

    private struct Queue {
        var jobs: [Job] = []
        var committers = 0
        var admitted = 0
        /// Tasks in ``waitUntilAdmitted(_:)``: the count each waits for.
        var admittedWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// Most requests committed together.
    let maxRequests: Int
    /// Most positions committed together (a single larger request still goes, alone).
    let maxPositions: Int
    /// Most committers at a time.
    let maxCommitters: Int
    private let queue = NIOLockedValueBox(Queue())

    init(maxRequests: Int = 256, maxPositions: Int = 50_000, maxCommitters: Int = 1) {
        self.maxRequests = max(1, maxRequests)
        self.maxPositions = max(1, maxPositions)
        self.maxCommitters = max(1, maxCommitters)
    }

    /// Queues `job`; true when the caller must start a committer (fewer than ``maxCommitters`` run).
    func enqueue(_ job: Job) -> Bool {
        let (starts, admittedNow) = queue.withLockedValue { queue in
            queue.jobs.append(job)
            queue.admitted += 1
            let admittedNow = queue.admittedWaiters.isEmpty ? [] : Self.takeAdmitted(&queue)
            guard queue.committers < maxCommitters else { return (false, admittedNow) }
            queue.committers += 1
            return (true, admittedNow)
        }
        for continuation in admittedNow { continuation.resume() }
        return starts
    }

    /// Returns once `count` requests have been queued in all (``admitted``), committed or not: for
    /// tests that must have every request in the store's hands before letting a commit go.
    func waitUntilAdmitted(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = queue.withLockedValue { queue in
                guard queue.admitted < count else { return true }
                queue.admittedWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeAdmitted(_ queue: inout Queue) -> [CheckedContinuation<Void, Never>] {
        let admitted = queue.admitted
        let ready = queue.admittedWaiters.filter { $0.count <= admitted }.map(\.continuation)
        queue.admittedWaiters.removeAll { $0.count <= admitted }
        return ready
    }

    /// Requests waiting for a commit.
    var queued: Int { queue.withLockedValue { $0.jobs.count } }
    /// Committers running now.
    var committers: Int { queue.withLockedValue { $0.committers } }
    /// Requests queued so far, committed or not.
    var admitted: Int { queue.withLockedValue { $0.admitted } }

    /// The next group, oldest first; `more` says whether jobs remain queued after it. When none
    /// remain, the caller stops being a committer as it takes the group (the next ``enqueue(_:)``
    /// starts one); otherwise it must take the next group too, after this one.
    func nextGroup() -> (jobs: [Job], more: Bool) {
        queue.withLockedValue { queue in
            let group = take(from: &queue)
            if queue.jobs.isEmpty { queue.committers -= 1 }
            return (group, !queue.jobs.isEmpty)
        }
    }

    /// The next group, oldest first, or nil when none is queued: then the caller has stopped being a
    /// committer. Unlike ``nextGroup()``, a committer counts until it finds the queue empty, so at
    /// most ``maxCommitters`` groups are in flight.
    func nextGroupOrStop() -> [Job]? {
        queue.withLockedValue { queue in
            guard !queue.jobs.isEmpty else {
                queue.committers -= 1
                return nil
            }
            return take(from: &queue)
        }
    }

    private func take(from queue: inout Queue) -> [Job] {
        var count = 0, positions = 0
        while count < queue.jobs.count, count < maxRequests {
            let size = queue.jobs[count].write.positions.count
            if count > 0, positions + size > maxPositions { break }
            positions += size
            count += 1
        }
        let group = Array(queue.jobs.prefix(count))
        queue.jobs.removeFirst(count)
        return group
    }
}
