import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

@Suite("Prometheus metrics")
struct MetricsTests {
    @Test("/metrics shows ingested points, request latency and outbox depth", arguments: StoreKind.available)
    func exposition(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: WebhookTests.fence)
            _ = try await Self.subscribeNowhere(server)
            let reply = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: WebhookTests.enterBatch(minute: 0))
            #expect(reply.status == .ok)
            let text = try await server.send(.get, "/metrics").text
            #expect(text.contains("waymark_ingest_points_total 2"))
            #expect(text.contains(#"waymark_http_request_duration_seconds_count{method="POST",route="/api/ingest",status="200"} 1"#))
            #expect(text.contains(#"waymark_http_request_duration_seconds_bucket{method="POST",route="/api/ingest",status="200",le="+Inf"} 1"#))
            #expect(text.contains("waymark_outbox_depth 1"))
        }
    }

    static func subscribeNowhere(_ server: TestServer) async throws -> TestResponse {
        try await server.send(.post, "/api/webhooks", token: TestServer.adminToken, body: #"{"url":"http://127.0.0.1:9/x","secret":"s"}"#)
    }

    @Test("failed webhook attempts and dead deliveries are counted")
    func webhookFailures() async throws {
        try await WebhookReceiver.run(failures: 100) { _, url in
            try await TestServer.run(.sqlite) { server in
                _ = try await server.send(.post, "/api/webhooks", token: TestServer.adminToken,
                                          body: #"{"url":"\#(url.absoluteString)","secret":"s"}"#)
                _ = try await server.send(.post, "/api/fences", token: TestServer.adminToken, body: WebhookTests.fence)
                _ = try await server.send(.post, "/api/ingest", token: server.deviceToken, body: WebhookTests.enterBatch(minute: 0))
                let metrics = ServerMetrics()
                var policy = WebhookPolicy()
                policy.maxAttempts = 2
                let deliverer = WebhookDeliverer(store: server.store, policy: policy, metrics: metrics)
                try await deliverer.deliverDue(at: TestServer.now)
                #expect(metrics.exposition().contains("waymark_webhook_failures_total 1"))
                try await deliverer.deliverDue(at: TestServer.now.addingTimeInterval(3600))
                let text = metrics.exposition()
                #expect(text.contains("waymark_webhook_failures_total 2"))
                #expect(text.contains("waymark_outbox_dead 1") && text.contains("waymark_outbox_depth 0"))
            }
        }
    }
}
