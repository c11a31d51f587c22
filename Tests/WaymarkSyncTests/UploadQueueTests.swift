import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSync

@Suite("UploadQueue decisions (pure state machine)")
struct UploadQueueTests {
    let t0 = Date(timeIntervalSince1970: 1_750_000_000)
    let config = UploadQueue.Configuration(maxBatchPoints: 100, maxBatchBytes: 10_000, maxBatchAge: 60,
                                           backoffBase: 2, backoffCap: 64)

    func pending(_ batches: (String, Int)...) -> UploadBacklog {
        UploadBacklog(pending: batches.map { UploadBacklog.Batch(key: $0.0, points: $0.1) })
    }

    func ok() -> UploadResponse { .status(200, body: Array(#"{"result":"ok"}"#.utf8)) }

    /// A queue that has started sending batch "A" in the foreground.
    func sendingA(points: Int = 10, configuration: UploadQueue.Configuration? = nil) -> UploadQueue {
        var queue = UploadQueue(configuration: configuration ?? config, backlog: UploadBacklog(), seed: 1)
        let actions = queue.handle(.backlogChanged(pending(("A", points))), at: t0)
        precondition(actions.last == .send(key: "A"))
        return queue
    }

    @Test("a small backlog waits until its oldest point is maxBatchAge old, then forms a batch")
    func batchesByAge() {
        var queue = UploadQueue(configuration: config, backlog: UploadBacklog(), seed: 1)
        let small = UploadBacklog(unbatchedPoints: 10, unbatchedBytes: 2_000, oldestUnbatched: t0)
        #expect(queue.handle(.backlogChanged(small), at: t0.addingTimeInterval(5)).isEmpty)
        #expect(queue.nextDeadline == t0.addingTimeInterval(60))
        #expect(queue.deadlineReached(at: t0.addingTimeInterval(60)) == [.formBatch(maxPoints: 100, maxBytes: 10_000)])
    }

    @Test("a batch forms at once when the backlog reaches the point or byte limit, or on flush")
    func batchesByCountBytesFlush() {
        for backlog in [UploadBacklog(unbatchedPoints: 100, unbatchedBytes: 500, oldestUnbatched: t0),
                        UploadBacklog(unbatchedPoints: 3, unbatchedBytes: 10_000, oldestUnbatched: t0)] {
            var queue = UploadQueue(configuration: config, backlog: UploadBacklog(), seed: 1)
            #expect(queue.handle(.backlogChanged(backlog), at: t0) == [.formBatch(maxPoints: 100, maxBytes: 10_000)])
        }
        var queue = UploadQueue(configuration: config,
                                backlog: UploadBacklog(unbatchedPoints: 3, unbatchedBytes: 10, oldestUnbatched: t0), seed: 1)
        #expect(queue.handle(.flush, at: t0) == [.formBatch(maxPoints: 100, maxBytes: 10_000)])
    }

    @Test("a pending batch is sent under a background task; the task ends when nothing is left")
    func sendsAndAcknowledges() {
        var queue = UploadQueue(configuration: config, backlog: UploadBacklog(), seed: 1)
        #expect(queue.handle(.backlogChanged(pending(("A", 10)))  , at: t0)
                == [.device(.beginBackgroundTask(id: 6_000)), .send(key: "A")])
        #expect(queue.handle(.sendFinished(key: "A", response: ok()), at: t0) == [.acknowledge(key: "A", rejected: [])])
        #expect(queue.handle(.backlogChanged(UploadBacklog()), at: t0) == [.device(.endBackgroundTask(id: 6_000))])
        #expect(queue.nextDeadline == nil)
    }

    @Test("a 2xx without {\"result\":\"ok\"} is not an acknowledgement: the batch is retried")
    func twoHundredWithoutOk() {
        var queue = sendingA()
        let actions = queue.handle(.sendFinished(key: "A", response: .status(200, body: Array("{}".utf8))), at: t0)
        #expect(!actions.contains(.acknowledge(key: "A", rejected: [])))
        #expect(queue.failures == 1 && queue.retryAt != nil)
    }

    @Test("backoff waits are uniform under a doubling ceiling with a cap, and reproducible from the seed")
    func backoffFullJitter() {
        func waits(seed: UInt64) -> [TimeInterval] {
            var queue = UploadQueue(configuration: config, backlog: UploadBacklog(), seed: seed)
            var now = t0
            _ = queue.handle(.backlogChanged(pending(("A", 10))), at: now)
            var result: [TimeInterval] = []
            for _ in 0..<12 {
                _ = queue.handle(.sendFinished(key: "A", response: .status(503, body: [])), at: now)
                let retry = queue.retryAt!
                result.append(retry.timeIntervalSince(now))
                #expect(queue.nextDeadline == retry)
                now = retry
                #expect(queue.deadlineReached(at: now).contains(.send(key: "A")))
            }
            return result
        }
        let a = waits(seed: 42)
        #expect(a == waits(seed: 42))
        #expect(a != waits(seed: 43))
        for (n, wait) in a.enumerated() {
            #expect(wait >= 0 && wait <= min(64, 2 * pow(2, Double(n))))
        }
        #expect(a.suffix(6).allSatisfy { $0 <= 64 } && a.suffix(6).contains { $0 > 8 }, "late waits reach past early ceilings")
    }

    @Test("an acknowledgement resets the failure count")
    func ackResetsBackoff() {
        var queue = sendingA()
        _ = queue.handle(.sendFinished(key: "A", response: .timedOut), at: t0)
        _ = queue.deadlineReached(at: queue.retryAt!)
        _ = queue.handle(.sendFinished(key: "A", response: ok()), at: t0.addingTimeInterval(10))
        #expect(queue.failures == 0 && queue.retryAt == nil)
    }

    @Test("413 splits a batch of several points and quarantines a single point")
    func payloadTooLarge() {
        var queue = sendingA(points: 2)
        #expect(queue.handle(.sendFinished(key: "A", response: .status(413, body: [])), at: t0) == [.split(key: "A")])
        _ = queue.handle(.backlogChanged(pending(("A.a", 1), ("A.b", 1))), at: t0)
        let actions = queue.handle(.sendFinished(key: "A.a", response: .status(413, body: [])), at: t0)
        guard case .quarantine(let key, let reason) = actions.first else { Issue.record("expected quarantine"); return }
        #expect(key == "A.a" && reason.contains("413"))
        #expect(queue.failures == 0, "a split or quarantine is not a retry")
    }

    @Test("409 and 422 isolate refused points by splitting, then quarantine with the server's reason",
          arguments: [409, 422])
    func refused(code: Int) {
        let body = Array(#"{"error":{"message":"timestamp in the future"}}"#.utf8)
        var queue = sendingA(points: 4)
        #expect(queue.handle(.sendFinished(key: "A", response: .status(code, body: body)), at: t0) == [.split(key: "A")])
        var whole = sendingA(points: 4, configuration: {
            var c = config
            c.isolateRejectedPoints = false
            return c
        }())
        #expect(whole.handle(.sendFinished(key: "A", response: .status(code, body: body)), at: t0)
                == [.quarantine(key: "A", reason: "HTTP \(code): the server refused the batch: timestamp in the future")])
    }

    @Test("401 refreshes the credentials then sends again; a second 401 in a row backs off")
    func unauthorized() {
        var queue = sendingA()
        #expect(queue.handle(.sendFinished(key: "A", response: .status(401, body: [])), at: t0) == [.refreshCredentials])
        #expect(queue.handle(.credentialsRefreshed(succeeded: true), at: t0) == [.send(key: "A")])
        let again = queue.handle(.sendFinished(key: "A", response: .status(401, body: [])), at: t0)
        #expect(!again.contains(.refreshCredentials) && !again.contains(.send(key: "A")))
        let retry = try! #require(queue.retryAt)
        #expect(queue.deadlineReached(at: retry).contains(.refreshCredentials))
    }

    @Test("offline, nothing is sent; back online, the batch goes at once (backoff wait dropped)")
    func offline() {
        var queue = sendingA()
        _ = queue.handle(.device(.networkReachability(online: false)), at: t0)
        _ = queue.handle(.sendFinished(key: "A", response: .connectionFailed("no route")), at: t0)
        #expect(queue.nextDeadline == nil)
        #expect(queue.deadlineReached(at: t0.addingTimeInterval(3600)).allSatisfy { if case .send = $0 { false } else { true } })
        #expect(queue.handle(.device(.networkReachability(online: true)), at: t0.addingTimeInterval(3601)).contains(.send(key: "A")))
    }

    @Test("in the background no send starts without enough budget; a location wake gives new budget")
    func backgroundBudget() {
        var queue = UploadQueue(configuration: config, backlog: UploadBacklog(), foreground: false, seed: 1, at: t0)
        let late = t0.addingTimeInterval(20)   // 25 s budget, 10 s minimum: only 5 s left
        #expect(queue.handle(.backlogChanged(pending(("A", 10))), at: late).isEmpty)
        let woken = queue.handle(.device(.locations([])), at: late)
        #expect(woken == [.device(.beginBackgroundTask(id: 6_000)), .send(key: "A")])
        // The task expires mid-send: the send is abandoned without a failure, the task ended.
        #expect(queue.handle(.device(.backgroundTaskExpired(id: 6_000)), at: late.addingTimeInterval(25))
                == [.cancelSend(key: "A"), .device(.endBackgroundTask(id: 6_000))])
        #expect(queue.failures == 0)
        #expect(queue.handle(.sendFinished(key: "A", response: .cancelled), at: late.addingTimeInterval(26)).isEmpty,
                "a late answer of the abandoned send changes nothing")
        #expect(queue.handle(.device(.willEnterForeground), at: late.addingTimeInterval(60))
                == [.device(.beginBackgroundTask(id: 6_001)), .send(key: "A")])
    }

    @Test("a 2xx reply listing rejected points acknowledges the batch and passes the rejections on, with reasons")
    func rejectedInReply() {
        var queue = sendingA(points: 5)
        let body = #"{"result":"ok","stored":3,"rejected":[{"index":1,"field":"properties.timestamp","message":"before 2000"},"#
            + #"{"index":4,"field":"geometry.coordinates[1]","message":"95.0 is outside [-90, 90]"}]}"#
        let actions = queue.handle(.sendFinished(key: "A", response: .status(200, body: Array(body.utf8))), at: t0)
        #expect(actions == [.acknowledge(key: "A", rejected: [
            UploadRejection(index: 1, reason: "properties.timestamp: before 2000"),
            UploadRejection(index: 4, reason: "geometry.coordinates[1]: 95.0 is outside [-90, 90]"),
        ])])
        #expect(queue.failures == 0)
    }

    @Test("every change of the retry state is handed out to be saved, and a new queue resumes from it")
    func backoffIsSaved() throws {
        var queue = sendingA()
        let failed = queue.handle(.sendFinished(key: "A", response: .status(503, body: [])), at: t0)
        let retry = try #require(queue.retryAt)
        #expect(failed == [.saveBackoff(UploadBackoff(failures: 1, retryAt: retry)), .device(.endBackgroundTask(id: 6_000))])
        var relaunched = UploadQueue(configuration: config, backlog: pending(("A", 10)), backoff: queue.backoff, seed: 2)
        try #require(retry > t0)
        #expect(relaunched.handle(.backlogChanged(pending(("A", 10))), at: t0).isEmpty, "no send before the saved retry time")
        #expect(relaunched.nextDeadline == retry && relaunched.failures == 1)
        let acknowledged = relaunched.deadlineReached(at: retry)
        #expect(acknowledged.first == .saveBackoff(UploadBackoff(failures: 1, retryAt: nil)))
        #expect(acknowledged.contains(.send(key: "A")))
        #expect(relaunched.handle(.sendFinished(key: "A", response: ok()), at: retry)
                == [.saveBackoff(UploadBackoff()), .acknowledge(key: "A", rejected: [])])
    }
}
