import Foundation

/// One point of a batch that the server did not store although it accepted the request (a 2xx
/// reply listing it under `rejected`), with the server's reason.
///
/// A `Sendable` value type.
public struct UploadRejection: Hashable, Sendable, Codable {
    /// The 0-based position of the feature in the request's `locations` array.
    public var index: Int
    /// The server's reason (`"properties.timestamp: … is before 2000-01-01T00:00:00Z"`).
    public var reason: String

    /// Makes a rejection.
    public init(index: Int, reason: String) {
        self.index = index
        self.reason = reason
    }
}
