import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import Logging
import ServiceLifecycle
import WaymarkGeo

/// Builds the tracking server: a Hummingbird application over a ``Store``.
///
/// ```swift
/// let store = try SQLiteStore(path: "waymark.sqlite")
/// try await store.migrate()
/// let admin = try await AdminToken.establish(in: store, environmentToken: nil)
/// let app = TrackingServer.makeApplication(configuration: ServerConfiguration(adminTokenDigest: admin.digest),
///                                          store: store)
/// try await app.runService()   // stops on SIGINT/SIGTERM
/// ```
public enum TrackingServer {
    /// The request context of every route.
    public typealias Context = ServerRequestContext

    /// The router with every route; exposed so tests and embedders can add their own.
    ///
    /// `metrics` collects what `/metrics` shows; `feed` carries committed positions and events to `/api/stream`;
    /// `webhooks` decides which internal addresses `POST /api/webhooks` accepts (``WebhookPolicy/allowedDestinations``).
    ///
    /// - precondition: `configuration` is usable: every size and count limit at least 1 (the rejection
    ///   sample, heavy-decode threshold and decode queue at least 0), a positive ride gap, a positive and
    ///   finite stream-ticket lifetime, finite timeouts and retention periods that are not negative
    ///   (the message names every offending field).
    public static func makeRouter(configuration: ServerConfiguration, store: any Store,
                                  metrics: ServerMetrics = ServerMetrics(), feed: LiveFeed? = nil,
                                  webhooks: WebhookPolicy = WebhookPolicy()) -> Router<Context> {
        ContractCheck.require(configuration.contractViolations, in: "ServerConfiguration")
        let feed = feed ?? LiveFeed(maxPendingPositions: configuration.liveStreamMaxPendingPositions)
        let rateLimiter = RateLimiter(perAddress: configuration.rateLimitPerAddress, perDevice: configuration.rateLimitPerDevice,
                                      maxEntries: configuration.rateLimitTableSize, now: configuration.monotonicClock)
        let router = Router(context: Context.self)
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: NoSniffMiddleware())
        router.add(middleware: RateLimitMiddleware(limiter: rateLimiter, metrics: metrics))
        if BackgroundLaneMiddleware<Context>.enabled {
            router.add(middleware: BackgroundLaneMiddleware<Context>(thresholdBytes: configuration.heavyDecodeThresholdBytes))
        }
        let routes = Routes(configuration: configuration, store: store,
                            auth: Authenticator(store: store, adminTokenDigest: configuration.adminTokenDigest,
                                                rateLimiter: rateLimiter, onRateLimited: { metrics.refused("rate_device") }),
                            metrics: metrics, feed: feed,
                            decodeGate: DecodeGate(slots: configuration.maxConcurrentDecodes, queueLimit: configuration.maxQueuedDecodes),
                            writeLane: configuration.largeWriteLane
                                ? LargeWriteLane(largeEntries: configuration.largeWriteEntries, slots: configuration.maxConcurrentLargeWrites,
                                                 queueLimit: configuration.maxQueuedLargeWrites)
                                : nil,
                            tickets: StreamTickets(lifetime: configuration.streamTicketSeconds, clock: configuration.clock),
                            streams: StreamQuota(perDevice: configuration.maxStreamsPerDevice, perAdmin: configuration.maxStreamsPerAdmin,
                                                 total: configuration.maxStreams))
        routes.addLiveRoutes(to: router)
        routes.addDashboardRoute(to: router)
        routes.addIngestRoutes(to: router)
        routes.addDeviceRoutes(to: router)
        routes.addQueryRoutes(to: router)
        routes.addFenceRoutes(to: router)
        routes.addWebhookRoutes(to: router, policy: webhooks)
        return router
    }

    /// The application: the router on the configured address, plus the webhook delivery service.
    ///
    /// The store must be running for as long as the application (see ``StoreFactory/withStore(at:durability:logger:_:)``).
    /// `webhooks` nil runs no delivery worker (e.g. when another process delivers for a SQLite file).
    /// `onServerRunning` receives the bound port (useful with port 0).
    public static func makeApplication(configuration: ServerConfiguration, store: any Store,
                                       webhooks: WebhookPolicy? = WebhookPolicy(),
                                       logger: Logger = Logger(label: "waymark.server"),
                                       onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        ContractCheck.require(configuration.contractViolations, in: "ServerConfiguration")
        let metrics = ServerMetrics()
        var services: [any Service] = []
        if let webhooks {
            let clock = configuration.clock
            services.append(WebhookService(deliverer: WebhookDeliverer(store: store, policy: webhooks, metrics: metrics), clock: clock))
        }
        if configuration.idempotencyRetentionSeconds != nil || configuration.historyRetentionSeconds != nil
            || store is PostgresStore {
            services.append(RetentionService(store: store, retentionSeconds: configuration.idempotencyRetentionSeconds,
                                             historySeconds: configuration.historyRetentionSeconds,
                                             clock: configuration.clock, logger: logger))
        }
        var application = Application(
            router: makeRouter(configuration: configuration, store: store, metrics: metrics, webhooks: webhooks ?? WebhookPolicy()),
            server: httpServer(configuration: configuration, metrics: metrics),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "waymark"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
        application.addServices(services)
        return application
    }
}

extension TrackingServer {
    /// HTTP/1.1 with the server's connection protections (see `ConnectionGuard`): at most
    /// ``ServerConfiguration/maxConnections`` open connections (503 past it), and the header and body
    /// timeouts. `limiter` is shared by every connection of one server.
    ///
    /// - precondition: `configuration` is usable (see ``makeRouter(configuration:store:metrics:feed:webhooks:)``).
    public static func httpServer(configuration: ServerConfiguration, metrics: ServerMetrics = ServerMetrics(),
                                  limiter: ConnectionLimiter? = nil) -> HTTPServerBuilder {
        ContractCheck.require(configuration.contractViolations, in: "ServerConfiguration")
        let limiter = limiter ?? ConnectionLimiter(limit: configuration.maxConnections,
                                                   perAddressLimit: configuration.effectiveMaxConnectionsPerAddress)
        let headerTimeout = TimeAmount.nanoseconds(Int64(configuration.headerTimeoutSeconds * 1e9))
        let bodyTimeout = TimeAmount.nanoseconds(Int64(configuration.bodyTimeoutSeconds * 1e9))
        return .http1(configuration: .init(additionalChannelHandlers: [
            ConnectionGuard(limiter: limiter, headerTimeout: headerTimeout, bodyTimeout: bodyTimeout,
                            onRefuse: { metrics.refused($0) }),
        ]))
    }
}

/// The shared state of the route handlers.
struct Routes: Sendable {
    let configuration: ServerConfiguration
    let store: any Store
    let auth: Authenticator
    let metrics: ServerMetrics
    let feed: LiveFeed
    let decodeGate: DecodeGate
    /// Where large writes wait for their turn; nil when ``ServerConfiguration/largeWriteLane`` is off.
    let writeLane: LargeWriteLane?
    let tickets: StreamTickets
    let streams: StreamQuota

    /// Collects the body, mapping an oversized one to 413. `limit` lowers ``ServerConfiguration/maxBodyBytes``
    /// (for bodies read before authentication).
    func body(of request: Request, limit: Int? = nil) async throws -> ByteBuffer {
        let limit = limit ?? configuration.maxBodyBytes
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw tooLarge(limit)
        }
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw tooLarge(limit)
        }
    }

    private func tooLarge(_ limit: Int) -> ServerError {
        limit < configuration.maxBodyBytes
            ? ServerError(.payloadTooLarge, "the body exceeds \(limit) bytes, the limit for a request whose credentials are "
                          + "in its body; send the token in an Authorization header or the query to send more")
            : ServerError(.payloadTooLarge, "the body exceeds the limit of \(limit) bytes; send smaller batches")
    }
}
