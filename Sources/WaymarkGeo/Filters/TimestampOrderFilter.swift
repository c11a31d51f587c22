import Foundation

/// Drops fixes whose timestamp is not later than the last fix it passed: duplicates
/// (the same timestamp twice) and fixes that arrive out of order.
///
/// A `Sendable` value type; its state is the last passed timestamp.
public struct TimestampOrderFilter: FixFilter {
    /// Timestamp of the last fix passed on, if any.
    public private(set) var lastTimestamp: Date?

    /// Makes a filter that has seen nothing yet.
    public init() {}

    /// Returns `fix` if it is later than every fix passed before.
    public mutating func process(_ fix: Fix) -> Fix? {
        if let last = lastTimestamp, fix.timestamp <= last { return nil }
        lastTimestamp = fix.timestamp
        return fix
    }
}
