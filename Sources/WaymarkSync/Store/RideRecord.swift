import Foundation
import WaymarkGeo

/// One ride as the device store keeps it: when it started and ended, its last state and policy.
///
/// The state and policy are the ride tracker's names (`"moving"`, `"autoPaused"`, `"cycling"`...),
/// stored as text so the store does not depend on the tracker's enums.
///
/// ```swift
/// let ride = try store.startRide(at: now, policy: "cycling")
/// try store.updateRide(ride.id, state: "autoPaused")
/// ```
///
/// A `Sendable` value type.
public struct RideRecord: Hashable, Sendable, Codable, Identifiable {
    /// The ride's identity.
    public var id: RideID
    /// When the ride started.
    public var started: Date
    /// When the ride ended; nil while it is going on.
    public var ended: Date?
    /// The ride tracker's state name.
    public var state: String
    /// The accuracy policy in force, by name; nil when not recorded.
    public var policy: String?

    /// Makes a ride record.
    public init(id: RideID = RideID(), started: Date, ended: Date? = nil, state: String = "moving", policy: String? = nil) {
        self.id = id
        self.started = started
        self.ended = ended
        self.state = state
        self.policy = policy
    }
}

/// A span of a ride in which no fix could be recorded, and why (app killed, no signal...).
///
/// A `Sendable` value type; times are instants, the reason is free text such as `"terminated"`.
public struct GapRecord: Hashable, Sendable, Codable {
    /// The ride the gap belongs to.
    public var ride: RideID
    /// The last moment data was still recorded.
    public var start: Date
    /// The first moment data was recorded again.
    public var end: Date
    /// Why nothing was recorded in between.
    public var reason: String

    /// Makes a gap marker.
    public init(ride: RideID, start: Date, end: Date, reason: String) {
        self.ride = ride
        self.start = start
        self.end = end
        self.reason = reason
    }
}

/// Milliseconds since 1970, the store's time unit (fix timestamps are kept to the millisecond).
enum StoreTime {
    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }
}
