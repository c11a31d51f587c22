import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

/// Webhook subscriptions, the outbox and delivery to a real receiver on 127.0.0.1 (allowed explicitly:
/// ``WebhookPolicy/localReceivers``; the destination checks are in `WebhookDestinationTests`).
@Suite("Webhooks")
struct WebhookTests {
    static let secret = "whs_test-secret"
    static let fence = #"{"id":"f_depot","name":"Depot","latitude":46.05,"longitude":14.5,"radiusMeters":100}"#

    /// Two points from outside into the depot, at `minute` and `minute + 1` of 2025-06-15 10:00 UTC.
    static func enterBatch(minute: Int, lat: Double = 46.05) -> String {
        func f(_ m: Int, _ lat: Double) -> String {
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[14.5,\#(lat)]},"properties":{"timestamp":"2025-06-15T10:\#(String(format: "%02d", m)):00Z"}}"#
        }
        return #"{"locations":[\#(f(minute, 46.06)),\#(f(minute + 1, lat))]}"#
    }

    static func subscribe(_ server: TestServer, _ url: URL) async throws -> String {
        let reply = try await server.send(.post, "/api/webhooks", token: TestServer.adminToken,
                                          body: #"{"url":"\#(url.absoluteString)","secret":"\#(secret)"}"#)
        #expect(reply.status == .created)
        return try #require(try reply.json()["id"] as? String)
    }

    @Test("HMAC-SHA256 signature matches RFC 4231 test case 2")
    func signatureVector() {
        let hex = WebhookSignature.hex(body: Data("what do ya want for nothing?".utf8), secret: "Jefe")
        #expect(hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("delivers a fence event once, signed, and marks it delivered", arguments: StoreKind.available)
    func signedDelivery(kind: StoreKind) async throws {
        try await WebhookReceiver.run { receiver, url in
            try await TestServer.run(kind) { server in
                _ = try await Self.subscribe(server, url)
                _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: Self.fence)
                _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: Self.enterBatch(minute: 0))
                #expect(try await server.store.outboxDepth().pending == 1)
                let deliverer = WebhookDeliverer(store: server.store, policy: .localReceivers)
                #expect(try await deliverer.deliverDue(at: TestServer.now) == 1)
                #expect(try await deliverer.deliverDue(at: TestServer.now.addingTimeInterval(3600)) == 0)
                let got = await receiver.received
                #expect(got.count == 1)
                let request = try #require(got.first)
                #expect(request.signature == WebhookSignature.header(body: request.body, secret: Self.secret))
                #expect(request.signature?.hasPrefix("sha256=") == true)
                let payload = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
                #expect(payload["type"] as? String == "fence.enter" && payload["fence_id"] as? String == "f_depot")
                #expect(payload["device_id"] as? String == server.device.id)
                #expect(try await server.store.deliveries(state: .delivered, limit: 10).count == 1)
                #expect(try await server.store.outboxDepth().pending == 0)
            }
        }
    }

    @Test("retries after a 500 with exponential backoff, then delivers", arguments: StoreKind.available)
    func retryAfter500(kind: StoreKind) async throws {
        try await WebhookReceiver.run(failures: 2) { receiver, url in
            try await TestServer.run(kind) { server in
                _ = try await Self.subscribe(server, url)
                _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: Self.fence)
                _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: Self.enterBatch(minute: 0))
                var policy = WebhookPolicy.localReceivers
                policy.baseBackoffSeconds = 10
                let deliverer = WebhookDeliverer(store: server.store, policy: policy)
                let t = TestServer.now
                #expect(try await deliverer.deliverDue(at: t) == 1)                          // 500
                let pending = try #require(try await server.store.deliveries(state: .pending, limit: 1).first)
                #expect(pending.attempts == 1 && pending.lastError == "HTTP 500")
                #expect(pending.nextAttemptAt == t.addingTimeInterval(10))
                #expect(try await deliverer.deliverDue(at: t.addingTimeInterval(9)) == 0)   // not yet due
                #expect(try await deliverer.deliverDue(at: t.addingTimeInterval(10)) == 1)  // 500 again
                #expect(try await server.store.deliveries(state: .pending, limit: 1).first?.nextAttemptAt == t.addingTimeInterval(30))
                #expect(try await deliverer.deliverDue(at: t.addingTimeInterval(29)) == 0)
                #expect(try await deliverer.deliverDue(at: t.addingTimeInterval(30)) == 1)  // 200
                let got = await receiver.received
                #expect(got.count == 3)
                #expect(Set(got.map(\.body)).count == 1, "every retry sends the same signed body")
                #expect(try await server.store.deliveries(state: .delivered, limit: 10).first?.attempts == 3)
            }
        }
    }

    /// Subscribes `url`, causes one fence event and runs delivery rounds an hour apart, more than
    /// `maxAttempts` of them; returns the webhook id, the deliverer and the time after the last round.
    static func failUntilDead(_ server: TestServer, _ url: URL, maxAttempts: Int) async throws
        -> (hook: String, deliverer: WebhookDeliverer, time: Date) {
        let hook = try await subscribe(server, url)
        _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: fence)
        _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: enterBatch(minute: 0))
        var policy = WebhookPolicy.localReceivers
        policy.maxAttempts = maxAttempts
        policy.baseBackoffSeconds = 1
        let deliverer = WebhookDeliverer(store: server.store, policy: policy)
        var t = TestServer.now
        for _ in 0..<(maxAttempts + 2) {
            try await deliverer.deliverDue(at: t)
            t = t.addingTimeInterval(3600)
        }
        return (hook, deliverer, t)
    }

    @Test("a delivery that keeps failing becomes dead and shows in the API", arguments: StoreKind.available)
    func deadLetter(kind: StoreKind) async throws {
        try await WebhookReceiver.run(failures: 1000) { receiver, url in
            try await TestServer.run(kind) { server in
                let (hook, _, _) = try await Self.failUntilDead(server, url, maxAttempts: 4)
                #expect(await receiver.received.count == 4)
                let reply = try await server.send(.get, "/api/webhooks/deliveries?state=dead", token: TestServer.adminToken).json()
                let dead = try #require(reply["deliveries"] as? [[String: Any]])
                #expect(dead.count == 1)
                #expect(dead.first?["attempts"] as? Int == 4 && dead.first?["webhook_id"] as? String == hook)
                #expect(dead.first?["last_error"] as? String == "HTTP 500")
                let depth = try await server.store.outboxDepth()
                #expect(depth.pending == 0 && depth.dead == 1)
                let byDevice = try await server.send(.get, "/api/webhooks/deliveries?state=dead", token: server.deviceToken)
                #expect(byDevice.status == .forbidden)
            }
        }
    }

    @Test("an operator requeues a dead delivery once the receiver is fixed", arguments: StoreKind.available)
    func requeueDead(kind: StoreKind) async throws {
        try await WebhookReceiver.run(failures: 3) { receiver, url in
            try await TestServer.run(kind) { server in
                let (hook, deliverer, t) = try await Self.failUntilDead(server, url, maxAttempts: 3)
                let dead = try #require(try await server.store.deliveries(state: .dead, limit: 10).first)
                let retry = "/api/webhooks/deliveries/retry"
                #expect(try await server.send(.post, retry, token: server.deviceToken, body: "{}").status == .forbidden)
                #expect(try await server.send(.post, retry, token: TestServer.adminToken, body: #"{"id":"x"}"#).status == .badRequest)
                let other = try await server.send(.post, retry, token: TestServer.adminToken, body: #"{"webhook_id":"w_none"}"#)
                #expect(try other.json()["requeued"] as? Int == 0)
                let requeued = try await server.send(.post, retry, token: TestServer.adminToken, body: #"{"id":\#(dead.id)}"#)
                #expect(try requeued.json()["requeued"] as? Int == 1)
                let pending = try #require(try await server.store.deliveries(state: .pending, limit: 10).first)
                #expect(pending.id == dead.id && pending.attempts == 0 && pending.lastError == nil && pending.webhookID == hook)
                // The receiver now answers 200: the next round delivers it.
                #expect(try await deliverer.deliverDue(at: t) == 1)
                #expect(try await server.store.deliveries(state: .delivered, limit: 10).map(\.id) == [dead.id])
                #expect(await receiver.received.count == 4)
                let again = try await server.send(.post, retry, token: TestServer.adminToken, body: "")
                #expect(try again.json()["requeued"] as? Int == 0, "nothing dead is left")
            }
        }
    }

    @Test("a receiver that does not answer in time counts as a failure", arguments: [StoreKind.sqlite])
    func timeout(kind: StoreKind) async throws {
        try await WebhookReceiver.run(hang: true) { _, url in
            try await TestServer.run(kind) { server in
                _ = try await Self.subscribe(server, url)
                _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: Self.fence)
                _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: Self.enterBatch(minute: 0))
                var policy = WebhookPolicy.localReceivers
                policy.timeoutSeconds = 0.3
                try await WebhookDeliverer(store: server.store, policy: policy).deliverDue(at: TestServer.now)
                let pending = try #require(try await server.store.deliveries(state: .pending, limit: 1).first)
                #expect(pending.attempts == 1 && pending.lastError == "timed out")
            }
        }
    }

    @Test("manages subscriptions: list hides the secret, delete drops pending deliveries", arguments: StoreKind.available)
    func manage(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let bad = try await server.send(.post, "/api/webhooks", token: TestServer.adminToken, body: #"{"url":"ftp://x"}"#)
            #expect(bad.status == .badRequest)
            let id = try await Self.subscribe(server, URL(string: "http://127.0.0.1:9/hook")!)
            let list = try await server.send(.get, "/api/webhooks", token: TestServer.adminToken).json()
            let hooks = try #require(list["webhooks"] as? [[String: Any]])
            #expect(hooks.map { $0["id"] as? String } == [id] && hooks.first?["secret"] == nil)
            _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: Self.fence)
            _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: Self.enterBatch(minute: 0))
            #expect(try await server.store.outboxDepth().pending == 1)
            #expect(try await server.send(.delete, "/api/webhooks/\(id)", token: TestServer.adminToken).status == .noContent)
            #expect(try await server.store.outboxDepth().pending == 0)
            #expect(try await server.send(.delete, "/api/webhooks/\(id)", token: TestServer.adminToken).status == .notFound)
        }
    }
}
