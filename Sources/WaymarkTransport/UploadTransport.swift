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

/// One batch upload: body, idempotency key and device token.
///
/// A `Sendable` value type.
public struct UploadRequest: Hashable, Sendable {
    /// The batch's idempotency key (`Idempotency-Key` header).
    public var key: String
    /// The JSON body (native batch format).
    public var body: [UInt8]
    /// The device token (`Authorization: Bearer …`).
    public var token: String

    /// Makes a request.
    public init(key: String, body: [UInt8], token: String) {
        self.key = key
        self.body = body
        self.token = token
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
