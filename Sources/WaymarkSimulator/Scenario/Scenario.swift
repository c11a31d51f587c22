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
