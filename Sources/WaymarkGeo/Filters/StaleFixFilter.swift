import Foundation

/// Drops fixes measured too long before a reference time (for example a cached fix
/// the OS delivers at launch).
///
/// A fix is stale when `referenceTime - fix.timestamp > maximumAge`. Fixes from after
/// the reference time are kept. A `Sendable` value type.
///
/// ```swift
/// var fresh = StaleFixFilter(maximumAge: 10, referenceTime: launchTime)
/// ```
public struct StaleFixFilter: FixFilter {
    /// Oldest accepted age, seconds.
    public var maximumAge: TimeInterval
    /// The time ages are measured against (usually "now" or the start of a session).
    public var referenceTime: Date

    /// Makes a filter that keeps fixes at most `maximumAge` seconds older than `referenceTime`.
    public init(maximumAge: TimeInterval, referenceTime: Date) {
        precondition(maximumAge >= 0, "maximum age must be non-negative")
        self.maximumAge = maximumAge
        self.referenceTime = referenceTime
    }

    /// Returns `fix` unless it is stale.
    public mutating func process(_ fix: Fix) -> Fix? {
        referenceTime.timeIntervalSince(fix.timestamp) > maximumAge ? nil : fix
    }
}
