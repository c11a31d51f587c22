import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import WaymarkServer

/// A real HTTP receiver on 127.0.0.1 for webhook tests: records every request and answers with a
/// scripted status (500 for the first `failures` requests, then 200).
actor WebhookReceiver {
    struct Received: Sendable {
        var signature: String?
        var eventID: String?
        var body: Data
    }

    private(set) var received: [Received] = []
    private var failures: Int
    private var hang: Bool

    init(failures: Int = 0, hang: Bool = false) {
        self.failures = failures
        self.hang = hang
    }

    func record(_ request: Received) -> HTTPResponse.Status {
        received.append(request)
        if failures > 0 {
            failures -= 1
            return .internalServerError
        }
        return .ok
    }

    var isHanging: Bool { hang }

    /// Runs `body` with the receiver listening; `url` is its webhook endpoint.
    static func run<T: Sendable>(failures: Int = 0, hang: Bool = false,
                                 _ body: @Sendable (WebhookReceiver, URL) async throws -> T) async throws -> T {
        let receiver = WebhookReceiver(failures: failures, hang: hang)
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let router = Router()
        router.post("/hook") { request, _ -> HTTPResponse.Status in
            let data = Data(try await request.body.collect(upTo: 1 << 20).readableBytesView)
            let status = await receiver.record(Received(
                signature: request.headers[HTTPField.Name(WebhookSignature.headerName)!],
                eventID: request.headers[HTTPField.Name("X-Waymark-Event-ID")!], body: data))
            // A hanging receiver answers only when the test ends (the client's timeout fires first).
            if await receiver.isHanging { for await _ in release { break } }
            return status
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await app.test(.live) { client in
            defer { releaser.finish() }
            let port = try require_port(client.port)
            return try await body(receiver, URL(string: "http://127.0.0.1:\(port)/hook")!)
        }
    }
}

/// The port of a live test client, or an error.
func require_port(_ port: Int?) throws -> Int {
    guard let port else { throw ServerError(.configuration, "the live test server has no port") }
    return port
}
