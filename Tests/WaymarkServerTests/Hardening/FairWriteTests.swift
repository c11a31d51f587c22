import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

/// #35 item 2: a small upload does not wait behind other clients' large ones. Large writes take turns, device by
/// device (``LargeWriteLane``), and the group commit of both stores commits small requests apart from large ones,
/// and first (``IngestGroups``).
@Suite("Fair writes: large uploads take turns and do not hold up small ones", .timeLimit(.minutes(5)))
struct FairWriteTests {
    static func write(_ device: String, _ points: Int) -> IngestWrite {
        IngestWrite(deviceID: device, positions: (0..<points).map { StoreTests.point(device, second: Double($0)) }, receivedAt: StoreTests.t0)
    }

    /// Queues `writes` in this order on `groups`, with nothing committing, and returns the groups it cuts, each as
    /// `device:points` labels.
    static func cut(_ groups: IngestGroups, _ writes: [IngestWrite]) async throws -> [[String]] {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (n, write) in writes.enumerated() {
                tasks.addTask {
                    await groups.waitUntilAdmitted(n)   // arrival order is fixed
                    _ = try await withCheckedThrowingContinuation { continuation in
                        _ = groups.enqueue(IngestGroups.Job(write: write, continuation: continuation))
                    }
                }
            }
            await groups.waitUntilAdmitted(writes.count)
            var cut: [[String]] = []
            while let group = groups.nextGroupOrStop() {
                cut.append(group.map { "\($0.write.deviceID):\($0.write.positions.count)" })
                for job in group { job.continuation.resume(returning: IngestOutcome(stored: 0, duplicates: 0, replayed: false)) }
            }
            try await tasks.waitForAll()
            return cut
        }
    }

    @Test("group commit: a large request goes alone, after the small requests queued behind it; a device keeps its order")
    func groupsPassLargeRequestsOnce() async throws {
        let writes = [Self.write("a", 8), Self.write("b", 1), Self.write("a", 1), Self.write("c", 1), Self.write("d", 8), Self.write("e", 1)]
        let fair = try await Self.cut(IngestGroups(maxRequests: 10, maxPositions: 50, maxCommitters: 1, largeEntries: 5), writes)
        // b, c and e pass a's and d's large requests; a's small one stays behind a's large one; each large one goes alone
        // once a group has passed it.
        #expect(fair == [["b:1", "c:1", "e:1"], ["a:8"], ["a:1"], ["d:8"]])
        // Without it (WAYMARK_FAIR_WRITES=off) the small requests share the large ones' commit, oldest first.
        let oldest = try await Self.cut(IngestGroups(maxRequests: 10, maxPositions: 50, maxCommitters: 1, largeEntries: nil), writes)
        #expect(oldest == [["a:8", "b:1", "a:1", "c:1", "d:8", "e:1"]])
    }

    @Test("group commit: a large request waits for one group of small ones at most")
    func largeRequestIsNotStarved() async throws {
        let groups = IngestGroups(maxRequests: 2, maxPositions: 50, maxCommitters: 1, largeEntries: 5)
        let cut = try await Self.cut(groups, [Self.write("a", 8), Self.write("b", 1), Self.write("c", 1), Self.write("d", 1), Self.write("e", 1)])
        #expect(cut == [["b:1", "c:1"], ["a:8"], ["d:1", "e:1"]])
    }

    /// Holds the lane's slots: each call to `write` waits until `release()` lets it go, and records its label.
    final class Writes: Sendable {
        let order = NIOLockedValueBox<[String]>([])
        let gates = NIOLockedValueBox<[String: CheckedContinuation<Void, Never>]>([:])

        func write(_ label: String) async -> String {
            order.withLockedValue { $0.append(label) }
            await withCheckedContinuation { continuation in gates.withLockedValue { $0[label] = continuation } }
            return label
        }

        /// Lets the write `label` finish once it has started.
        func release(_ label: String) async {
            while true {
                if let gate = gates.withLockedValue({ $0.removeValue(forKey: label) }) { gate.resume(); return }
                await Task.yield()
                try? await Task.sleep(for: .milliseconds(1))
            }
        }

        func started(_ count: Int) async {
            while order.withLockedValue({ $0.count }) < count { try? await Task.sleep(for: .milliseconds(1)) }
        }
    }

    @Test("lane: small writes never wait; large ones take one slot, devices in turn")
    func laneTakesDevicesInTurn() async throws {
        let lane = LargeWriteLane(largeEntries: 5, slots: 1, queueLimit: 8)
        let writes = Writes()
        try await withThrowingTaskGroup(of: String.self) { tasks in
            tasks.addTask { try await lane.run(device: "a", entries: 100, closeFuture: nil) { await writes.write("a1") } }
            await writes.started(1)                                       // a1 holds the slot
            // a's second and third large writes, then b's one, queue in this order.
            for (device, label) in [("a", "a2"), ("a", "a3"), ("b", "b1")] {
                let before = lane.waiting
                tasks.addTask { try await lane.run(device: device, entries: 100, closeFuture: nil) { await writes.write(label) } }
                while lane.waiting == before { try await Task.sleep(for: .milliseconds(1)) }
            }
            // A small write of any device passes at once.
            let small = try await lane.run(device: "a", entries: 5, closeFuture: nil) { "small" }
            #expect(small == "small" && lane.running == 1 && lane.waiting == 3)
            for (label, started) in [("a1", 2), ("a2", 3), ("b1", 4), ("a3", 4)] {
                await writes.release(label)
                await writes.started(started)
            }
            for try await _ in tasks {}
        }
        // b's one write went before a's third: the devices took turns.
        #expect(writes.order.withLockedValue { $0 } == ["a1", "a2", "b1", "a3"])
        #expect(lane.running == 0 && lane.waiting == 0)
    }

    @Test("lane: past its queue a large write gets 503 busy; one whose client leaves is dropped unwritten")
    func laneRefusesAndDrops() async throws {
        let lane = LargeWriteLane(largeEntries: 5, slots: 1, queueLimit: 1)
        let writes = Writes()
        let loop = EmbeddedEventLoop()
        let connectionClosed = loop.makePromise(of: Void.self)
        let holder = Task { try await lane.run(device: "a", entries: 100, closeFuture: nil) { await writes.write("held") } }
        await writes.started(1)
        let waiter = Task { try await lane.run(device: "b", entries: 100, closeFuture: connectionClosed.futureResult) { await writes.write("left") } }
        while lane.waiting == 0 { try await Task.sleep(for: .milliseconds(1)) }
        do {
            _ = try await lane.run(device: "c", entries: 100, closeFuture: nil) { "refused" }
            Issue.record("a write past the queue was admitted")
        } catch let error as ServerError {
            #expect(error.code == .busy && error.message.contains("large uploads"))
        }
        connectionClosed.succeed(())                     // b's client goes away while it waits
        let left = await waiter.result
        if case .failure(let error as ServerError) = left { #expect(error.code == .cancelled) } else { Issue.record("not dropped: \(left)") }
        await writes.release("held")
        #expect(try await holder.value == "held")
        #expect(writes.order.withLockedValue { $0 } == ["held"], "the dropped write never ran")
        #expect(try await lane.run(device: "c", entries: 100, closeFuture: nil) { "next" } == "next")
        #expect(lane.running == 0 && lane.waiting == 0)
    }

    /// An error whose reply records where it was encoded.
    struct ProbeError: HTTPResponseError {
        let seen: NIOLockedValueBox<[String: Bool]>
        var status: HTTPResponse.Status { .unprocessableContent }
        func response(from request: Request, context: some RequestContext) throws -> Response {
            seen.withLockedValue { $0["error reply"] = BackgroundExecutor.isCurrentThread }
            return Response(status: status)
        }
    }

    @Test("heavy requests run whole on the background threads (handler, error reply, reply body); small ones do not")
    func heavyRequestsRunInBackground() async throws {
        try await StoreKind.sqlite.withStore { store in
            var configuration = ServerConfiguration(adminTokenDigest: TokenHasher.digest(TestServer.adminToken))
            configuration.heavyDecodeThresholdBytes = 1_000
            let router = TrackingServer.makeRouter(configuration: configuration, store: store)
            let seen = NIOLockedValueBox<[String: Bool]>([:])
            router.post("/probe/reply") { request, _ -> Response in
                let size = try await request.body.collect(upTo: 1 << 20).readableBytes
                seen.withLockedValue { $0["handler \(size)"] = BackgroundExecutor.isCurrentThread }
                return Response(status: .ok, body: ResponseBody { writer in
                    seen.withLockedValue { $0["reply body \(size)"] = BackgroundExecutor.isCurrentThread }
                    try await writer.write(ByteBuffer(string: "ok"))
                    try await writer.finish(nil)
                })
            }
            router.post("/probe/error") { request, _ -> Response in
                _ = try await request.body.collect(upTo: 1 << 20)
                throw ProbeError(seen: seen)
            }
            router.get("/api/devices/:id/rides-probe") { _, _ -> Response in
                seen.withLockedValue { $0["small read"] = BackgroundExecutor.isCurrentThread }
                return Response(status: .ok)
            }
            let app = Application(router: router)
            try await app.test(.router) { client in
                let large = ByteBuffer(repeating: UInt8(ascii: "x"), count: 5_000), small = ByteBuffer(string: "x")
                let largeLength: HTTPFields = [.contentLength: "5000"], smallLength: HTTPFields = [.contentLength: "1"]
                let replied = try await client.execute(uri: "/probe/reply", method: .post, headers: largeLength, body: large)
                let smallReplied = try await client.execute(uri: "/probe/reply", method: .post, headers: smallLength, body: small)
                let refused = try await client.execute(uri: "/probe/error", method: .post, headers: largeLength, body: large)
                let read = try await client.execute(uri: "/api/devices/x/rides-probe", method: .get)
                #expect(replied.status == .ok && smallReplied.status == .ok && refused.status == .unprocessableContent && read.status == .ok)
            }
            let where_ = seen.withLockedValue { $0 }
            #expect(where_["handler 5000"] == true && where_["reply body 5000"] == true && where_["error reply"] == true,
                    "a 5,000-byte body (over the 1,000-byte threshold) runs on the background threads: \(where_)")
            #expect(where_["handler 1"] == false && where_["reply body 1"] == false && where_["small read"] == false,
                    "a small request stays on the shared threads: \(where_)")
        }
    }
}
