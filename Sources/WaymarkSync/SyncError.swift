import Foundation
import WaymarkGeo

/// The one error type of `WaymarkSync`.
///
/// Match on ``code`` in a `catch`:
///
/// ```swift
/// do { _ = try RideStore(path: path) }
/// catch let error as SyncError where error.code == .storage { print(error.message) }
/// ```
///
/// A `Sendable` value type.
public struct SyncError: CodedError {
    /// What kind of problem this is. New codes may be added; switch with a `default`.
    public struct Code: ErrorCode {
        /// The error type that carries these codes.
        public typealias Thrown = SyncError
        /// Matches a thrown `SyncError` of this code, so `catch` can name it: `catch SyncError.Code.<code> { … }`.
        public static func ~= (code: Code, error: any Error) -> Bool { code.matches(error) }
        /// The code's name.
        public let rawValue: String
        /// The device database could not be opened, migrated, read or written.
        public static let storage = Code(rawValue: "storage")
        /// A ride, batch or other record named by the caller does not exist.
        public static let notFound = Code(rawValue: "notFound")
        /// The upload configuration is unusable (bad server URL...).
        public static let configuration = Code(rawValue: "configuration")
        /// Refreshing the device credentials failed.
        public static let credentials = Code(rawValue: "credentials")
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
