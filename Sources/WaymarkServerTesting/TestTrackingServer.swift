import Foundation
import HTTPTypes
import Hummingbird
@_exported import HummingbirdTesting
import NIOCore
import WaymarkServer

/// A tracking server under test, in process: the real router over a store, an admin token and one
/// registered device, driven through HummingbirdTesting's client (no socket, no port).
///
/// For operators' and client developers' tests: replay what a phone sends and check what the
/// server stored and answered.
///
/// ```swift
/// try await TestTrackingServer.run { server in
///     let response = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: batch)
///     #expect(response.status == .ok)
///     #expect(try await server.storedPositions().count == 2)
/// }
/// ```
///
/// The module re-exports HummingbirdTesting, whose `TestResponse` the requests return.
///
/// A `Sendable` value; use it inside `run`'s body only.
public struct TestTrackingServer: Sendable {
    /// The admin token of every test server (`Authorization: Bearer …` on admin routes).
    public static let adminToken = "wma_test-admin-token-for-waymark"

    /// The store the server runs on.
    public let store: any Store
    /// The in-process client.
    public let client: any TestClientProtocol
    /// The device registered before `body` runs.
    public let device: DeviceRecord
    /// That device's token (`Authorization: Bearer …` on ingest routes).
    public let deviceToken: String

    /// Wraps a server you started yourself, for example with `app.test(.live)` and the production
    /// HTTP pipeline (`TrackingServer.httpServer`), to use ``send(_:_:token:headers:body:)`` on it.
    public init(store: any Store, client: any TestClientProtocol, device: DeviceRecord, deviceToken: String) {
        self.store = store
        self.client = client
        self.device = device
        self.deviceToken = deviceToken
    }

    /// Runs `body` against a server over a fresh SQLite store in a temporary folder, removed afterwards.
    ///
    /// - parameter configure: adjusts the configuration (its admin token digest is already set),
    ///   e.g. `$0.clock = { fixedDate }` for reproducible times.
    /// - parameter webhooks: the webhook delivery policy (which destinations `POST /api/webhooks` accepts).
    /// - parameter body: the test, given the server with its registered device; `run` returns what it
    ///   returns and rethrows what it throws, after the temporary folder is removed.
    public static func run<T: Sendable>(configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
                                        webhooks: WebhookPolicy = WebhookPolicy(),
                                        _ body: @Sendable (TestTrackingServer) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteStore(path: folder.appendingPathComponent("server.sqlite").path)
        try await store.migrate()
        return try await run(store: store, configure: configure, webhooks: webhooks, body)
    }

    /// Runs `body` against a server over `store` (migrated by the caller), e.g. a PostgreSQL store
    /// on a schema of its own.
    public static func run<T: Sendable>(store: any Store, configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
                                        webhooks: WebhookPolicy = WebhookPolicy(),
                                        _ body: @Sendable (TestTrackingServer) async throws -> T) async throws -> T {
        var configuration = ServerConfiguration(adminTokenDigest: TokenHasher.digest(adminToken))
        configure(&configuration)
        let (device, token) = try await DeviceRegistry.register(name: "phone", in: store, at: configuration.clock())
        let app = Application(router: TrackingServer.makeRouter(configuration: configuration, store: store, webhooks: webhooks))
        return try await app.test(.router) { client in
            try await body(TestTrackingServer(store: store, client: client, device: device, deviceToken: token))
        }
    }

    /// Sends a request (with `Authorization: Bearer <token>` when a token is given) and returns the response.
    @discardableResult
    public func send(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, headers: HTTPFields = [:],
                     body: String? = nil) async throws -> TestResponse {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }

    /// Every stored position of the registered device, in time order.
    public func storedPositions() async throws -> [Position] {
        try await store.positions(PositionQuery(deviceID: device.id, limit: 100_000))
    }
}
