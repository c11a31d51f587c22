import Foundation

/// Finds fixes that imply an impossible speed from the last plausible fix, and drops or flags them.
///
/// The implied speed is the ellipsoidal distance between the fix and the last plausible fix divided
/// by the time between them. A fix is an outlier when that speed exceeds ``maximumSpeed``, or when
/// its timestamp is not later than the last plausible one while its position differs (the speed is
/// then undefined).
///
/// What happens to an outlier depends on ``mode``:
/// - ``Mode/drop`` (the default, and the filter's behaviour before flags existed): the fix is not
///   passed on at all.
/// - ``Mode/flag``: the fix is passed on unchanged but with ``Fix/impliesImpossibleSpeed`` set, so
///   the caller can keep it as evidence (store it, upload it, show it) while leaving it out of
///   distances and statistics. Filters later in a chain pass a flagged fix through untouched
///   (``KalmanFilter`` does not fold it into its state).
///
/// Either way an outlier never becomes the reference the next fix is compared with, so one bad fix
/// cannot drag the track. If the first fix itself was wrong, every later fix would look impossible.
/// So after ``maximumConsecutiveRejections`` outliers in a row, the next fix is accepted as the new
/// reference (the device really did move, or the reference was the outlier).
///
/// ```swift
/// var gate = SpeedOutlierFilter(maximumSpeed: 60)                // m/s, about 216 km/h: drops
/// var marker = SpeedOutlierFilter(maximumSpeed: 60, mode: .flag) // keeps, flagged
/// ```
///
/// A fix that already carries the flag (flagged upstream) is passed on as it is and is no reference.
///
/// A `Sendable` value type.
public struct SpeedOutlierFilter: FixFilter {
    /// What the filter does with a fix that implies an impossible speed.
    public enum Mode: String, Hashable, Sendable, Codable, CaseIterable {
        /// Drop the fix: it is not passed on.
        case drop
        /// Pass the fix on with ``Fix/impliesImpossibleSpeed`` set.
        case flag
    }

    /// Highest plausible speed, metres per second.
    public var maximumSpeed: Double
    /// Outliers in a row before the filter trusts the next fix again.
    public var maximumConsecutiveRejections: Int
    /// Whether an outlier is dropped or passed on flagged.
    public var mode: Mode

    private var last: Fix?
    private var rejectionsInARow = 0

    /// Makes a filter with a speed limit in metres per second.
    public init(maximumSpeed: Double, maximumConsecutiveRejections: Int = 5, mode: Mode = .drop) {
        precondition(maximumSpeed > 0 && maximumConsecutiveRejections >= 0, "limits must be positive")
        self.maximumSpeed = maximumSpeed
        self.maximumConsecutiveRejections = maximumConsecutiveRejections
        self.mode = mode
    }

    /// Returns `fix` when it is plausible; an outlier is dropped (nil) or returned flagged, per ``mode``.
    public mutating func process(_ fix: Fix) -> Fix? {
        if fix.impliesImpossibleSpeed { return fix }
        if let last, rejectionsInARow < maximumConsecutiveRejections, isOutlier(fix, after: last) {
            rejectionsInARow += 1
            guard mode == .flag else { return nil }
            var flagged = fix
            flagged.impliesImpossibleSpeed = true
            return flagged
        }
        rejectionsInARow = 0
        last = fix
        return fix
    }

    /// Whether `fix` implies more than ``maximumSpeed`` from `reference`.
    public func isOutlier(_ fix: Fix, after reference: Fix) -> Bool {
        let dt = fix.timestamp.timeIntervalSince(reference.timestamp)
        let distance = LocalApproximation.segmentDistance(reference.coordinate, fix.coordinate)
        if dt <= 0 { return mode == .drop || distance > 0 }
        return distance > maximumSpeed * dt
    }
}
