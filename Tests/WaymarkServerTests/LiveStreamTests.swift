import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import WaymarkServer
import NIOHTTP1

@Suite("Live stream (server-sent events)")
struct LiveStreamTests {
    /// Runs `body` against a server listening on 127.0.0.1 (a real socket, so responses stream).
    static func live<T: Sendable>(_ kind: StoreKind, configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
                                  _ body: @Sendable (TestServer, Int) async throws -> T) async throws -> T {
        try await kind.withStore { store in
            var configuration = ServerConfiguration(adminTokenDigest: TokenHasher.digest(TestServer.adminToken))
            configuration.clock = { TestServer.now }
            configure(&configuration)
            let (device, token) = try await DeviceRegistry.register(name: "phone", in: store, at: TestServer.now)
            let app = Application(router: TrackingServer.makeRouter(configuration: configuration, store: store),
                                  configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            return try await app.test(.live) { client in
                try await body(TestServer(store: store, client: client, device: device, deviceToken: token), try require_port(client.port))
            }
        }
    }

    /// Reads the SSE stream at `path` until `until` returns true for the text so far, after running `trigger`
    /// once the stream reports it is connected. Gives up after 20 s so a broken stream fails instead of hanging.
    static func read(port: Int, path: String, trigger: @escaping @Sendable () async throws -> Void,
                     until: @escaping @Sendable (String) -> Bool) async throws -> String {
        try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"),
                                                                   timeout: .seconds(30))
                #expect(response.headers.first(name: "Content-Type") == "text/event-stream")
                var text = "", triggered = false
                for try await chunk in response.body {
                    text += String(buffer: chunk)
                    if !triggered, text.contains(": connected") {
                        triggered = true
                        try await trigger()
                    }
                    if until(text) { return text }
                }
                return text
            }
            group.addTask {
                try await Task.sleep(for: .seconds(20))   // safety net only; the stream normally ends the test
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return try #require(first, "the stream did not deliver the expected events within 20 s")
        }
    }

    @Test("streams committed positions and fence events to the admin", arguments: StoreKind.available)
    func adminStream(kind: StoreKind) async throws {
        try await Self.live(kind) { server, port in
            _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: WebhookTests.fence)
            let ticket = try #require(try await server.send(.post, "/api/stream/ticket", token: TestServer.adminToken).json()["ticket"] as? String)
            let text = try await Self.read(port: port, path: "/api/stream?ticket=\(ticket)", trigger: {
                let r = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: WebhookTests.enterBatch(minute: 0))
                #expect(r.status == .ok)
            }, until: { $0.contains("event: fence") })
            let frames = text.components(separatedBy: "\n\n").filter { $0.hasPrefix("event:") }
            #expect(frames.count == 2)
            #expect(frames.first?.hasPrefix("event: position\ndata: {\"positions\":[") == true)
            #expect(frames.first?.contains(server.device.id) == true)
            #expect(frames.last?.contains(#""kind":"enter""#) == true)
        }
    }

    @Test("a device's stream carries only its own positions", arguments: [StoreKind.sqlite])
    func deviceStream(kind: StoreKind) async throws {
        try await Self.live(kind) { server, port in
            let (other, otherToken) = try await DeviceRegistry.register(name: "other", in: server.store, at: TestServer.now)
            let text = try await Self.read(port: port, path: "/api/stream?token=\(server.deviceToken)", trigger: {
                // The other device uploads first; only the second upload belongs to the stream's device.
                _ = try await server.send(.post, "/api/ingest", token: otherToken, body: WebhookTests.enterBatch(minute: 0))
                _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: WebhookTests.enterBatch(minute: 5))
            }, until: { $0.contains("event: position") })
            #expect(!text.contains(other.id))
            #expect(text.contains(server.device.id))
            #expect(try await server.send(.get, "/api/stream").status == .unauthorized)
        }
    }
}
