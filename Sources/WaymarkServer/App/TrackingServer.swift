import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Logging

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
    public static func makeRouter(configuration: ServerConfiguration, store: any Store) -> Router<Context> {
        let router = Router(context: Context.self)
        let routes = Routes(configuration: configuration, store: store,
                            auth: Authenticator(store: store, adminTokenDigest: configuration.adminTokenDigest))
        routes.addIngestRoutes(to: router)
        routes.addDeviceRoutes(to: router)
        routes.addQueryRoutes(to: router)
        return router
    }

    /// The application: the router on the configured address.
    ///
    /// The store must be running for as long as the application (see ``StoreFactory/withStore(at:logger:_:)``).
    /// `onServerRunning` receives the bound port (useful with port 0).
    public static func makeApplication(configuration: ServerConfiguration, store: any Store,
                                       logger: Logger = Logger(label: "waymark.server"),
                                       onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol {
        Application(
            router: makeRouter(configuration: configuration, store: store),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "waymark"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }
}

/// The shared state of the route handlers.
struct Routes: Sendable {
    let configuration: ServerConfiguration
    let store: any Store
    let auth: Authenticator

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
