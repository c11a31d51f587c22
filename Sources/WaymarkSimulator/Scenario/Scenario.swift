import Foundation
import WaymarkEngine
import WaymarkGeo

/// A simulation scenario: the route, the device at start, the user, the world, motion and platform.
///
/// The JSON format is versioned (`"version": 1`) and documented in the Scenario article. All times
/// are virtual seconds since the start of the scenario; distances are metres; speeds metres per second.
///
/// ```swift
/// let scenario = try Scenario.decode(from: Data(contentsOf: url), baseDirectory: url.deletingLastPathComponent())
/// var simulation = try Simulation(scenario: scenario, seed: 7, app: BasicApp(scenario.app ?? .init()))
/// simulation.runToEnd()
/// ```
///
/// A `Sendable` value type. Absent fields take the defaults documented on each property.
public struct Scenario: Hashable, Sendable, Codable {
    /// The format version; must be 1.
    public var version: Int
    /// A human-readable name.
    public var name: String?
    /// The default seed (the command line's `--seed` overrides it); 1 when absent.
    public var seed: UInt64?
    /// The wall-clock time at virtual second 0 (ISO 8601); 2026-01-01T08:00:00Z when absent.
    public var startTime: Date?
    /// How long to simulate; the end of the route plus 60 s when absent.
    public var durationSeconds: Double?
    /// Where the device travels; it stands still at 0,0 when absent.
    public var route: ScenarioRoute?
    /// Permissions, regions, usage descriptions and background modes at start.
    public var device: DeviceSetup?
    /// Prompt answers and user actions.
    public var user: UserBehaviour?
    /// GNSS outages, urban areas, network and server.
    public var world: World?
    /// How motion activity is produced.
    public var motion: MotionSetup?
    /// iOS-version profile and constant overrides.
    public var platform: PlatformSetup?
    /// What the minimal ``BasicApp`` does, when the scenario runs without an engine.
    public var app: BasicApp.Configuration?

    /// Makes a version-1 scenario; every section optional.
    public init(name: String? = nil, seed: UInt64? = nil, startTime: Date? = nil, durationSeconds: Double? = nil,
                route: ScenarioRoute? = nil, device: DeviceSetup? = nil, user: UserBehaviour? = nil, world: World? = nil,
                motion: MotionSetup? = nil, platform: PlatformSetup? = nil, app: BasicApp.Configuration? = nil) {
        self.version = 1
        self.name = name
        self.seed = seed
        self.startTime = startTime
        self.durationSeconds = durationSeconds
        self.route = route
        self.device = device
        self.user = user
        self.world = world
        self.motion = motion
        self.platform = platform
        self.app = app
    }

    /// The default start time, 2026-01-01T08:00:00Z.
    public static let defaultStartTime = Date(timeIntervalSince1970: 1_767_254_400)
}

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

/// A virtual time window in seconds since the scenario start; `to` absent means "until the end".
public struct TimeWindow: Hashable, Sendable, Codable {
    /// Start, seconds.
    public var from: Double
    /// End, seconds.
    public var to: Double?

    /// Makes a window.
    public init(from: Double, to: Double? = nil) {
        self.from = from
        self.to = to
    }

    /// Whether `t` is inside.
    public func contains(_ t: Double) -> Bool { t >= from && t < (to ?? .infinity) }
}

/// A circular area.
public struct CircleArea: Hashable, Sendable, Codable {
    /// Centre.
    public var center: Coordinate
    /// Radius in metres.
    public var radiusMeters: Double

    /// Makes an area.
    public init(center: Coordinate, radiusMeters: Double) {
        self.center = center
        self.radiusMeters = radiusMeters
    }

    /// Whether `point` is inside.
    public func contains(_ point: Coordinate) -> Bool {
        Geodesy.haversineDistance(center, point) <= radiusMeters
    }
}
