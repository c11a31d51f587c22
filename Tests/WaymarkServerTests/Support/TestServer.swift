import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

/// A server under test: an in-process Hummingbird router over a fresh store, a fixed clock,
/// an admin token and one registered device.
struct TestServer: Sendable {
    /// The server's clock reading for every request: 2025-06-16T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_750_032_000)
    static let adminToken = "wma_test-admin-token"

    let store: any Store
    let client: any TestClientProtocol
    let device: DeviceRecord
    let deviceToken: String

    /// Runs `body` against a server over a fresh store of `kind`. `webhooks` decides which internal addresses
    /// `POST /api/webhooks` accepts: by default 127.0.0.1, where ``WebhookReceiver`` listens.
    static func run<T: Sendable>(_ kind: StoreKind, configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
                                 webhooks: WebhookPolicy = .localReceivers,
                                 _ body: @Sendable (TestServer) async throws -> T) async throws -> T {
        try await kind.withStore { store in
            var configuration = ServerConfiguration(adminTokenDigest: TokenHasher.digest(adminToken))
            configuration.clock = { now }
            configure(&configuration)
            let (device, token) = try await DeviceRegistry.register(name: "phone", in: store, at: now)
            let app = Application(router: TrackingServer.makeRouter(configuration: configuration, store: store, webhooks: webhooks))
            return try await app.test(.router) { client in
                try await body(TestServer(store: store, client: client, device: device, deviceToken: token))
            }
        }
    }

    /// Sends a request and returns the response.
    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, headers: HTTPFields = [:],
              body: String? = nil) async throws -> TestResponse {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: uri, method: method, headers: headers,
                                        body: body.map { ByteBuffer(string: $0) })
    }

    /// Every stored position of the test device, in time order.
    func storedPositions() async throws -> [Position] {
        try await store.positions(PositionQuery(deviceID: device.id, limit: 100_000))
    }
}

extension TestResponse {
    /// The body as a UTF-8 string.
    var text: String { String(buffer: body) }

    /// The body parsed as a JSON object.
    func json() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
    }
}
