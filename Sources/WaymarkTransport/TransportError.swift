import Foundation
import WaymarkGeo

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
public struct TransportError: CodedError {
    /// What kind of problem this is. New codes may be added; switch with a `default`.
    public struct Code: ErrorCode {
        /// The error type that carries these codes.
        public typealias Thrown = TransportError
        /// Matches a thrown `TransportError` of this code, so `catch` can name it: `catch TransportError.Code.<code> { … }`.
        public static func ~= (code: Code, error: any Error) -> Bool { code.matches(error) }
        /// The code's name.
        public let rawValue: String
        /// The upload configuration is unusable (a server URL without an http(s) scheme or host).
        public static let configuration = Code(rawValue: "configuration")
        /// A file of the ``UploadOutcomeStore`` (an outcome or a request body) could not be written.
        public static let outcomeStore = Code(rawValue: "outcomeStore")
        /// A body does not follow the native batch format (``NativeBatchFormat/decode(_:)``).
        public static let format = Code(rawValue: "format")
        /// An upload format's options are unusable: an invalid ``UploadTemplate``, an empty OwnTracks
        /// user (``UploadFormat/owntracks(user:device:trackerID:)``). The message names the option and
        /// what is wrong with it.
        public static let uploadFormat = Code(rawValue: "uploadFormat")
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

}
