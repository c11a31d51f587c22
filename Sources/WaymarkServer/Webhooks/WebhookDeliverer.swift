import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

/// Sends due outbox deliveries to their webhooks and settles them: delivered, retried later, or dead.
///
/// Each round claims up to ``WebhookPolicy/batchSize`` due deliveries (PostgreSQL:
/// `FOR UPDATE SKIP LOCKED`, so several processes share the work without overlap), POSTs
/// them concurrently with the `X-Waymark-Signature` header, and records the result. Delivery
/// is at least once: a process that dies after sending but before settling leaves the row to be
/// claimed again when its lease ends. Time is passed in, so tests drive retries without sleeping.
/// `Sendable`.
///
/// ```swift
/// let deliverer = WebhookDeliverer(store: store, client: HTTPClient.shared)
/// let attempted = try await deliverer.deliverDue(at: Date())
/// ```
public struct WebhookDeliverer: Sendable {
    /// The store holding the outbox.
    public let store: any Store
    /// The HTTP client used for every delivery.
    public let client: HTTPClient
    /// Retry, timeout and batching rules.
    public let policy: WebhookPolicy
    let metrics: ServerMetrics
    let logger: Logger

    /// Makes a deliverer.
    public init(store: any Store, client: HTTPClient = .shared, policy: WebhookPolicy = WebhookPolicy(),
                metrics: ServerMetrics = ServerMetrics(), logger: Logger = Logger(label: "waymark.webhooks")) {
        self.store = store
        self.client = client
        self.policy = policy
        self.metrics = metrics
        self.logger = logger
    }

    /// Runs one round at time `now`; returns how many deliveries were attempted (0 when none was due).
    /// - throws: ``ServerError`` ``ServerError/Code/storage`` when the outbox cannot be read or updated.
    @discardableResult
    public func deliverDue(at now: Date) async throws -> Int {
        let claimed = try await store.claimDeliveries(at: now, limit: policy.batchSize, leaseSeconds: policy.leaseSeconds)
        guard !claimed.isEmpty else { return 0 }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for delivery in claimed {
                group.addTask {
                    let failure = await send(delivery)
                    try await settle(delivery, failure: failure, now: now)
                }
            }
            try await group.waitForAll()
        }
        metrics.outboxDepth(try await store.outboxDepth())
        return claimed.count
    }

    /// POSTs one delivery; nil on a 2xx reply, otherwise what went wrong.
    func send(_ delivery: OutboxDelivery) async -> String? {
        guard let url = delivery.url else { return "the webhook has no URL" }
        let body = Data(delivery.payload.utf8)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "waymark-webhooks")
        request.headers.add(name: WebhookSignature.headerName, value: WebhookSignature.header(body: body, secret: delivery.secret ?? ""))
        request.headers.add(name: "X-Waymark-Event-ID", value: String(delivery.eventID))
        request.headers.add(name: "X-Waymark-Delivery-ID", value: String(delivery.id))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(policy.timeoutSeconds * 1000)))
            _ = try? await response.body.collect(upTo: 64 << 10)
            return (200..<300).contains(Int(response.status.code)) ? nil : "HTTP \(response.status.code)"
        } catch {
            return "\(error)"
        }
    }

    func settle(_ delivery: OutboxDelivery, failure: String?, now: Date) async throws {
        guard let failure else {
            try await store.settleDelivery(id: delivery.id, state: .delivered, nextAttemptAt: now, error: nil, at: now)
            return
        }
        metrics.webhookFailed()
        let dead = delivery.attempts >= policy.maxAttempts
        let next = now.addingTimeInterval(policy.backoff(afterAttempts: delivery.attempts))
        logger.warning("webhook delivery failed", metadata: [
            "delivery": "\(delivery.id)", "attempt": "\(delivery.attempts)", "error": "\(failure)", "dead": "\(dead)",
        ])
        try await store.settleDelivery(id: delivery.id, state: dead ? .dead : .pending, nextAttemptAt: next, error: failure, at: now)
    }
}
