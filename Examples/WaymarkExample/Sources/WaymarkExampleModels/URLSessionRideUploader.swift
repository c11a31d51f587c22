import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the app uploads: a `waymark serve` base URL and a device token.
///
/// Make a token with `waymark device add NAME` on the server. A `Sendable`, `Codable` value type.
public struct ServerSettings: Hashable, Sendable, Codable {
    /// The server's base URL, e.g. `http://192.168.1.20:8080`.
    public var baseURL: URL
    /// The device token (`wmd_…`), sent as `Authorization: Bearer …`.
    public var deviceToken: String

    /// Makes settings.
    public init(baseURL: URL, deviceToken: String) {
        self.baseURL = baseURL
        self.deviceToken = deviceToken
    }

    /// Parses what the user typed; nil when the URL is not http(s) with a host or the token is empty.
    public init?(url text: String, token: String) {
        let trimmedToken = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines)),
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil, !trimmedToken.isEmpty else { return nil }
        self.init(baseURL: url, deviceToken: trimmedToken)
    }

    /// The ingest endpoint, `POST {baseURL}/api/ingest`.
    public var ingestURL: URL { baseURL.appendingPathComponent("api").appendingPathComponent("ingest") }
}

/// Uploads batches to `waymark serve` with `URLSession`, one request per batch.
///
/// It runs while the app runs: during a ride the location background mode keeps the app
/// running, so batches go out with the screen off. It does not use a background `URLSession`
/// configuration, so nothing is sent while iOS has the app suspended; what is left waits in the
/// ``UploadBuffer`` for the next run (README.md, "What is not wired yet").
///
/// ```swift
/// let uploader = URLSessionRideUploader(settings: ServerSettings(url: "http://192.168.1.20:8080", token: "wmd_…")!)
/// ```
///
/// `Sendable`: immutable, and `URLSession` is thread-safe.
public struct URLSessionRideUploader: RideUploader {
    /// Where to upload.
    public let settings: ServerSettings
    /// How long to wait for an answer, seconds.
    public let timeout: TimeInterval
    private let session: URLSession

    /// Makes an uploader over `session` (the shared session by default).
    public init(settings: ServerSettings, timeout: TimeInterval = 30, session: URLSession = .shared) {
        self.settings = settings
        self.timeout = timeout
        self.session = session
    }

    /// The request for `batch`: `POST /api/ingest` with the bearer token, the idempotency key and the JSON body.
    public func request(for batch: RideUploadBatch) -> URLRequest {
        var request = URLRequest(url: settings.ingestURL, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("Bearer \(settings.deviceToken)", forHTTPHeaderField: "Authorization")
        request.setValue(batch.idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(batch.body)
        return request
    }

    /// Sends `batch` once and reads the answer with ``outcome(status:body:)``; a transport error is `failed`.
    public func upload(_ batch: RideUploadBatch) async -> RideUploadOutcome {
        do {
            let (data, response) = try await session.data(for: request(for: batch))
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            return Self.outcome(status: status, body: data)
        } catch {
            return .failed("Not sent: \(error.localizedDescription)")
        }
    }

    /// Reads the server's answer (Docs/SERVER.md, "Reply and errors").
    public static func outcome(status: Int, body: Data) -> RideUploadOutcome {
        let json = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        switch status {
        case 200..<300:
            let rejected = (json?["rejected_count"] as? Int) ?? (json?["rejected"] as? [Any])?.count ?? 0
            return .accepted(rejected: rejected)
        case 413:
            return .tooLarge
        case 400, 422:
            let message = ((json?["error"] as? [String: Any])?["message"] as? String) ?? "no valid point"
            return .refused(status: status, message: message)
        case 401, 403:
            return .failed("The server refused the device token (\(status)); check it in Settings")
        default:
            return .failed("The server answered \(status); will try again")
        }
    }
}
