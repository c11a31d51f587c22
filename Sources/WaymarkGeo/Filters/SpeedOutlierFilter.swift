import Foundation

/// Drops fixes that imply an impossible speed from the last fix it passed.
///
/// The implied speed is the ellipsoidal distance between the fix and the last
/// accepted fix divided by the time between them. A fix is dropped when that speed
/// exceeds ``maximumSpeed``, or when its timestamp is not later than the last
/// accepted one (the speed is then undefined).
///
/// If the first fix itself was wrong, every later fix would look impossible. So
/// after ``maximumConsecutiveRejections`` fixes in a row are dropped, the next
/// fix is accepted as the new reference (the device really did move, or the
/// reference was the outlier).
///
/// ```swift
/// var gate = SpeedOutlierFilter(maximumSpeed: 60)   // m/s; about 216 km/h
/// ```
///
/// A `Sendable` value type.
public struct SpeedOutlierFilter: FixFilter {
    /// Highest plausible speed, metres per second.
    public var maximumSpeed: Double
    /// Fixes dropped in a row before the filter trusts the next fix again.
    public var maximumConsecutiveRejections: Int

    private var last: Fix?
    private var rejectionsInARow = 0

    /// Makes a filter with a speed limit in metres per second.
    public init(maximumSpeed: Double, maximumConsecutiveRejections: Int = 5) {
        precondition(maximumSpeed > 0 && maximumConsecutiveRejections >= 0, "limits must be positive")
        self.maximumSpeed = maximumSpeed
        self.maximumConsecutiveRejections = maximumConsecutiveRejections
    }

    /// Returns `fix` unless it implies a speed above ``maximumSpeed``.
    public mutating func process(_ fix: Fix) -> Fix? {
        if let last, rejectionsInARow < maximumConsecutiveRejections {
            let dt = fix.timestamp.timeIntervalSince(last.timestamp)
            let distance = LocalApproximation.segmentDistance(last.coordinate, fix.coordinate)
            if dt <= 0 || distance > maximumSpeed * dt {
                rejectionsInARow += 1
                return nil
            }
        }
        rejectionsInARow = 0
        last = fix
        return fix
    }
}
