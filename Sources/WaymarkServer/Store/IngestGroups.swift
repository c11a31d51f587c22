import NIOConcurrencyHelpers
import WaymarkGeo

/// Group commit: ingest requests that arrive while earlier ones are being committed share one
/// transaction and, with ``StoreDurability/full``, one sync.
///
/// The queue only forms groups; each store commits them (`SQLiteStore+GroupCommit.swift`,
/// `PostgresStore+GroupCommit.swift`). Every request is answered only after the commit of its group
/// returned: nothing is acknowledged before it is durable. A group holds at most ``maxRequests``
/// requests and ``maxPositions`` positions (one larger request goes alone), oldest first.
///
/// Small requests are not held up by large ones (more than ``largeEntries`` entries): a large request is committed
/// alone, and the small requests queued behind it are committed first, once, before it (a device's own requests
/// keep their order), so a small request waits for at most one large commit, and a large one for at most one group
/// of small ones. Nil ``largeEntries`` (`WAYMARK_FAIR_WRITES=off`) forms groups oldest first whatever their size.
///
/// At most ``maxCommitters`` committers run at a time: one for SQLite, whose single writer takes one
/// transaction at a time anyway, and a few for PostgreSQL, so that the next group forms and is
/// written while the previous one waits for its sync.
struct IngestGroups: Sendable {
    struct Job: Sendable {
        let write: IngestWrite
        let continuation: CheckedContinuation<IngestOutcome, any Error>
        /// When the request was queued (for ``StageTrace``).
        let enqueued = StageTrace.now()
    }

    private struct Queue {
        var jobs: [Job] = []
        var committers = 0
        var admitted = 0
        /// Whether the last group passed over the large request at the head of the queue (it goes next).
        var passedLarge = false
        /// Tasks in ``waitUntilAdmitted(_:)``.
        var admittedWaiters = CountWaiters()
    }

    /// Most requests committed together.
    let maxRequests: Int
    /// Most positions committed together (a single larger request still goes, alone).
    let maxPositions: Int
    /// Most committers at a time.
    let maxCommitters: Int
    /// Entries above which a request is large and committed alone, after the small ones queued behind it;
    /// nil: groups are formed oldest first whatever their size.
    let largeEntries: Int?
    private let queue = NIOLockedValueBox(Queue())

    init(maxRequests: Int = 256, maxPositions: Int = 50_000, maxCommitters: Int = 1,
         largeEntries: Int? = FairWrites.enabled ? FairWrites.largeEntries : nil) {
        self.maxRequests = max(1, maxRequests)
        self.maxPositions = max(1, maxPositions)
        self.maxCommitters = max(1, maxCommitters)
        self.largeEntries = largeEntries.map { max(1, $0) }
    }

    /// Queues `job`; true when the caller must start a committer (fewer than ``maxCommitters`` run).
    func enqueue(_ job: Job) -> Bool {
        let (starts, admittedNow) = queue.withLockedValue { queue in
            queue.jobs.append(job)
            queue.admitted += 1
            let admittedNow = queue.admittedWaiters.isEmpty ? [] : queue.admittedWaiters.takeReached(queue.admitted)
            guard queue.committers < maxCommitters else { return (false, admittedNow) }
            queue.committers += 1
            return (true, admittedNow)
        }
        for continuation in admittedNow { continuation.resume(returning: true) }
        return starts
    }

    /// Returns once `count` requests have been queued in all (``admitted``), committed or not: true;
    /// false when the waiting task is cancelled first. For tests that must have every request in the
    /// store's hands before letting a commit go.
    @discardableResult
    func waitUntilAdmitted(_ count: Int) async -> Bool {
        let id = queue.withLockedValue { $0.admittedWaiters.newID() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let reached = queue.withLockedValue { queue -> Bool? in
                    if queue.admitted >= count { return true }
                    if Task.isCancelled { return false }
                    queue.admittedWaiters.add(id, target: count, current: queue.admitted, continuation)
                    return nil
                }
                if let reached { continuation.resume(returning: reached) }
            }
        } onCancel: {
            queue.withLockedValue { $0.admittedWaiters.take(id) }?.resume(returning: false)
        }
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
        guard let largeEntries, let head = queue.jobs.first else { return takeOldest(from: &queue) }
        func isLarge(_ job: Job) -> Bool { job.write.entryCount > largeEntries }
        if isLarge(head), queue.passedLarge {
            queue.passedLarge = false
            return [queue.jobs.removeFirst()]
        }
        // Small requests, oldest first, passing over large ones and every later request of their devices.
        var taken: [Int] = [], passed = Set<String>(), positions = 0
        for (index, job) in queue.jobs.enumerated() {
            if taken.count == maxRequests { break }
            if isLarge(job) || passed.contains(job.write.deviceID) {
                passed.insert(job.write.deviceID)
                continue
            }
            let size = job.write.positions.count
            if !taken.isEmpty, positions + size > maxPositions { break }
            positions += size
            taken.append(index)
        }
        guard !taken.isEmpty else {
            queue.passedLarge = false
            return [queue.jobs.removeFirst()]   // only large requests (or their devices' later ones): the oldest alone
        }
        queue.passedLarge = isLarge(head)
        let group = taken.map { queue.jobs[$0] }
        if taken.last == taken.count - 1 {
            queue.jobs.removeFirst(taken.count)   // a prefix: nothing was passed over
        } else {
            let takenSet = Set(taken)
            let jobs = queue.jobs
            queue.jobs = jobs.indices.filter { !takenSet.contains($0) }.map { jobs[$0] }
        }
        return group
    }

    private func takeOldest(from queue: inout Queue) -> [Job] {
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
