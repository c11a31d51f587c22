import Foundation
import WaymarkGeo

/// The persistent state of a ride: what an app stores so that a relaunched process resumes the ride.
///
/// The ``RideTracker`` hands out a new snapshot as ``RideUpdate/checkpoint(_:)`` whenever it
/// changes; pass the last stored one to ``RideTracker/init(configuration:restoring:)`` at launch.
///
/// ```swift
/// let data = try JSONEncoder().encode(snapshot)            // store it next to the fixes
/// let tracker = RideTracker(restoring: try JSONDecoder().decode(RideSnapshot.self, from: data))
/// ```
///
/// A `Sendable`, `Codable` value type.
public struct RideSnapshot: Hashable, Sendable, Codable {
    /// The ride's identifier, chosen by the app when it started the ride.
    public var rideID: RideID
    /// The state when the snapshot was taken.
    public var state: RideState
    /// When the ride started.
    public var startedAt: Date
    /// The last fix recorded, if any.
    public var lastRecorded: Fix?
    /// Statistics up to ``lastRecorded``.
    public var statistics: RideStatistics
    /// Where the rider stopped, while auto-paused.
    public var stopAnchor: Coordinate?
    /// When the ride auto-paused, while auto-paused: the hold and the watch are timed from it, also
    /// across a relaunch (nil in snapshots stored before it existed).
    public var stoppedAt: Date?
    /// Whether the wake fence around ``stopAnchor`` is registered with the OS.
    public var wakeFenceActive: Bool
    /// Whether automatic tracking started the ride (``AutomaticTracking``) rather than the rider.
    ///
    /// After an automatic ride ended, the snapshot keeps the resting place for automatic
    /// tracking: ``stopAnchor`` is where the device rests, ``stoppedAt`` the latest time it was
    /// known to be there, and ``wakeFenceActive`` tells whether the stationary region is registered.
    public var startedAutomatically: Bool

    /// Makes a snapshot.
    public init(rideID: RideID, state: RideState, startedAt: Date, lastRecorded: Fix? = nil,
                statistics: RideStatistics = RideStatistics(), stopAnchor: Coordinate? = nil, stoppedAt: Date? = nil,
                wakeFenceActive: Bool = false, startedAutomatically: Bool = false) {
        self.rideID = rideID
        self.state = state
        self.startedAt = startedAt
        self.lastRecorded = lastRecorded
        self.statistics = statistics
        self.stopAnchor = stopAnchor
        self.stoppedAt = stoppedAt
        self.wakeFenceActive = wakeFenceActive
        self.startedAutomatically = startedAutomatically
    }

    /// Decodes a snapshot; one stored before ``startedAutomatically`` existed reads as started by the rider.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        rideID = try c.decode(RideID.self, forKey: .rideID)
        state = try c.decode(RideState.self, forKey: .state)
        startedAt = try c.decode(Date.self, forKey: .startedAt)
        lastRecorded = try c.decodeIfPresent(Fix.self, forKey: .lastRecorded)
        statistics = try c.decode(RideStatistics.self, forKey: .statistics)
        stopAnchor = try c.decodeIfPresent(Coordinate.self, forKey: .stopAnchor)
        stoppedAt = try c.decodeIfPresent(Date.self, forKey: .stoppedAt)
        wakeFenceActive = try c.decode(Bool.self, forKey: .wakeFenceActive)
        startedAutomatically = try c.decodeIfPresent(Bool.self, forKey: .startedAutomatically) ?? false
    }
}
