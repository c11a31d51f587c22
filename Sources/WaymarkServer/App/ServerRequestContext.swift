import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's basics plus the connection's close future, so that
/// long work (decoding a large body) stops when the client goes away.
public struct ServerRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Completes when the request's connection closes (nil where there is no connection, as in some tests).
    public let closeFuture: EventLoopFuture<Void>?
    /// The peer's rate-limit share (``ConnectionLimiter/addressKey(_:)``: its IPv4 address or IPv6 /64; empty
    /// without an IP peer).
    let remoteAddressKey: [UInt8]

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        closeFuture = source.channel.closeFuture
        remoteAddressKey = ConnectionLimiter.addressKey(source.channel.remoteAddress)
    }
}
