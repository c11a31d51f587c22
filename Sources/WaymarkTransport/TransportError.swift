import Foundation

/// The one error type of `WaymarkTransport`.
///
/// Match on ``code`` in a `catch`:
///
/// ```swift
/// do { _ = try IngestEndpoint(server: url) }
/// catch let error as TransportError where error.code == .configuration { log(error.message) }
/// ```
///
/// A `Sendable` value type.
public struct TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem this is. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let rawValue: String
        /// The upload configuration is unusable (a server URL without an http(s) scheme or host).
        public static let configuration = Code(rawValue: "configuration")
        /// A file of the ``UploadOutcomeStore`` (an outcome or a request body) could not be written.
        public static let outcomeStore = Code(rawValue: "outcomeStore")
        /// The code's name.
        public var description: String { rawValue }
        /// Matches a thrown `TransportError` of this code, so `catch` can name the code:
        /// `catch TransportError.Code.<code> { … }` (as GRDB does with `DatabaseError`).
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? TransportError)?.code == code
        }
    }

    /// The kind of problem.
    public var code: Code
    /// A sentence saying what is wrong and what to do about it.
    public var message: String

    /// Makes an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message, prefixed with the code.
    public var description: String { "\(code): \(message)" }
}
