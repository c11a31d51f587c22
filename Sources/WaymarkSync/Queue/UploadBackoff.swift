import Foundation

/// The upload queue's retry state: how many attempts in a row failed and when the next may start.
///
/// The ``UploadQueue`` reports every change with ``UploadAction/saveBackoff(_:)``; the store keeps
/// it (``RideStore/saveUploadBackoff(_:)``) so that a relaunched process goes on waiting where
/// the previous one stopped instead of retrying at once.
///
/// ```swift
/// let queue = UploadQueue(backlog: try store.backlog(), backoff: try store.uploadBackoff())
/// ```
///
/// A `Sendable` value type; `retryAt` is a wall-clock instant.
public struct UploadBackoff: Hashable, Sendable, Codable {
    /// Consecutive failed attempts (0 after an acknowledgement).
    public var failures: Int
    /// No send before this time; nil when a send may start now.
    public var retryAt: Date?

    /// Makes a retry state; the default is "no failure, no wait".
    public init(failures: Int = 0, retryAt: Date? = nil) {
        self.failures = failures
        self.retryAt = retryAt
    }
}
