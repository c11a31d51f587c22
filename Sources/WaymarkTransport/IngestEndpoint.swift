import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where batches go, and the HTTP request that carries one: `POST {server}{path}`; for the native
/// format with `Authorization: Bearer <token>`, `Content-Type: application/json` and
/// `Idempotency-Key: <batch key>` (another ``UploadFormat`` shapes the query and headers itself).
///
/// The `URLSession` transports share it, so a foreground and a background upload of the same
/// batch are the same request, and the server can recognise a retry by its key.
///
/// ```swift
/// let endpoint = try IngestEndpoint(server: URL(string: "https://track.example.com")!)
/// var request = endpoint.urlRequest(for: upload, timeout: 30)   // no body: add it, or upload a file
/// ```
///
/// A `Sendable` value type.
public struct IngestEndpoint: Hashable, Sendable {
    /// The full ingest URL.
    public let url: URL

    /// Makes an endpoint for `server` (scheme, host, port) and the ingest `path`.
    ///
    /// - throws: ``TransportError`` `.configuration` when the server URL has no http(s) scheme or host.
    public init(server: URL, path: String = "/api/ingest") throws {
        guard let scheme = server.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = server.host, !host.isEmpty else {
            throw TransportError(.configuration, "server URL '\(server)' needs an http or https scheme and a host")
        }
        var base = server.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let text = base + (path.hasPrefix("/") ? path : "/" + path)
        guard let url = URL(string: text) else {
            throw TransportError(.configuration, "'\(text)' is not a valid URL: check the ingest path '\(path)'")
        }
        self.url = url
    }

    /// The request for one upload, without its body (set `httpBody`, or upload from a file): `POST`
    /// to ``url`` with the request's query items appended, and its ``UploadRequest/headerFields``.
    ///
    /// - parameter request: the upload whose token, idempotency key, query items and headers go in
    ///   the request (as its ``UploadFormat`` shaped them); its body is not used here.
    /// - parameter timeout: the request's idle timeout, in seconds.
    public func urlRequest(for request: UploadRequest, timeout: TimeInterval) -> URLRequest {
        let target = URL(string: request.url(appendingQueryTo: url.absoluteString)) ?? url
        var http = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        http.httpMethod = "POST"
        for field in request.headerFields {
            http.setValue(field.value, forHTTPHeaderField: field.name)
        }
        return http
    }
}
