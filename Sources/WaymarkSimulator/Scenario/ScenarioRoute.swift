import Foundation
import WaymarkEngine
import WaymarkGeo

/// The device's route: inline legs, or a GPX file whose timed points are replayed.
public struct ScenarioRoute: Hashable, Sendable, Codable {
    /// Where the device is at second 0 (with inline legs).
    public var start: Coordinate?
    /// Legs travelled in order (with `start`).
    public var legs: [RouteLeg]?
    /// A GPX file (relative to the scenario file) whose points carry times; replayed from second 0.
    public var gpx: String?

    /// Makes a route from inline legs.
    public init(start: Coordinate, legs: [RouteLeg]) {
        self.start = start
        self.legs = legs
    }

    /// Makes a route from a GPX file path.
    public init(gpx: String) { self.gpx = gpx }
}

/// One leg: travel through waypoints at a speed, or stop for a while.
public struct RouteLeg: Hashable, Sendable, Codable {
    /// Points to travel through, in order.
    public var waypoints: [Coordinate]?
    /// Speed along the waypoints, metres per second.
    public var speed: Double?
    /// A stop's duration in seconds (instead of waypoints).
    public var stopSeconds: Double?
    /// The true activity on this leg (for derived motion); from the speed when absent.
    public var activity: MotionActivity.Kind?

    /// Travel through `waypoints` at `speed` metres per second.
    public static func travel(_ waypoints: [Coordinate], speed: Double,
                              activity: MotionActivity.Kind? = nil) -> RouteLeg {
        RouteLeg(waypoints: waypoints, speed: speed, stopSeconds: nil, activity: activity)
    }

    /// Stand still for `seconds`.
    public static func stop(_ seconds: Double) -> RouteLeg {
        RouteLeg(waypoints: nil, speed: nil, stopSeconds: seconds, activity: nil)
    }
}
