import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import WaymarkServer

/// A real HTTP receiver on 127.0.0.1 for webhook tests: records every request and answers with a
/// scripted status (500 for the first `failures` requests, then 200; or a 302 to `redirect`).
///
/// Deliveries reach it only when the policy allows 127.0.0.1: use ``WebhookPolicy/localReceivers``.
actor WebhookReceiver {
    struct Received: Sendable {
        var signature: String?
        var eventID: String?
        var body: Data
    }

    private(set) var received: [Received] = []
    private var failures: Int
    private var hang: Bool
    private let redirect: String?

    init(failures: Int = 0, hang: Bool = false, redirect: String? = nil) {
        self.failures = failures
        self.hang = hang
        self.redirect = redirect
    }

    func record(_ request: Received) -> Response {
        received.append(request)
        if let redirect {
            return Response(status: .found, headers: [.location: redirect])
        }
        if failures > 0 {
            failures -= 1
            return Response(status: .internalServerError)
        }
        return Response(status: .ok)
    }

    var isHanging: Bool { hang }

    /// Runs `body` with the receiver listening; `url` is its webhook endpoint.
    static func run<T: Sendable>(failures: Int = 0, hang: Bool = false, redirect: String? = nil,
                                 _ body: @Sendable (WebhookReceiver, URL) async throws -> T) async throws -> T {
        let receiver = WebhookReceiver(failures: failures, hang: hang, redirect: redirect)
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let router = Router()
        // GET too: a client that follows a 302 after a POST comes back with a GET.
        let handle: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let data = Data(try await request.body.collect(upTo: 1 << 20).readableBytesView)
            let response = await receiver.record(Received(
                signature: request.headers[HTTPField.Name(WebhookSignature.headerName)!],
                eventID: request.headers[HTTPField.Name("X-Waymark-Event-ID")!], body: data))
            // A hanging receiver answers only when the test ends (the client's timeout fires first).
            if await receiver.isHanging { for await _ in release { break } }
            return response
        }
        router.post("/hook", use: handle)
        router.get("/hook", use: handle)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            defer { releaser.finish() }
            let port = try require_port(client.port)
            return try await body(receiver, URL(string: "http://127.0.0.1:\(port)/hook")!)
        }
    }
}

extension WebhookPolicy {
    /// The default policy, except that 127.0.0.1 (where ``WebhookReceiver`` listens) may receive deliveries.
    static var localReceivers: WebhookPolicy {
        var policy = WebhookPolicy()
        policy.allowedDestinations = try! AllowedDestination.list("127.0.0.1/32")  // a literal that reads
        return policy
    }
}

/// The port of a live test client, or an error.
func require_port(_ port: Int?) throws -> Int {
    guard let port else { throw ServerError(.configuration, "the live test server has no port") }
    return port
}
