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
    /// What the fence may spend on being heard: iOS region events only, the balanced default, or
    /// GNSS near its boundary (see ``GeofenceMode`` and <doc:ChoosingAGeofenceMode>).
    public var mode: GeofenceMode

    /// Makes a fence; by default it reports entries and exits, dwells after 5 minutes, and is
    /// monitored in the ``GeofenceMode/balanced`` mode.
    public init(id: String, shape: FenceShape, triggers: FenceTriggers = [.enter, .exit],
                loiteringDelay: TimeInterval = 300, userData: [String: String] = [:], mode: GeofenceMode = .balanced) {
        self.id = id
        self.shape = shape
        self.triggers = triggers
        self.loiteringDelay = loiteringDelay
        self.userData = userData
        self.mode = mode
    }

    private enum CodingKeys: String, CodingKey {
        case id, shape, triggers, loiteringDelay, userData, mode
    }

    /// Decodes a fence; one stored before modes existed (no `mode` key) is ``GeofenceMode/balanced``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        shape = try c.decode(FenceShape.self, forKey: .shape)
        triggers = try c.decode(FenceTriggers.self, forKey: .triggers)
        loiteringDelay = try c.decode(TimeInterval.self, forKey: .loiteringDelay)
        userData = try c.decode([String: String].self, forKey: .userData)
        mode = try c.decodeIfPresent(GeofenceMode.self, forKey: .mode) ?? .balanced
    }
}

/// How a ``GeofenceMonitor`` hears of a fence's crossings, and what it may spend on them; chosen per
/// fence (``Fence/mode``). A fence's mode changes only what that fence costs: GNSS runs for the
/// fences that ask for it, near them.
///
/// Measured side by side in the geofence experiment (`waymark simulate --geofences --mode …`); see
/// <doc:ChoosingAGeofenceMode> for the figures and how to choose.
public enum GeofenceMode: String, Hashable, Sendable, Codable, CaseIterable {
    /// iOS region events only (plus the one-fix catch-ups every mode makes when the app is
    /// launched or opened): no location updates for this fence. Cheapest; iOS delivers a pocketed
    /// app only part of the crossings, minutes late (PLATFORM.md §5).
    case regions
    /// The default: nothing while the device is still (motion activity, a stationary region, visits
    /// and significant changes say so); while it moves, hundred-metre updates keep the app running
    /// only while a boundary of a balanced fence could be reached before the next wake, and GNSS
    /// near such a boundary. A crossing iOS reports first is confirmed with a fix
    /// (``BalancedTracking``).
    case balanced
    /// GNSS near the boundary (``ProximityTracking``): crossings within seconds, at about the cost
    /// of recording while the device moves near such fences.
    case precise
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
