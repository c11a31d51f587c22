import Foundation
import WaymarkGeo

/// A geofence: a circle or a polygon the app wants to hear about, with the events it cares for.
///
/// A polygon is monitored by the OS through its enclosing circle and decided by point-in-polygon
/// on fixes. Identifiers are unique within a ``GeofenceMonitor``; adding a fence with an existing
/// identifier replaces it.
///
/// ```swift
/// let cafe = Fence(id: "cafe-42", shape: .circle(center: try Coordinate(latitude: 46.05, longitude: 14.5),
///                                                radiusMeters: 150),
///                  triggers: [.enter, .exit, .dwell], loiteringDelay: 300, userData: ["name": "Café"])
/// ```
///
/// A `Sendable`, `Codable` value type.
public struct Fence: Hashable, Sendable, Codable {
    /// The app's identifier for the fence (unique within a monitor).
    public var id: String
    /// Where the fence is.
    public var shape: FenceShape
    /// Which events to deliver.
    public var triggers: FenceTriggers
    /// How long, in seconds, the device must stay inside before a dwell event.
    public var loiteringDelay: TimeInterval
    /// Free-form data handed back with every event.
    public var userData: [String: String]

    /// Makes a fence; by default it reports entries and exits and dwells after 5 minutes.
    public init(id: String, shape: FenceShape, triggers: FenceTriggers = [.enter, .exit],
                loiteringDelay: TimeInterval = 300, userData: [String: String] = [:]) {
        self.id = id
        self.shape = shape
        self.triggers = triggers
        self.loiteringDelay = loiteringDelay
        self.userData = userData
    }
}

/// The area of a ``Fence``: a circle, or a polygon with optional holes (edges straight in latitude/longitude).
///
/// A `Sendable`, `Codable` value type.
public enum FenceShape: Hashable, Sendable, Codable {
    /// A circle with its centre and radius in metres.
    case circle(center: Coordinate, radiusMeters: Double)
    /// A polygon: the exterior ring and the holes, each without or with a closing vertex.
    case polygon(exterior: [Coordinate], holes: [[Coordinate]])
}

/// The events a ``Fence`` delivers.
///
/// A `Sendable`, `Codable` option set.
public struct FenceTriggers: OptionSet, Hashable, Sendable, Codable {
    /// The raw bits.
    public let rawValue: Int
    /// Makes a set from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The device entered the fence.
    public static let enter = FenceTriggers(rawValue: 1)
    /// The device left the fence.
    public static let exit = FenceTriggers(rawValue: 2)
    /// The device stayed inside for the fence's loitering delay.
    public static let dwell = FenceTriggers(rawValue: 4)
    /// Every event.
    public static let all: FenceTriggers = [.enter, .exit, .dwell]
}
