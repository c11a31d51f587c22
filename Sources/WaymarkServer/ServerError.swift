import Foundation
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
public struct ServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem this is. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let rawValue: String
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
        /// The body parsed but contains no valid point (HTTP 422); see ``ServerError/problems``.
        public static let noValidPoint = Code(rawValue: "noValidPoint", status: 422)
        /// The database failed or is misconfigured (HTTP 500).
        public static let storage = Code(rawValue: "storage", status: 500)
        /// The server configuration is invalid (bad database URL, unreadable file).
        public static let configuration = Code(rawValue: "configuration", status: 500)
        public var description: String { rawValue }
    }

    /// The kind of problem.
    public var code: Code
    /// A sentence saying what is wrong and what was expected.
    public var message: String
    /// Per-point problems of an ingest request (empty otherwise).
    public var problems: [PointProblem]

    /// Makes an error with a code, a message and optional per-point problems.
    public init(_ code: Code, _ message: String, problems: [PointProblem] = []) {
        self.code = code
        self.message = message
        self.problems = problems
    }

    public var description: String {
        problems.isEmpty ? "\(code): \(message)" : "\(code): \(message) (\(problems.map(\.description).joined(separator: "; ")))"
    }
}

extension ServerError: HTTPResponseError {
    /// The HTTP status this error is answered with.
    public var status: HTTPResponse.Status { HTTPResponse.Status(code: code.status) }

    /// Renders the error as a JSON reply.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var error: [String: Any] = ["code": code.rawValue, "message": message]
        if !problems.isEmpty { error["problems"] = problems.map(\.jsonObject) }
        return JSONReply.response(["error": error], status: status)
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

    var jsonObject: [String: Any] { ["index": index, "field": field, "message": message] }
}
