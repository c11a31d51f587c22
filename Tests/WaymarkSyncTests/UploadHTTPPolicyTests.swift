import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSync
import WaymarkSimulatedPhone
import WaymarkCLI

/// The queue's batching, backoff, offline and background rules, each checked against a real HTTP
/// server on 127.0.0.1 in virtual time.
@Suite("Upload policy against a real HTTP endpoint")
struct UploadHTTPPolicyTests {
    struct Setup {
        let server: IngestTestServer
        let store: RideStore
        let fixes: [Fix]
        let ride: RideID
        var uploader: VirtualTimeUploader
    }

    func setUp(points: Int, config: UploadQueue.Configuration, path: String? = nil, now: Date? = nil,
               foreground: Bool = true, online: Bool = true) async throws -> Setup {
        let server = try await IngestTestServer.start()
        await server.state.register(token: "tok", device: "phone-1")
        let store = try path.map { try RideStore(path: $0) } ?? RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        let fixes = TestFixes.ride(count: points)
        try store.append(fixes, to: ride.id)
        let transport = try HTTPUploadTransport(server: server.baseURL, timeout: .seconds(60))
        let uploader = try VirtualTimeUploader(store: store, transport: transport, credentials: DeviceCredentials(token: "tok"),
                                           configuration: config,
                                           now: now ?? TestFixes.start.addingTimeInterval(Double(points)),
                                           foreground: foreground, online: online)
        return Setup(server: server, store: store, fixes: fixes, ride: ride.id, uploader: uploader)
    }

    func requests(_ s: Setup) async -> Int { await s.server.state.stats(device: "phone-1").requests }

    @Test("a small backlog is held until its oldest point is maxBatchAge old, then sent as one batch")
    func batchesByAge() async throws {
        let config = UploadQueue.Configuration(maxBatchPoints: 300, maxBatchAge: 60)
        var s = try await setUp(points: 10, config: config, now: TestFixes.start.addingTimeInterval(10))
        defer { s.server.stop() }
        try await s.uploader.feed(.backlogChanged(try s.store.backlog()))
        #expect(await requests(s) == 0, "10 points, 10 s old: too few and too young to send")
        #expect(s.uploader.queue.nextDeadline == TestFixes.start.addingTimeInterval(60))
        s.uploader.now = TestFixes.start.addingTimeInterval(60)
        try await s.uploader.feed(nil)
        #expect(await requests(s) == 1)
        #expect(await s.server.state.points(device: "phone-1").count == 10)
    }

    @Test("batches stop at the byte limit: every request body fits, and all points arrive")
    func batchesByBytes() async throws {
        let one = NativeBatchFormat(deviceID: "phone-1").body(for: TestFixes.ride(count: 1)).count
        let limit = NativeBatchFormat.envelopeBytes + 8 * (one - NativeBatchFormat.envelopeBytes + 1)
        let config = UploadQueue.Configuration(maxBatchPoints: 300, maxBatchBytes: limit, maxBatchAge: 60)
        var s = try await setUp(points: 50, config: config)
        defer { s.server.stop() }
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(600))
        let sizes = await s.server.state.requestSizes(device: "phone-1")
        #expect(sizes.count >= 6, "about 8 points fit in \(limit) bytes, so 50 points need several requests")
        #expect(sizes.allSatisfy { $0.bytes <= limit }, "\(sizes.map(\.bytes)) against \(limit)")
        #expect(sizes.reduce(0) { $0 + $1.points } == 50)
        #expect(try s.store.fixCount() == 0)
    }

    @Test("5xx retries wait a uniform time under a doubling ceiling capped at backoffCap")
    func backoffWithJitterAndCap() async throws {
        let config = UploadQueue.Configuration(maxBatchPoints: 300, backoffBase: 2, backoffCap: 10)
        var s = try await setUp(points: 20, config: config)
        defer { s.server.stop() }
        await s.server.state.inject(Array(repeating: .status(503), count: 9), token: "tok")
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(3600))
        let times = s.uploader.sends.map(\.at)
        #expect(times.count == 10)
        #expect(try s.store.fixCount() == 0)
        let waits = zip(times, times.dropFirst()).map { $1.timeIntervalSince($0) }
        for (n, wait) in waits.enumerated() {
            let ceiling = min(10, 2 * pow(2, Double(n)))
            #expect(wait >= 0 && wait <= ceiling, "wait \(n + 1) is \(wait) s, ceiling \(ceiling) s")
        }
        #expect(waits.contains { $0 > 4 }, "later waits grow past the first ceilings: \(waits)")
        #expect(Set(waits).count == waits.count, "jittered waits differ: \(waits)")
        #expect(s.uploader.queue.failures == 0, "the acknowledgement reset the failure count")
    }

    @Test("the backoff survives a relaunch: the new process waits where the old one stopped")
    func backoffPersists() async throws {
        let path = TestFixes.temporaryStorePath()
        defer { TestFixes.removeStore(at: path) }
        let config = UploadQueue.Configuration(maxBatchPoints: 300, backoffBase: 60, backoffCap: 600)
        var s = try await setUp(points: 20, config: config, path: path)
        defer { s.server.stop() }
        await s.server.state.inject(Array(repeating: .status(500), count: 4), token: "tok")
        try await s.uploader.feed(.flush)
        for _ in 0..<3 {
            guard let due = s.uploader.queue.nextDeadline else { break }
            s.uploader.now = due
            try await s.uploader.feed(nil)
        }
        let before = s.uploader.queue.backoff
        #expect(before.failures == 4)
        let retryAt = try #require(before.retryAt)
        // The process is killed; a new one opens the store file a second later.
        let sent = await requests(s)
        let reopened = try RideStore(path: path)
        #expect(try reopened.uploadBackoff() == before)
        var relaunched = try VirtualTimeUploader(store: reopened, transport: s.uploader.executor.transport,
                                             credentials: DeviceCredentials(token: "tok"), configuration: config, seed: 9,
                                             now: s.uploader.now.addingTimeInterval(1))
        try await relaunched.feed(.device(.launched(reason: .user)))
        try await relaunched.feed(.device(.networkReachability(online: true)))
        try await relaunched.feed(.backlogChanged(try reopened.backlog()))
        #expect(await requests(s) == sent, "no immediate retry after the relaunch")
        #expect(relaunched.queue.nextDeadline == retryAt)
        try await relaunched.drain(until: retryAt.addingTimeInterval(3600))
        #expect(relaunched.sends.first?.at == retryAt)
        #expect(await s.server.state.points(device: "phone-1").count == 20)
        #expect(try reopened.uploadBackoff().failures == 0)
    }

    @Test("an offline window: nothing is attempted while offline; the backlog goes when the network returns")
    func offlineWindow() async throws {
        let config = UploadQueue.Configuration(maxBatchPoints: 100, maxBatchAge: 60)
        var s = try await setUp(points: 100, config: config)
        defer { s.server.stop() }
        try await s.uploader.feed(.flush)
        #expect(await requests(s) == 1)
        try await s.uploader.feed(.device(.networkReachability(online: false)))
        let more = TestFixes.ride(count: 250, from: TestFixes.start.addingTimeInterval(100))
        try s.store.append(more, to: s.ride)
        s.uploader.now = s.uploader.now.addingTimeInterval(600)
        try await s.uploader.feed(.backlogChanged(try s.store.backlog()))
        try await s.uploader.feed(.flush)
        #expect(await requests(s) == 1, "offline: batches are formed but not sent (the radio is not even tried)")
        #expect(s.uploader.queue.nextDeadline == nil, "only reachability can move the queue on")
        try await s.uploader.feed(.device(.networkReachability(online: true)))
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(600))
        #expect(await s.server.state.points(device: "phone-1").count == 350)
        #expect(s.uploader.sends.allSatisfy { $0.response.isAcknowledgement })
    }

    @Test("in the background no upload starts with too little budget left; a location wake brings new budget")
    func backgroundBudget() async throws {
        let config = UploadQueue.Configuration(maxBatchPoints: 300, backgroundBudget: 25, minimumBudget: 10)
        var s = try await setUp(points: 40, config: config)
        defer { s.server.stop() }
        try await s.uploader.feed(.device(.didEnterBackground))
        #expect(await requests(s) == 1, "entering the background flushes within the fresh budget")
        try s.store.append(TestFixes.ride(count: 10, from: TestFixes.start.addingTimeInterval(40)), to: s.ride)
        s.uploader.now = s.uploader.now.addingTimeInterval(20)
        try await s.uploader.feed(.backlogChanged(try s.store.backlog()))
        try await s.uploader.feed(.flush)
        #expect(s.uploader.queue.backlog.pending.count == 1, "the batch is formed, just not sent")
        #expect(await requests(s) == 1, "5 s of budget left is less than the 10 s minimum")
        #expect(s.uploader.commands.last == .endBackgroundTask(id: 6_000))
        s.uploader.now = s.uploader.now.addingTimeInterval(600)
        try await s.uploader.feed(.device(.locations([])))
        #expect(await requests(s) == 2, "a location delivery wakes the app with new background time")
        #expect(s.uploader.commands == [.beginBackgroundTask(id: 6_000), .endBackgroundTask(id: 6_000),
                                        .beginBackgroundTask(id: 6_001), .endBackgroundTask(id: 6_001)])
        #expect(await s.server.state.points(device: "phone-1").count == 50)
    }

    @Test("a heartbeat's app-refresh wake brings new background budget and sends what waits (issue #32 item 4)")
    func appRefreshWake() async throws {
        let config = UploadQueue.Configuration(maxBatchPoints: 300, backgroundBudget: 25, minimumBudget: 10)
        var s = try await setUp(points: 40, config: config)
        defer { s.server.stop() }
        try await s.uploader.feed(.device(.didEnterBackground))
        #expect(await requests(s) == 1)
        try s.store.append(TestFixes.ride(count: 10, from: TestFixes.start.addingTimeInterval(40)), to: s.ride)
        s.uploader.now = s.uploader.now.addingTimeInterval(20)
        try await s.uploader.feed(.backlogChanged(try s.store.backlog()))
        #expect(await requests(s) == 1, "5 s of budget left is less than the 10 s minimum")
        s.uploader.now = s.uploader.now.addingTimeInterval(3_600)
        try await s.uploader.feed(.device(.appRefresh(identifier: "com.example.heartbeat")))
        #expect(await requests(s) == 2, "the app-refresh wake sends the waiting batch")
        #expect(await s.server.state.points(device: "phone-1").count == 50)
    }

    @Test("a 200 reply listing rejected points: the rest is removed, the rejected are quarantined with the reason")
    func rejectedInOkReply() async throws {
        var s = try await setUp(points: 30, config: UploadQueue.Configuration(maxBatchPoints: 300))
        defer { s.server.stop() }
        let bad = [s.fixes[4], s.fixes[21]]
        for fix in bad {
            await s.server.state.rejectInReply(NativeBatchFormat.timestamp(fix.timestamp), message: "is more than 24 h ahead")
        }
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(3600))
        let held = try s.store.quarantinedBatches()
        #expect(Set(held.flatMap(\.fixes)) == Set(bad) && held.allSatisfy { $0.fixes.count == 1 })
        #expect(held.allSatisfy { $0.reason == "rejected by the server: properties.timestamp: is more than 24 h ahead" })
        #expect(s.uploader.queue.backlog.quarantined == 2 && s.uploader.queue.backlog.isEmpty)
        #expect(try s.store.fixCount() == 2, "only the rejected points stay on the device")
        #expect(s.uploader.requests == 1, "rejected points are not retried")
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(24 * 3600))
        #expect(s.uploader.requests == 1)
        #expect(await s.server.state.points(device: "phone-1").count == 28)
    }

    @Test("gap markers go up after the fixes of a batch, alone when no fix follows, and stay queryable on the device")
    func uploadsGapMarkers() async throws {
        var s = try await setUp(points: 30, config: UploadQueue.Configuration(maxBatchPoints: 300, maxBatchAge: 60))
        defer { s.server.stop() }
        let first = GapRecord(ride: s.ride, start: TestFixes.start.addingTimeInterval(10),
                              end: TestFixes.start.addingTimeInterval(14), reason: "terminated")
        try s.store.recordGap(first)
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(600))
        #expect(await s.server.state.points(device: "phone-1").count == 30)
        #expect(s.uploader.requests == 1, "the gap marker rode along with the fixes")
        let late = GapRecord(ride: s.ride, start: TestFixes.start.addingTimeInterval(29),
                             end: TestFixes.start.addingTimeInterval(400), reason: "notRunningUntilOpened")
        try s.store.recordGap(late)
        #expect(try s.store.backlog().unbatchedGaps == 1)
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(3600))
        #expect(s.uploader.requests == 2, "a gap marker without fixes is sent on its own once it is old enough")
        let gaps = await s.server.state.gaps(device: "phone-1")
        #expect(gaps.map(\.reason).sorted() == ["notRunningUntilOpened", "terminated"])
        #expect(gaps.contains { $0.start == NativeBatchFormat.timestamp(late.start) && $0.end == NativeBatchFormat.timestamp(late.end) })
        #expect(try s.store.gaps(of: s.ride) == [first, late], "uploaded gap markers stay on the device")
        #expect(try s.store.gapsAwaitingUpload().isEmpty && s.store.backlog().isEmpty)
    }
}
