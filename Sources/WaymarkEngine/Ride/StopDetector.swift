import Foundation
import WaymarkGeo

/// Stop and restart detection, owned by ``RideTracker``: from filtered fixes, whether the rider
/// has stopped (while moving) or moves again (while auto-paused with GNSS on).
///
/// **Stopping.** Below ``RideTracker/Configuration/stopSpeed`` for
/// ``RideTracker/Configuration/stopSeconds`` while staying within the distance that speed covers
/// in that time of where the slowness began. Slow fixes closer than a third of the accuracy limit
/// to the last recorded one are the receiver's wander, not the ride (*creeping*).
///
/// **Moving again.** Receiver wander at a stop can carry a fix tens of metres away, but not with a
/// Doppler speed and not for long, while a rider pushing the bike up a steep bit (slower than the
/// stop speed) keeps getting farther. So any of: a moving fix (at the stop speed, or without a
/// speed) beyond ``RideTracker/Configuration/resumeDistanceMeters`` plus twice its accuracy; two
/// such far fixes in a row, whatever their speed; or three in a row at
/// ``RideTracker/Configuration/resumeSpeed`` a third of the resume distance away.
///
/// The tracker decides what a verdict does (auto-pause, resume, record) and when the history is
/// forgotten (``reset()``).
struct StopDetector: Sendable {
    /// What a fix while moving shows.
    enum MovingVerdict: Sendable, Equatable {
        /// Slow for the stop time, near where the slowness began: the rider stopped.
        case stopped
        /// Slow and within the receiver's wander of the last recorded fix: not worth recording.
        case creeping
        /// Record it.
        case moving
    }

    /// The first fix of the current slow stretch.
    private var slowStart: Fix?
    /// Fixes in a row at the resume speed, while stopped.
    private var resumeStreak = 0
    /// Fixes in a row far from the stop, while stopped.
    private var farStreak = 0

    /// A fix while the ride is moving; `lastRecorded` is where the track last got a point.
    mutating func moving(_ fix: Fix, lastRecorded: Coordinate?, configuration c: RideTracker.Configuration) -> MovingVerdict {
        guard (fix.speed ?? 0) < c.stopSpeed else {
            slowStart = nil
            return .moving
        }
        if let start = slowStart, LocalApproximation.segmentDistance(start.coordinate, fix.coordinate) > c.stopSpeed * c.stopSeconds {
            slowStart = fix
        }
        let since = slowStart ?? fix
        slowStart = since
        if fix.timestamp.timeIntervalSince(since.timestamp) >= c.stopSeconds { return .stopped }
        if let last = lastRecorded, LocalApproximation.segmentDistance(last, fix.coordinate) < c.maximumAccuracyMeters / 3 {
            return .creeping
        }
        return .moving
    }

    /// A fix while the ride is auto-paused with GNSS on, `anchor` being where it stopped: whether
    /// the rider moves again.
    mutating func movesAgain(_ fix: Fix, anchor: Coordinate?, configuration c: RideTracker.Configuration) -> Bool {
        let away = anchor.map { LocalApproximation.segmentDistance($0, fix.coordinate) } ?? 0
        let accuracy = fix.horizontalAccuracy ?? c.maximumAccuracyMeters
        resumeStreak = (fix.speed ?? 0) >= c.resumeSpeed ? resumeStreak + 1 : 0
        let far = away > c.resumeDistanceMeters + 2 * accuracy
        farStreak = far ? farStreak + 1 : 0
        let moving = fix.speed.map { $0 >= c.stopSpeed } ?? true
        return (moving && far) || farStreak >= 2 || (resumeStreak >= 3 && away > c.resumeDistanceMeters / 3)
    }

    /// Forgets the slow stretch and the streaks (a stop begins, or GNSS starts again after a rest).
    mutating func reset() {
        slowStart = nil
        resumeStreak = 0
        farStreak = 0
    }
}
