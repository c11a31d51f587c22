import Foundation
import WaymarkGeo

/// The state of a ride as the rider sees it.
///
/// `idle` before a ride starts, `moving` while recording, `autoPaused` while the rider stands
/// still (decided from speed and motion activity), `userPaused` after the rider paused it, and
/// `ended` after the rider stopped it. A `Sendable` value type.
public enum RideState: String, Hashable, Sendable, Codable, CaseIterable {
    case idle, moving, autoPaused, userPaused, ended

    /// Whether a ride exists and has not ended (it must be resumed after a relaunch).
    public var isActive: Bool { self == .moving || self == .autoPaused || self == .userPaused }
}

/// A span of the ride for which no fixes could be recorded, with the reason.
///
/// ```swift
/// let gap = GapMarker(start: lastFix.timestamp, end: firstFixAfterRelaunch.timestamp, reason: .terminated)
/// ```
///
/// A `Sendable` value type; times are the fixes' own timestamps.
public struct GapMarker: Hashable, Sendable, Codable {
    /// Why nothing was recorded.
    public enum Reason: String, Hashable, Sendable, Codable, CaseIterable {
        /// The app was terminated (by the system) and relaunched by a significant change or region event.
        case terminated
        /// The app was not running until the user opened it again (after a force-quit, on current iOS).
        case notRunningUntilOpened
        /// No position signal (a tunnel, underground) while the rider kept moving.
        case signalLost
        /// Automatic tracking noticed the start late (``AutomaticTracking``): the ride's first point
        /// is the place the device rested, stamped with the last time it was known to be there,
        /// and the device set off from there some time before the first fix on the move.
        case departureNotRecorded
    }

    /// The timestamp of the last fix recorded before the gap.
    public var start: Date
    /// The timestamp of the first fix recorded after the gap.
    public var end: Date
    /// Why.
    public var reason: Reason

    /// Makes a gap marker.
    public init(start: Date, end: Date, reason: Reason) {
        self.start = start
        self.end = end
        self.reason = reason
    }

    /// The gap's length in seconds.
    public var duration: TimeInterval { end.timeIntervalSince(start) }
}

/// Live statistics of the current ride: distance, moving time and speeds.
///
/// Distance is metres along the recorded fixes, including the straight line across a gap (the
/// rider did travel it); moving time is seconds; speeds are metres per second. A `Sendable` value type.
public struct RideStatistics: Hashable, Sendable, Codable {
    /// Distance ridden, metres.
    public var distanceMeters: Double = 0
    /// Time spent moving, seconds (auto-paused and user-paused time excluded).
    public var movingSeconds: Double = 0
    /// The latest filtered speed, metres per second; nil before the first fix.
    public var currentSpeed: Double?
    /// Distance divided by moving time, metres per second; nil before any moving time.
    public var averageMovingSpeed: Double? { movingSeconds > 0 ? distanceMeters / movingSeconds : nil }

    /// Makes statistics.
    public init(distanceMeters: Double = 0, movingSeconds: Double = 0, currentSpeed: Double? = nil) {
        self.distanceMeters = distanceMeters
        self.movingSeconds = movingSeconds
        self.currentSpeed = currentSpeed
    }
}

/// A public update from the ``RideTracker``.
///
/// `recorded` and `gap` are what a store persists (a fix is reported once, after filtering);
/// `checkpoint` carries the ride's persistent state to store with them.
public enum RideUpdate: Hashable, Sendable {
    /// The ride state changed.
    case state(RideState)
    /// A fix was accepted into the ride. A fix flagged `Fix.impliesImpossibleSpeed` is
    /// reported too (store and upload it like any other), but it is not part of the ride's distance,
    /// statistics or checkpoint: no `statistics` or `checkpoint` update follows it.
    case recorded(Fix)
    /// A span could not be recorded.
    case gap(GapMarker)
    /// The live statistics after a recorded fix.
    case statistics(RideStatistics)
    /// The ride's persistent state changed; store it to resume after a termination.
    case checkpoint(RideSnapshot)
}
