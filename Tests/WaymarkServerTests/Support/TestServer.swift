import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer
import WaymarkServerTesting

/// A server under test: ``TestTrackingServer`` (the `WaymarkServerTesting` product) over a fresh
/// store of each kind, with a fixed clock.
struct TestServer: Sendable {
    /// The server's clock reading for every request: 2025-06-16T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_750_032_000)
    static let adminToken = TestTrackingServer.adminToken

    let server: TestTrackingServer
    var store: any Store { server.store }
    var client: any TestClientProtocol { server.client }
    var device: DeviceRecord { server.device }
    var deviceToken: String { server.deviceToken }

    init(server: TestTrackingServer) { self.server = server }

    init(store: any Store, client: any TestClientProtocol, device: DeviceRecord, deviceToken: String) {
        server = TestTrackingServer(store: store, client: client, device: device, deviceToken: deviceToken)
    }

    /// Runs `body` against a server over a fresh store of `kind`. `webhooks` decides which internal addresses
    /// `POST /api/webhooks` accepts: by default 127.0.0.1, where ``WebhookReceiver`` listens.
    static func run<T: Sendable>(_ kind: StoreKind, configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
                                 webhooks: WebhookPolicy = .localReceivers,
                                 _ body: @Sendable (TestServer) async throws -> T) async throws -> T {
        try await kind.withStore { store in
            try await TestTrackingServer.run(store: store, configure: { configuration in
                configuration.clock = { now }
                configure(&configuration)
            }, webhooks: webhooks) { server in
                try await body(TestServer(server: server))
            }
        }
    }

    /// Sends a request and returns the response.
    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, headers: HTTPFields = [:],
              body: String? = nil) async throws -> TestResponse {
        try await server.send(method, uri, token: token, headers: headers, body: body)
    }

    /// Every stored position of the test device, in time order.
    func storedPositions() async throws -> [Position] {
        try await server.storedPositions()
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
