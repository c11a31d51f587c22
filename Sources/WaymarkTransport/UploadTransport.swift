import Foundation

/// Sends one upload request and reports what came back; the `UploadQueue` (WaymarkSync) decides what it means.
///
/// Implementations must not retry on their own (the queue owns retries and backoff) and must
/// honour task cancellation by returning ``UploadResponse/cancelled``. Waymark ships three:
/// ``URLSessionUploadTransport`` (a foreground `URLSession`, here, on every platform),
/// `HTTPUploadTransport` (AsyncHTTPClient, in WaymarkSync, for servers and Linux tools) and
/// `BackgroundUploadTransport` (a background `URLSession` that goes on uploading while iOS has
/// the app suspended, in WaymarkApple). This module needs only Foundation, so an iOS app can
/// compile it with any SDK; WaymarkSync re-exports it.
///
/// ```swift
/// let response = await transport.send(UploadRequest(key: batch.key, body: body, token: token))
/// ```
///
/// Thread-safety: implementations are `Sendable` and may be called from any task.
public protocol UploadTransport: Sendable {
    /// Sends the request once and returns the outcome; never throws.
    func send(_ request: UploadRequest) async -> UploadResponse

    /// Sends the request once at `time`, the time the sender reasons in (the wall clock on a phone, the
    /// virtual time in a simulation). A real network ignores it: the default calls ``send(_:)``. A
    /// simulated network (WaymarkSimulator's `SimulatedNetworkTransport`) answers as the scenario says
    /// its network and server behave at that time.
    func send(_ request: UploadRequest, at time: Date) async -> UploadResponse
}

extension UploadTransport {
    /// Sends the request once; `time` is ignored.
    public func send(_ request: UploadRequest, at time: Date) async -> UploadResponse {
        await send(request)
    }
}

/// One batch upload: body, idempotency key and device token, and how the format wants them sent.
///
/// The transport owns the URL (server and path); the request adds what its ``UploadFormat`` needs:
/// query items appended to that URL, the `Content-Type`, how the token travels (``authorization``),
/// whether the `Idempotency-Key` header goes along, and extra headers. The defaults are the native
/// format's: `Authorization: Bearer <token>`, `Content-Type: application/json`,
/// `Idempotency-Key: <key>`. ``IngestEndpoint/urlRequest(for:timeout:)`` turns it into an HTTP request.
///
/// A `Sendable` value type.
public struct UploadRequest: Hashable, Sendable {
    /// A name and a value (a query item or a header), kept in order.
    public struct Field: Hashable, Sendable {
        /// The name.
        public var name: String
        /// The value, unencoded.
        public var value: String

        /// Makes a field.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// How the device token travels.
    public enum Authorization: Hashable, Sendable {
        /// `Authorization: Bearer <token>` (Waymark, Overland).
        case bearer
        /// `Authorization: Basic base64(user:token)`: the token is the password (OwnTracks HTTP mode).
        case basic(user: String)
        /// No `Authorization` header: the format carries the token itself (OsmAnd's `id`, a template).
        case none
    }

    /// The batch's idempotency key (`Idempotency-Key` header when ``sendsIdempotencyKey``).
    public var key: String
    /// The body (empty for a format that sends everything in the query).
    public var body: [UInt8]
    /// The device token.
    public var token: String
    /// Query items appended to the transport's URL, in order.
    public var query: [Field]
    /// Headers added after the format's own (a name given twice keeps the last value).
    public var headers: [Field]
    /// The `Content-Type` header; nil sends none (an empty body).
    public var contentType: String?
    /// How the token travels.
    public var authorization: Authorization
    /// Whether the `Idempotency-Key: <key>` header goes along.
    public var sendsIdempotencyKey: Bool

    /// Makes a request; the defaults are the native format's.
    ///
    /// - parameter key: the batch's idempotency key.
    /// - parameter body: the request body.
    /// - parameter token: the device token.
    /// - parameter query: query items appended to the transport's URL.
    /// - parameter headers: extra headers, set after the format's own.
    /// - parameter contentType: the `Content-Type`; nil sends none.
    /// - parameter authorization: how the token travels.
    /// - parameter sendsIdempotencyKey: whether `Idempotency-Key` goes along.
    public init(key: String, body: [UInt8], token: String, query: [Field] = [], headers: [Field] = [],
                contentType: String? = "application/json", authorization: Authorization = .bearer,
                sendsIdempotencyKey: Bool = true) {
        self.key = key
        self.body = body
        self.token = token
        self.query = query
        self.headers = headers
        self.contentType = contentType
        self.authorization = authorization
        self.sendsIdempotencyKey = sendsIdempotencyKey
    }

    /// Every header this request sends, in order: authorization, content type, idempotency key,
    /// then ``headers`` (which replace an earlier header of the same name, compared without case).
    public var headerFields: [Field] {
        var fields: [Field] = []
        switch authorization {
        case .bearer: fields.append(Field("Authorization", "Bearer \(token)"))
        case .basic(let user): fields.append(Field("Authorization", "Basic " + Data("\(user):\(token)".utf8).base64EncodedString()))
        case .none: break
        }
        if let contentType { fields.append(Field("Content-Type", contentType)) }
        if sendsIdempotencyKey { fields.append(Field("Idempotency-Key", key)) }
        for header in headers {
            fields.removeAll { $0.name.lowercased() == header.name.lowercased() }
            fields.append(header)
        }
        return fields
    }

    /// `base` with ``query`` appended to its query string (percent-encoded as a form: spaces, `&`, `=`,
    /// `+` and other reserved characters escaped); `base` itself when there is no query item.
    public func url(appendingQueryTo base: String) -> String {
        guard !query.isEmpty else { return base }
        let encoded = query.map { Self.formEncoded($0.name) + "=" + Self.formEncoded($0.value) }.joined(separator: "&")
        return base + (base.contains("?") ? "&" : "?") + encoded
    }

    /// Characters left as they are in a query name or value: RFC 3986's unreserved set.
    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

/// What came back from one upload attempt.
///
/// A `Sendable` value type.
public enum UploadResponse: Hashable, Sendable {
    /// The server answered with this HTTP status and body.
    case status(Int, body: [UInt8])
    /// No complete answer within the transport's timeout.
    case timedOut
    /// The connection could not be made or broke before a complete answer (reason for logs).
    case connectionFailed(String)
    /// The attempt was cancelled (background time ran out, the app is shutting down).
    case cancelled

    /// True for a 2xx answer whose JSON body says `{"result":"ok"}`: the server committed the batch.
    public var isAcknowledgement: Bool {
        guard case .status(let code, let body) = self, (200..<300).contains(code) else { return false }
        let json = try? JSONSerialization.jsonObject(with: Data(body))
        return (json as? [String: Any])?["result"] as? String == "ok"
    }

    /// The points a 2xx reply lists under `rejected` (`[{"index":…,"field":…,"message":…}]`, as
    /// WaymarkServer answers): the server committed the rest of the batch but not these.
    /// Empty for any other reply.
    public var rejections: [UploadRejection] {
        guard case .status(let code, let body) = self, (200..<300).contains(code),
              let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let list = json["rejected"] as? [Any] else { return [] }
        return list.compactMap { item in
            guard let entry = item as? [String: Any], let index = (entry["index"] as? NSNumber)?.intValue else { return nil }
            let field = entry["field"] as? String
            let message = entry["message"] as? String ?? "rejected by the server"
            return UploadRejection(index: index, reason: field.map { "\($0): \(message)" } ?? message)
        }
    }

    /// The server's error message (`{"error":{"message":…}}`), or the start of the body.
    public var serverMessage: String? {
        guard case .status(_, let body) = self, !body.isEmpty else { return nil }
        if let json = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
           let error = json["error"] as? [String: Any], let message = error["message"] as? String {
            return message
        }
        return String(decoding: body.prefix(200), as: UTF8.self)
    }
}
