import Foundation
import Testing
import WaymarkEngine
@testable import WaymarkSync
import WaymarkCLI

/// Collects the device commands a driver forwards.
actor CommandLog {
    var commands: [DeviceCommand] = []
    func append(_ command: DeviceCommand) { commands.append(command) }
}

@Suite("UploadDriver (the actor that runs the queue for real)")
struct UploadDriverTests {
    @Test("a flush uploads everything over HTTP, holding a background task only while sending")
    func flushUploads() async throws {
        let server = try await IngestTestServer.start()
        defer { server.stop() }
        await server.state.register(token: "tok", device: "phone-1")
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        let fixes = TestFixes.ride(count: 450)
        try store.append(fixes, to: ride.id)
        let executor = UploadExecutor(store: store, transport: try HTTPUploadTransport(server: server.baseURL),
                                      format: NativeBatchFormat(deviceID: "phone-1"),
                                      credentials: DeviceCredentials(token: "tok"))
        let log = CommandLog()
        let driver = try UploadDriver(executor: executor,
                                      configuration: .init(maxBatchPoints: 200, maxBatchAge: 3600), seed: 3,
                                      commands: { await log.append($0) })
        await driver.flush()
        for await status in driver.statuses where status.backlog.isEmpty && status.phase == .idle { break }
        await driver.stop()
        #expect(await server.state.points(device: "phone-1").count == 450)
        #expect(try store.fixCount() == 0)
        #expect(await log.commands == [.beginBackgroundTask(id: 6_000), .endBackgroundTask(id: 6_000)])
        #expect(await server.state.stats(device: "phone-1").requests == 3)
    }

    @Test("offline, the driver sends nothing; reachability brings the upload")
    func waitsForNetwork() async throws {
        let server = try await IngestTestServer.start()
        defer { server.stop() }
        await server.state.register(token: "tok", device: "phone-1")
        let store = try RideStore.inMemory()
        let ride = try store.startRide(at: TestFixes.start)
        try store.append(TestFixes.ride(count: 20), to: ride.id)
        let executor = UploadExecutor(store: store, transport: try HTTPUploadTransport(server: server.baseURL),
                                      credentials: DeviceCredentials(token: "tok"))
        let driver = try UploadDriver(executor: executor, seed: 3, online: false)
        await driver.flush()
        #expect(await driver.queue.backlog.pending.count == 1, "the batch is formed and kept")
        #expect(await server.state.stats(device: "phone-1").requests == 0)
        await driver.handle(.networkReachability(online: true))
        for await status in driver.statuses where status.backlog.isEmpty && status.phase == .idle { break }
        await driver.stop()
        #expect(await server.state.points(device: "phone-1").count == 20)
    }
}

@Suite("HTTPUploadTransport")
struct HTTPUploadTransportTests {
    @Test("sends to the configured path with bearer token, JSON content type and the idempotency key")
    func requestShape() async throws {
        let server = try await IngestTestServer.start(path: "/v2/points")
        defer { server.stop() }
        await server.state.register(token: "secret", device: "phone-1")
        let transport = try HTTPUploadTransport(server: URL(string: "http://127.0.0.1:\(server.port)/")!, path: "v2/points")
        #expect(transport.url == "http://127.0.0.1:\(server.port)/v2/points")
        let body = NativeBatchFormat().body(for: TestFixes.ride(count: 2))
        let response = await transport.send(UploadRequest(key: "batch-1", body: body, token: "secret"))
        #expect(response.isAcknowledgement)
        let seen = try #require(await server.state.lastHeaders)
        #expect(seen.contentType == "application/json" && seen.key == "batch-1")
        let refused = await transport.send(UploadRequest(key: "batch-2", body: body, token: "wrong"))
        guard case .status(401, _) = refused else { Issue.record("expected 401, got \(refused)"); return }
        #expect(refused.serverMessage == "unknown or expired token")
    }

    @Test("a server URL without http(s) scheme or host is a configuration error")
    func badURL() {
        #expect { try HTTPUploadTransport(server: URL(string: "ftp://example.com")!) } throws: {
            ($0 as? SyncError)?.code == .configuration
        }
    }

    @Test("nobody listening: a connection failure, reported, not thrown")
    func refusedConnection() async throws {
        // Port 1 (tcpmux) has no listener on a test machine.
        let transport = try HTTPUploadTransport(server: URL(string: "http://127.0.0.1:1")!, timeout: .seconds(2))
        let response = await transport.send(UploadRequest(key: "k", body: [], token: "t"))
        switch response {
        case .connectionFailed, .timedOut: break
        default: Issue.record("expected a connection failure, got \(response)")
        }
    }
}
