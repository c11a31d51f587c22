import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import WaymarkSync
import WaymarkTransport

/// The HTTP transport over AsyncHTTPClient: `POST {server}{path}` with the request's body, query
/// items and headers (`UploadRequest.headerFields`; for the native format `Authorization: Bearer <token>`,
/// `Content-Type: application/json`, `Idempotency-Key: <batch key>`). Each attempt has its own timeout, measured on the transport's clock
/// (the continuous clock unless you give another, such as a test's virtual clock); nothing is retried here.
///
/// ```swift
/// let transport = try HTTPUploadTransport(server: URL(string: "https://track.example.com")!)
/// let response = await transport.send(request)
/// ```
///
/// Thread-safety: `Sendable`; the shared `HTTPClient` may be used from any task.
public struct HTTPUploadTransport: UploadTransport {
    /// The full ingest URL.
    public let url: String
    /// The server's base URL, without a trailing slash (fences are read from `{base}/api/fences`).
    public let base: String
    /// Time allowed for one attempt, connection included.
    public let timeout: Duration
    /// The clock the timeout is measured on.
    public let clock: any Clock<Duration>
    let client: HTTPClient

    /// Makes a transport for `server` (scheme, host, port) and the ingest `path`.
    ///
    /// - parameter server: the server's base URL; it needs an `http` or `https` scheme and a host.
    ///   Trailing slashes are dropped before `path` is appended.
    /// - parameter path: the ingest route on that server; a leading `/` is added when missing.
    /// - parameter timeout: the time allowed for one attempt, connection included (the request's deadline).
    /// - parameter clock: measures the timeout; a test passes a clock it drives (WaymarkSimulator's
    ///   `SimulatedClock`), so a reply that never comes times out when the test says, not after real time.
    /// - parameter client: the HTTP client; the process-wide shared client by default.
    /// - throws: ``SyncError`` `.configuration` when the server URL has no http(s) scheme or host.
    /// - precondition: `timeout` is positive.
    public init(server: URL, path: String = "/api/ingest", timeout: Duration = .seconds(30),
                clock: any Clock<Duration> = ContinuousClock(), client: HTTPClient = .shared) throws {
        precondition(timeout > .zero, "HTTPUploadTransport: timeout must be positive, not \(timeout)")
        guard let scheme = server.scheme, ["http", "https"].contains(scheme), server.host != nil else {
            throw SyncError(.configuration, "server URL '\(server)' needs an http or https scheme and a host")
        }
        var base = server.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        url = base + (path.hasPrefix("/") ? path : "/" + path)
        self.base = base
        self.timeout = timeout
        self.clock = clock
        self.client = client
    }

    /// Sends the request once; see `UploadTransport.send(_:)`.
    public func send(_ request: UploadRequest) async -> UploadResponse {
        var http = HTTPClientRequest(url: request.url(appendingQueryTo: url))
        http.method = .POST
        for field in request.headerFields { http.headers.replaceOrAdd(name: field.name, value: field.value) }
        http.body = .bytes(ByteBuffer(bytes: request.body))
        let prepared = http
        return await UploadResponse.attempt(within: timeout, on: clock) { await execute(prepared) }
    }

    /// Runs the request; the caller's timer on ``clock`` ends it by cancellation. A real-time backstop
    /// (four times the timeout plus a minute) ends a request that a clock never moved would leave open.
    private func execute(_ http: HTTPClientRequest) async -> UploadResponse {
        let deadline = NIODeadline.now() + TimeAmount(timeout * 4 + .seconds(60))
        do {
            let response = try await client.execute(http, deadline: deadline)
            let body = try await response.body.collect(upTo: 1 << 20)
            return .status(Int(response.status.code), body: Array(body.readableBytesView))
        } catch is CancellationError {
            return .cancelled
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout
            || error == .connectTimeout {
            return .timedOut
        } catch {
            if Task.isCancelled { return .cancelled }
            return .connectionFailed("\(error)")
        }
    }
}

extension HTTPUploadTransport: FenceListTransport {
    /// The most bytes read from one page of fences (the server's pages stop at 8 MiB).
    static let maxFencePageBytes = 16 << 20

    /// Sends `GET {base}/api/fences` once, with the device token and `If-None-Match` when the request
    /// names an `ETag`; see `FenceListTransport`. The attempt ends after ``timeout`` of real time.
    public func fetchFences(_ request: FenceListRequest) async -> FenceListResponse {
        var http = HTTPClientRequest(url: base + "/api/fences?" + request.query)
        http.method = .GET
        http.headers.add(name: "Authorization", value: "Bearer \(request.token)")
        http.headers.add(name: "Accept", value: "application/geo+json, application/json")
        if let tag = request.ifNoneMatch { http.headers.add(name: "If-None-Match", value: tag) }
        do {
            let response = try await client.execute(http, deadline: NIODeadline.now() + TimeAmount(timeout))
            let body = try await response.body.collect(upTo: Self.maxFencePageBytes)
            return FenceListResponse(status: Int(response.status.code), etag: response.headers.first(name: "ETag"),
                                     body: Array(body.readableBytesView))
        } catch {
            return .failed("GET \(base)/api/fences: \(error)")
        }
    }
}
