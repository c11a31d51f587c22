import Foundation
import Testing
import WaymarkSimulator
import WaymarkGeo
@testable import WaymarkSync
import WaymarkEngine
import WaymarkSimulatedPhone
import WaymarkCLI

/// Upload tests against a real HTTP server on 127.0.0.1 (no mock transport).
@Suite("Uploading to a real HTTP endpoint")
struct UploadHTTPTests {
    let config = UploadQueue.Configuration(maxBatchPoints: 300, maxBatchBytes: 1 << 20, maxBatchAge: 60,
                                           backoffBase: 2, backoffCap: 120)

    struct Setup {
        let server: IngestTestServer
        let store: RideStore
        let fixes: [Fix]
        var uploader: VirtualTimeUploader
    }

    func setUp(points: Int, token: String = "tok", registered: Bool = true, timeout: Duration = .seconds(60),
               clock: any Clock<Duration> = ContinuousClock(), refresh: @escaping @Sendable (String) async throws -> String = { $0 }) async throws -> Setup {
        let server = try await IngestTestServer.start()
        if registered { await server.state.register(token: token, device: "phone-1") }
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        let fixes = TestFixes.ride(count: points)
        try store.append(fixes, to: ride.id)
        let transport = try HTTPUploadTransport(server: server.baseURL, timeout: timeout, clock: clock)
        let uploader = try VirtualTimeUploader(store: store, transport: transport,
                                           credentials: DeviceCredentials(token: token, refresh: refresh),
                                           configuration: config, now: TestFixes.start.addingTimeInterval(Double(points)))
        return Setup(server: server, store: store, fixes: fixes, uploader: uploader)
    }

    func expectServerHas(_ fixes: [Fix], _ s: Setup, sourceLocation: Testing.SourceLocation = #_sourceLocation) async {
        let points = await s.server.state.points(device: "phone-1")
        let expected = fixes.map { IngestLedger.Point(timestamp: NativeBatchFormat.timestamp($0.timestamp),
                                                      longitude: $0.coordinate.longitude, latitude: $0.coordinate.latitude) }
        #expect(points.count == expected.count, sourceLocation: sourceLocation)
        #expect(Set(points) == Set(expected), sourceLocation: sourceLocation)
    }

    @Test("a 1,000-point ride goes up in batches of at most 300 and leaves the device store empty")
    func uploadsEverything() async throws {
        var s = try await setUp(points: 1_000)
        defer { s.server.stop() }
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(600))
        await expectServerHas(s.fixes, s)
        #expect(s.uploader.requests == 4)
        #expect(try s.store.fixCount() == 0)
        #expect(s.uploader.commands.first == .beginBackgroundTask(id: 6_000))
        #expect(s.uploader.commands.last == .endBackgroundTask(id: 6_000))
    }

    @Test("5xx answers back off in virtual time and the batch is stored once when the server recovers")
    func serverErrors() async throws {
        var s = try await setUp(points: 200)
        defer { s.server.stop() }
        await s.server.state.inject([.status(503), .status(500), .status(502)], token: "tok")
        let before = s.uploader.now
        try await s.uploader.drain(until: before.addingTimeInterval(3600))
        await expectServerHas(s.fixes, s)
        #expect(s.uploader.requests == 4)
        #expect(s.uploader.now > before, "the retries waited for their backoff deadlines")
        #expect(try s.store.fixCount() == 0)
    }

    @Test("a connection dropped after the server committed: the retry replays the key, nothing is stored twice")
    func droppedAfterCommit() async throws {
        var s = try await setUp(points: 250)
        defer { s.server.stop() }
        await s.server.state.inject([.dropAfterCommit], token: "tok")
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(3600))
        await expectServerHas(s.fixes, s)
        let stats = await s.server.state.stats(device: "phone-1")
        #expect(stats.requests == 2 && stats.replays == 1 && stats.crossBatchDuplicates == 0)
    }

    @Test("a reply slower than the client's timeout: the client retries under the same key")
    func timeoutAfterCommit() async throws {
        // The transport's timeout runs on a clock of the test's own, which the server moves past it as
        // it holds the reply: the attempt times out then, with no real time passing.
        let clock = SimulatedClock(startingAt: 0)
        var s = try await setUp(points: 120, timeout: .seconds(30), clock: clock)
        defer { s.server.stop() }
        // The server commits, then answers only once the client's retry has arrived.
        await s.server.state.inject([.holdAfterCommitUntilNextRequest], token: "tok")
        await s.server.state.whenHeld(device: "phone-1") { clock.advance(by: .seconds(30)) }
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(3600))
        await expectServerHas(s.fixes, s)
        #expect(s.uploader.sends.first?.response == .timedOut)
        let keys = Set(s.uploader.sends.map(\.key))
        #expect(keys.count == 1, "every attempt carried the batch's one key")
        let stats = await s.server.state.stats(device: "phone-1")
        #expect(stats.replays >= 1 && stats.requests == stats.replays + 1, "every retry was absorbed as a replay")
        #expect(stats.crossBatchDuplicates == 0)
        #expect(try s.store.fixCount() == 0)
    }

    @Test("413 above 40 points: batches split until they fit; every point arrives once")
    func splitsOn413() async throws {
        var s = try await setUp(points: 300)
        defer { s.server.stop() }
        await s.server.state.setMaxPoints(40)
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(3600))
        await expectServerHas(s.fixes, s)
        #expect(try s.store.fixCount() == 0)
        #expect(s.uploader.queue.failures == 0)
    }

    @Test("a single point still too large for the server is quarantined with the reason, not retried")
    func quarantinesOnePointTooLarge() async throws {
        var s = try await setUp(points: 3)
        defer { s.server.stop() }
        await s.server.state.setMaxPoints(0)
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(3600))
        let held = try s.store.quarantinedBatches()
        #expect(held.count == 3 && held.allSatisfy { $0.reason?.contains("413") == true })
        #expect(try s.store.fixCount() == 3, "quarantined points stay on the device")
        #expect(s.uploader.requests == 5, "one try, one split to 1+2, one more split, then each single point once")
    }

    @Test("401: the refresh hook gets a new token and the batch goes through")
    func refreshesCredentials() async throws {
        let box = ServerBox()
        var s = try await setUp(points: 50, token: "stale", registered: false) { _ in
            await box.server?.state.register(token: "fresh", device: "phone-1")
            return "fresh"
        }
        defer { s.server.stop() }
        await box.set(s.server)
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(600))
        await expectServerHas(s.fixes, s)
        #expect(await s.uploader.executor.credentials.token == "fresh")
    }

    @Test("422 for one marked point: only that point is quarantined, with the server's message", arguments: [409, 422])
    func isolatesRefusedPoint(code: Int) async throws {
        var s = try await setUp(points: 64)
        defer { s.server.stop() }
        let bad = s.fixes[37]
        await s.server.state.refuse(NativeBatchFormat.timestamp(bad.timestamp), with: code)
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(600))
        let held = try s.store.quarantinedBatches()
        #expect(held.map(\.fixes) == [[bad]])
        #expect(held.first?.reason == "HTTP \(code): the server refused the batch: point refused by test rule")
        await expectServerHas(s.fixes.filter { $0 != bad }, s)
    }

    @Test("killed after sending but before acting on the reply: the relaunched queue resends the same key")
    func killBeforeAcknowledgement() async throws {
        var s = try await setUp(points: 100)
        defer { s.server.stop() }
        s.uploader.killAfterSend = { true }
        try await s.uploader.drain(until: s.uploader.now.addingTimeInterval(600))
        #expect(try s.store.fixCount() == 100, "nothing is deleted without an acknowledgement")
        let key = try #require(try s.store.backlog().pending.first?.key)
        var relaunched = try VirtualTimeUploader(store: s.store, transport: s.uploader.executor.transport,
                                             credentials: DeviceCredentials(token: "tok"), configuration: config,
                                             seed: 2, now: s.uploader.now.addingTimeInterval(30))
        try await relaunched.drain(until: relaunched.now.addingTimeInterval(600))
        await expectServerHas(s.fixes, s)
        #expect(await s.server.state.stats(device: "phone-1").replays == 1)
        #expect(try s.store.batch(key) == nil && s.store.fixCount() == 0)
    }
}

/// Lets a refresh hook reach a server started after the hook was made.
actor ServerBox {
    var server: IngestTestServer?
    func set(_ server: IngestTestServer) { self.server = server }
}
