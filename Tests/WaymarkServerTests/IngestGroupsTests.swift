import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import WaymarkServer

/// The group-commit queue both stores use: how many committers it starts, and how it cuts groups.
@Suite("IngestGroups: committers and group sizes", .timeLimit(.minutes(5)))   // a cancellable wait (settle, waitUntil…) that never ends fails instead of hanging
struct IngestGroupsTests {
    static func write(_ points: Int) -> IngestWrite {
        IngestWrite(deviceID: "d", positions: (0..<points).map { StoreTests.point("d", second: Double($0)) }, receivedAt: StoreTests.t0)
    }

    @Test("at most maxCommitters committers run; groups are cut by request and position limits, oldest first")
    func committersAndGroups() async throws {
        let groups = IngestGroups(maxRequests: 3, maxPositions: 10, maxCommitters: 2)
        let started = NIOLockedValueBox(0)
        // Six requests (sizes 1, 1, 1, 1, 8, 12) wait for their outcomes while nothing commits.
        let sizes = [1, 1, 1, 1, 8, 12]
        try await withThrowingTaskGroup(of: Int.self) { tasks in
            for (n, size) in sizes.enumerated() {
                tasks.addTask {
                    // Arrival order is fixed: each request waits until the previous one is queued.
                    await groups.waitUntilAdmitted(n)
                    let outcome = try await withCheckedThrowingContinuation { continuation in
                        if groups.enqueue(IngestGroups.Job(write: Self.write(size), continuation: continuation)) {
                            started.withLockedValue { $0 += 1 }
                        }
                    }
                    return outcome.stored
                }
            }
            await groups.waitUntilAdmitted(sizes.count)
            #expect(started.withLockedValue { $0 } == 2 && groups.committers == 2, "two of six requests start a committer")
            // Three requests at most; then 1 + 8 positions fit, 12 more do not; the 12 go alone.
            var cut: [[Int]] = []
            while let group = groups.nextGroupOrStop() {
                cut.append(group.map(\.write.positions.count))
                for job in group { job.continuation.resume(returning: IngestOutcome(stored: job.write.positions.count, duplicates: 0, replayed: false)) }
            }
            #expect(cut == [[1, 1, 1], [1, 8], [12]])
            // The first committer found the queue empty and stopped; the second stops too.
            #expect(groups.committers == 1)
            #expect(groups.nextGroupOrStop() == nil && groups.committers == 0)
            var answered: [Int] = []
            for try await stored in tasks { answered.append(stored) }
            #expect(answered.sorted() == sizes.sorted(), "every request got its own outcome")
        }
        // With no committer running, the next request starts one again.
        let restarted = NIOLockedValueBox(false)
        let outcome = try await withCheckedThrowingContinuation { continuation in
            restarted.withLockedValue { $0 = groups.enqueue(IngestGroups.Job(write: Self.write(1), continuation: continuation)) }
            for job in groups.nextGroupOrStop() ?? [] {
                job.continuation.resume(returning: IngestOutcome(stored: 1, duplicates: 0, replayed: false))
            }
        }
        #expect(restarted.withLockedValue { $0 } && outcome.stored == 1)
        #expect(groups.nextGroupOrStop() == nil && groups.committers == 0)
    }
}
