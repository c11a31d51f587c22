import Foundation
import WaymarkGeo
import Hummingbird

/// The one error type of `WaymarkServer`.
///
/// Each error carries a ``Code`` that maps to an HTTP status, a message a client can act on,
/// and, for ingest requests, the per-point ``problems`` that made points invalid. Match on
/// ``code`` in a `catch`:
///
/// ```swift
/// do { try await store.migrate() }
/// catch let error as ServerError where error.code == .storage { logger.error("\(error)") }
/// ```
///
/// Thrown from a route handler, it becomes a JSON reply
/// `{"error":{"code":"…","message":"…","problems":[…]}}` with the matching status.
public struct ServerError: CodedError {
    /// What kind of problem this is. New codes may be added; switch with a `default`.
    public struct Code: ErrorCode {
        /// The error type that carries these codes.
        public typealias Thrown = ServerError
        /// Matches a thrown `ServerError` of this code, so `catch` can name it: `catch ServerError.Code.<code> { … }`.
        public static func ~= (code: Code, error: any Error) -> Bool { code.matches(error) }
        /// The code's name.
        public let rawValue: String
        let status: Int
        /// The request body could not be parsed (HTTP 400); the message says where.
        public static let malformedBody = Code(rawValue: "malformedBody", status: 400)
        /// A query parameter or path component is missing or invalid (HTTP 400).
        public static let badRequest = Code(rawValue: "badRequest", status: 400)
        /// No credentials, or credentials that match nothing (HTTP 401).
        public static let unauthorized = Code(rawValue: "unauthorized", status: 401)
        /// Valid credentials that may not do this (HTTP 403).
        public static let forbidden = Code(rawValue: "forbidden", status: 403)
        /// The device, fence or resource does not exist (HTTP 404).
        public static let notFound = Code(rawValue: "notFound", status: 404)
        /// The body exceeds the configured limit (HTTP 413).
        public static let payloadTooLarge = Code(rawValue: "payloadTooLarge", status: 413)
        /// The client took too long to send its request (HTTP 408).
        public static let requestTimeout = Code(rawValue: "requestTimeout", status: 408)
        /// The client holds as much of a per-client resource as it may (live streams, stream tickets), or sent requests
        /// faster than its address's or its device's rate limit allows (HTTP 429, with `Retry-After`).
        public static let tooManyRequests = Code(rawValue: "tooManyRequests", status: 429)
        /// The server is at a capacity limit (connections, queued decodes); retry later (HTTP 503).
        public static let busy = Code(rawValue: "busy", status: 503)
        /// The client went away before the request was answered (logged and counted; the client sees nothing).
        public static let cancelled = Code(rawValue: "cancelled", status: 499)
        /// The body parsed but contains no valid point (HTTP 422); see ``ServerError/problems``.
        public static let noValidPoint = Code(rawValue: "noValidPoint", status: 422)
        /// An `Idempotency-Key` already used by this device with a different request body or route (HTTP 422):
        /// nothing was stored; send the new batch under a new key.
        public static let idempotencyKeyReused = Code(rawValue: "idempotencyKeyReused", status: 422)
        /// The database failed or is misconfigured (HTTP 500).
        public static let storage = Code(rawValue: "storage", status: 500)
        /// The server configuration is invalid (bad database URL, unreadable file).
        public static let configuration = Code(rawValue: "configuration", status: 500)
    }

    /// The kind of problem.
    public var code: Code
    /// A sentence saying what is wrong and what was expected.
    public var message: String
    /// Per-point problems of an ingest request (empty otherwise): those of the first rejected entries only,
    /// see ``rejectedCount``.
    public var problems: [PointProblem]
    /// How many entries of an ingest request were rejected in all (may exceed the entries ``problems`` covers).
    public var rejectedCount: Int
    /// How many rejected entries each field was at fault in.
    public var rejectedByField: [String: Int]
    /// The seconds a client is told to wait (`Retry-After`) before it tries again; nil for the code's default
    /// (1 for `busy`, 5 for `tooManyRequests`, none for the rest).
    public var retryAfterSeconds: Int?

    /// Makes an error with a code, a message and optional per-point problems.
    public init(_ code: Code, _ message: String, problems: [PointProblem] = []) {
        self.code = code
        self.message = message
        self.problems = problems
        self.rejectedCount = Set(problems.map(\.index)).count
        self.rejectedByField = [:]
        self.retryAfterSeconds = nil
    }

    /// Makes an error about the rejected entries of an ingest request, from their bounded summary.
    public init(_ code: Code, _ message: String, rejections: Rejections) {
        self.init(code, message, problems: rejections.sample)
        rejectedCount = rejections.count
        rejectedByField = rejections.byField
    }

    public var description: String {
        guard !problems.isEmpty else { return "\(code): \(message)" }
        let more = rejectedCount > Set(problems.map(\.index)).count ? "; … \(rejectedCount) rejected in all" : ""
        return "\(code): \(message) (\(problems.prefix(20).map(\.description).joined(separator: "; "))\(more))"
    }
}

extension ServerError: HTTPResponseError {
    /// The HTTP status this error is answered with.
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: code.status) }

    /// Renders the error as a JSON reply.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        // Encoded with JSONEncoder (sorted keys, as every reply): an abusive client's stream of 4xx and 429
        // replies is then about 20× cheaper to answer than with JSONSerialization, whose sorted keys cost
        // most of the server's CPU in the hardening soak (#35).
        let body = ErrorReply(error: .init(
            code: code.rawValue, message: message,
            problems: problems.isEmpty ? nil : problems,
            rejectedCount: problems.isEmpty ? nil : rejectedCount,
            rejectedByField: problems.isEmpty || rejectedByField.isEmpty ? nil : rejectedByField))
        var response = JSONReply.response(encoding: body, status: status)
        if let retryAfterSeconds {
            response.headers[.retryAfter] = String(retryAfterSeconds)
        } else if code == .busy {
            response.headers[.retryAfter] = "1"
        } else if code == .tooManyRequests {
            response.headers[.retryAfter] = "5"
        }
        return response
    }
}

/// Why one point of an ingest request was rejected.
///
/// `index` is the 0-based position of the point in the request (for single-point formats, 0).
public struct PointProblem: Hashable, Sendable, Codable, CustomStringConvertible {
    /// 0-based index of the point in the request.
    public var index: Int
    /// The offending field as the client named it (`"lat"`, `"timestamp"`…).
    public var field: String
    /// What is wrong and what was expected.
    public var message: String

    /// Makes a problem report for the point at `index`.
    public init(index: Int, field: String, message: String) {
        self.index = index
        self.field = field
        self.message = message
    }

    public var description: String { "point \(index): \(field): \(message)" }
}

/// The body of every error reply: `{"error":{"code":…,"message":…,"problems":…,"rejected_count":…,"rejected_by_field":…}}`,
/// the last three only for ingest requests with rejected points.
private struct ErrorReply: Encodable {
    struct Body: Encodable {
        var code: String
        var message: String
        var problems: [PointProblem]?
        var rejectedCount: Int?
        var rejectedByField: [String: Int]?

        enum CodingKeys: String, CodingKey {
            case code, message, problems
            case rejectedCount = "rejected_count"
            case rejectedByField = "rejected_by_field"
        }
    }
    var error: Body
}
