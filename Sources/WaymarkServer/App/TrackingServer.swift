import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Logging
import ServiceLifecycle

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
    public typealias Context = BasicRequestContext

    /// The router with every route; exposed so tests and embedders can add their own.
    ///
    /// `metrics` collects what `/metrics` shows; `feed` carries committed positions and events to `/api/stream`;
    /// `webhooks` decides which internal addresses `POST /api/webhooks` accepts (``WebhookPolicy/allowedDestinations``).
    public static func makeRouter(configuration: ServerConfiguration, store: any Store,
                                  metrics: ServerMetrics = ServerMetrics(), feed: LiveFeed = LiveFeed(),
                                  webhooks: WebhookPolicy = WebhookPolicy()) -> Router<Context> {
        let router = Router(context: Context.self)
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        let routes = Routes(configuration: configuration, store: store,
                            auth: Authenticator(store: store, adminTokenDigest: configuration.adminTokenDigest),
                            metrics: metrics, feed: feed)
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
    /// The store must be running for as long as the application (see ``StoreFactory/withStore(at:logger:_:)``).
    /// `webhooks` nil runs no delivery worker (e.g. when another process delivers for a SQLite file).
    /// `onServerRunning` receives the bound port (useful with port 0).
    public static func makeApplication(configuration: ServerConfiguration, store: any Store,
                                       webhooks: WebhookPolicy? = WebhookPolicy(),
                                       logger: Logger = Logger(label: "waymark.server"),
                                       onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        let metrics = ServerMetrics()
        var services: [any Service] = []
        if let webhooks {
            let clock = configuration.clock
            services.append(WebhookService(deliverer: WebhookDeliverer(store: store, policy: webhooks, metrics: metrics), clock: clock))
        }
        if let retention = configuration.idempotencyRetentionSeconds {
            services.append(RetentionService(store: store, retentionSeconds: retention, clock: configuration.clock, logger: logger))
        }
        var application = Application(
            router: makeRouter(configuration: configuration, store: store, metrics: metrics, webhooks: webhooks ?? WebhookPolicy()),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "waymark"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
        application.addServices(services)
        return application
    }
}

/// The shared state of the route handlers.
struct Routes: Sendable {
    let configuration: ServerConfiguration
    let store: any Store
    let auth: Authenticator
    let metrics: ServerMetrics
    let feed: LiveFeed

    /// Collects the body, mapping an oversized one to 413.
    func body(of request: Request) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > configuration.maxBodyBytes {
            throw tooLarge()
        }
        do {
            return try await request.body.collect(upTo: configuration.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw tooLarge()
        }
    }

    private func tooLarge() -> ServerError {
        ServerError(.payloadTooLarge, "the body exceeds the limit of \(configuration.maxBodyBytes) bytes; send smaller batches")
    }
}
