import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The upload transport over a foreground `URLSession`: one `POST` per send, answered while the
/// process runs. It works on every platform (FoundationNetworking on Linux) and needs nothing
/// but Foundation, so an iOS app can use it with the 17.4 SDK.
///
/// Headers and body are those of ``IngestEndpoint``. `timeout` bounds the whole attempt, measured on
/// the transport's clock (``UploadResponse/attempt(within:on:_:)``; the continuous clock unless you give
/// another), and the session also applies it as its resource timeout and the wait for each packet (the
/// request's timeout); a late reply is ``UploadResponse/timedOut``, and the queue sends the batch again
/// under the same key.
/// Nothing is retried here. Cancelling the calling task cancels the request. On Linux,
/// FoundationNetworking counts the request timeout in whole seconds (a fraction is dropped, and
/// 0 s times out at once) and ignores the resource timeout, so there `timeout` is rounded up to
/// whole seconds, at least one, and bounds the wait for each packet only.
///
/// ```swift
/// let transport = try URLSessionUploadTransport(server: URL(string: "https://track.example.com")!)
/// let executor = UploadExecutor(store: store, transport: transport, credentials: credentials)
/// ```
///
/// An app that must upload while iOS has it suspended uses `BackgroundUploadTransport`
/// (WaymarkApple) instead; both map answers the same way (``UploadResponse/init(urlResponse:body:error:)``).
///
/// Thread-safety: `Sendable`; one session per transport, used from any task. Make one transport
/// per server and keep it (a `URLSession` lives until the process ends).
public struct URLSessionUploadTransport: UploadTransport {
    /// Where batches go.
    public let endpoint: IngestEndpoint
    /// Time allowed for one attempt, connection included.
    public let timeout: Duration
    /// The clock the timeout is measured on.
    public let clock: any Clock<Duration>
    let session: URLSession

    /// Makes a transport for `server` (scheme, host, port) and the ingest `path`.
    ///
    /// - parameter server: the server's base URL; it needs an `http` or `https` scheme and a host.
    ///   Trailing slashes are dropped before `path` is appended.
    /// - parameter path: the ingest route on that server; a leading `/` is added when missing.
    /// - parameter timeout: the time allowed for one attempt, connection included; it becomes the
    ///   session's resource timeout and each request's timeout (on Linux, whole seconds, at least one).
    /// - parameter clock: measures the whole attempt's timeout; a test passes a clock it drives. The
    ///   session's own timeouts stay in real time, as a backstop.
    /// - parameter configuration: the session's configuration, copied; `.ephemeral` by default
    ///   (no cookies or cache on disk). Its timeouts are set from `timeout`.
    /// - throws: ``TransportError`` `.configuration` when the server URL has no http(s) scheme or host.
    /// - precondition: `timeout` is positive.
    public init(server: URL, path: String = "/api/ingest", timeout: Duration = .seconds(30),
                clock: any Clock<Duration> = ContinuousClock(),
                configuration: URLSessionConfiguration = .ephemeral) throws {
        precondition(timeout > .zero, "URLSessionUploadTransport: timeout must be positive, not \(timeout)")
        endpoint = try IngestEndpoint(server: server, path: path)
        self.timeout = timeout
        self.clock = clock
        let config = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        config.timeoutIntervalForRequest = Self.requestTimeout(timeout)
        config.timeoutIntervalForResource = Self.seconds(timeout)
        session = URLSession(configuration: config)
    }

    /// Sends the request once; see ``UploadTransport/send(_:)``.
    public func send(_ request: UploadRequest) async -> UploadResponse {
        if Task.isCancelled { return .cancelled }
        let http = endpoint.urlRequest(for: request, timeout: Self.requestTimeout(timeout))
        let session = session
        return await UploadResponse.attempt(within: timeout, on: clock) {
            do {
                let (body, response) = try await session.upload(for: http, from: Data(request.body))
                return UploadResponse(urlResponse: response, body: body, error: nil)
            } catch {
                if Task.isCancelled { return .cancelled }
                return UploadResponse(transferError: error)
            }
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The request timeout for `duration`: as is on Apple platforms; whole seconds, at least
    /// one, with FoundationNetworking, which truncates it to whole seconds.
    static func requestTimeout(_ duration: Duration) -> TimeInterval {
        #if canImport(FoundationNetworking)
        max(1, seconds(duration).rounded(.up))
        #else
        seconds(duration)
        #endif
    }
}
