import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads one page of the fences a Waymark server holds (`GET /api/fences`), conditionally.
///
/// The server tags every page with the fence set's version (`ETag`); a request that names it in
/// `If-None-Match` is answered 304 without a body while no fence changed. WaymarkSync's `FenceSync`
/// keeps the phone's copy with it.
///
/// Thread-safety: implementations are `Sendable` and may be called from any task.
public protocol FenceListTransport: Sendable {
    /// Sends the request once and returns the outcome; never throws.
    func fetchFences(_ request: FenceListRequest) async -> FenceListResponse
}

/// One conditional request for a page of fences.
///
/// A `Sendable` value type.
public struct FenceListRequest: Hashable, Sendable {
    /// The device token (`Authorization: Bearer …`).
    public var token: String
    /// The id after which the page starts (`next` of the previous page); nil for the first page.
    public var after: String?
    /// Most fences in the page (the server allows 1–10,000).
    public var limit: Int
    /// The `ETag` of the copy held, sent as `If-None-Match`; nil asks unconditionally.
    public var ifNoneMatch: String?

    /// Makes a request.
    public init(token: String, after: String? = nil, limit: Int = 1000, ifNoneMatch: String? = nil) {
        self.token = token
        self.after = after
        self.limit = limit
        self.ifNoneMatch = ifNoneMatch
    }

    /// The query of `GET /api/fences` for this request.
    public var query: String {
        var items = [URLQueryItem(name: "limit", value: String(limit))]
        if let after { items.append(URLQueryItem(name: "after", value: after)) }
        var components = URLComponents()
        components.queryItems = items
        // `+` stays literal in a query; the server reads it as itself, so escape it like any reserved byte.
        return (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
    }
}

/// What came back from one fence request.
///
/// A `Sendable` value type.
public enum FenceListResponse: Hashable, Sendable {
    /// 200: the page's body (a GeoJSON FeatureCollection) and its `ETag`.
    case page(body: [UInt8], etag: String?)
    /// 304: the fences are unchanged since the `ETag` sent.
    case notModified
    /// Another status, with its body.
    case status(Int, body: [UInt8])
    /// No answer: offline, timed out, refused; the text says what happened.
    case failed(String)

    /// Reads an HTTP answer.
    public init(status: Int, etag: String?, body: [UInt8]) {
        switch status {
        case 200: self = .page(body: body, etag: etag)
        case 304: self = .notModified
        default: self = .status(status, body: body)
        }
    }
}

extension URLSessionUploadTransport: FenceListTransport {
    /// Sends `GET /api/fences` on the transport's server and session; see ``FenceListTransport``.
    public func fetchFences(_ request: FenceListRequest) async -> FenceListResponse {
        guard var components = URLComponents(url: endpoint.url, resolvingAgainstBaseURL: false) else {
            return .failed("the server URL \(endpoint.url) cannot be read")
        }
        components.path = "/api/fences"
        components.percentEncodedQuery = request.query
        guard let url = components.url else { return .failed("no fence URL can be made from \(endpoint.url)") }
        var http = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData,
                              timeoutInterval: Self.requestTimeout(timeout))
        http.setValue("Bearer \(request.token)", forHTTPHeaderField: "Authorization")
        http.setValue("application/json", forHTTPHeaderField: "Accept")
        if let tag = request.ifNoneMatch { http.setValue(tag, forHTTPHeaderField: "If-None-Match") }
        do {
            let (body, response) = try await session.data(for: http)
            guard let reply = response as? HTTPURLResponse else { return .failed("the answer is not HTTP") }
            return FenceListResponse(status: reply.statusCode, etag: reply.value(forHTTPHeaderField: "ETag"), body: Array(body))
        } catch {
            return .failed("\(error.localizedDescription)")
        }
    }
}
