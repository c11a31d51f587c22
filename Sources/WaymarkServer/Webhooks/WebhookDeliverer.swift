import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOSSL
import NIOHTTP1
import WaymarkGeo

/// Sends due outbox deliveries to their webhooks and settles them: delivered, retried later, or dead.
///
/// Each round claims up to ``WebhookPolicy/batchSize`` due deliveries (PostgreSQL:
/// `FOR UPDATE SKIP LOCKED`, so several processes share the work without overlap), POSTs
/// them concurrently with the `X-Waymark-Signature` header, and records the result. Delivery
/// is at least once: a process that dies after sending but before settling leaves the row to be
/// claimed again when its lease ends. Time is passed in, so tests drive retries without sleeping.
/// `Sendable`.
///
/// Every attempt resolves the webhook's host, refuses internal addresses the policy does not allow
/// (see ``WebhookPolicy/allowedDestinations``), and connects to the checked address only, over a
/// connection of its own; redirects are not followed. A failure is recorded as a short category
/// ("connection failed", "timed out", "TLS handshake failed", "HTTP 503", "destination refused: …"),
/// never as the remote's error text.
///
/// ```swift
/// let deliverer = WebhookDeliverer(store: store)
/// let attempted = try await deliverer.deliverDue(at: Date())
/// ```
public struct WebhookDeliverer: Sendable {
    /// Looks a host up within a time limit.
    typealias Resolver = @Sendable (_ host: String, _ timeout: Duration) async -> HostResolver.Outcome

    /// The store holding the outbox.
    public let store: any WebhookStore
    /// Retry, timeout, batching and destination rules.
    public let policy: WebhookPolicy
    let metrics: ServerMetrics
    let logger: Logger
    let resolve: Resolver

    /// Makes a deliverer.
    ///
    /// - precondition: `policy` is usable: at least one attempt and one delivery per round; positive,
    ///   finite backoff, timeout and poll pause; a lease longer than the timeout (the message names
    ///   every offending field).
    public init(store: any WebhookStore, policy: WebhookPolicy = WebhookPolicy(), metrics: ServerMetrics = ServerMetrics(),
                logger: Logger = Logger(label: "waymark.webhooks")) {
        self.init(store: store, policy: policy, metrics: metrics, logger: logger, resolve: HostResolver.resolve)
    }

    /// Makes a deliverer that looks hosts up with `resolve` (tests stand in for DNS).
    init(store: any WebhookStore, policy: WebhookPolicy, metrics: ServerMetrics = ServerMetrics(),
         logger: Logger = Logger(label: "waymark.webhooks"), resolve: @escaping Resolver) {
        ContractCheck.require(policy.contractViolations, in: "WebhookPolicy")
        self.store = store
        self.policy = policy
        self.metrics = metrics
        self.logger = logger
        self.resolve = resolve
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

    /// POSTs one delivery to the address its host was checked at; nil on a 2xx reply, otherwise what went wrong.
    func send(_ delivery: OutboxDelivery) async -> String? {
        guard let url = delivery.url, let host = WebhookPolicy.connectionHost(of: url) else { return "the webhook has no URL" }
        let milliseconds = Int64(policy.timeoutSeconds * 1000)
        let deadline = NIODeadline.now() + .milliseconds(milliseconds)
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false  // one try per attempt; the outbox retries
        let addresses: [IPAddress]
        if let literal = IPAddress(host) {
            addresses = [literal]  // connected to as written
        } else {
            switch await resolve(host, .milliseconds(milliseconds)) {
            case .addresses(let found) where !found.isEmpty: addresses = found
            case .timedOut: return "timed out"
            case .addresses, .failed: return "DNS lookup failed"
            }
            // Connect to the checked address while Host, SNI and certificate checks keep the name.
            configuration.dnsOverride = [host: addresses[0].description]
        }
        if let refusal = policy.refusal(host: host, addresses: addresses) { return refusal }
        // A client of its own: no pooled connection can outlive the check it was made under.
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let failure = await post(delivery, to: url, with: client, deadline: deadline)
        try? await client.shutdown()
        return failure
    }

    private func post(_ delivery: OutboxDelivery, to url: URL, with client: HTTPClient, deadline: NIODeadline) async -> String? {
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
            let response = try await client.execute(request, deadline: deadline)
            _ = try? await response.body.collect(upTo: 64 << 10)
            let code = Int(response.status.code)
            switch code {
            case 200..<300: return nil
            case 300..<400: return "HTTP \(code) (redirects are not followed)"
            default: return "HTTP \(code)"
            }
        } catch {
            logger.debug("webhook request failed", metadata: ["delivery": "\(delivery.id)", "error": "\(error)"])
            return Self.category(of: error)
        }
    }

    /// A transport error as a short fixed category: the stored error must not echo the remote's
    /// internals (errno text, refused ports), which would make deliveries a port scanner.
    static func category(of error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout, .tlsHandshakeTimeout,
                 .getConnectionFromPoolTimeout:
                return "timed out"
            case .remoteConnectionClosed:
                return "connection closed before a reply"
            default:
                return "connection failed"
            }
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError { return "TLS handshake failed" }
        return "connection failed"
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
