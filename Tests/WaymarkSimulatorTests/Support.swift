import Foundation
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// Shared helpers: a start point, straight routes, and event extractors.
enum Fixture {
    static let origin = Coordinate(uncheckedLatitude: 46.05, longitude: 14.50)

    /// A point `meters` east of the origin.
    static func east(_ meters: Double) -> Coordinate {
        Geodesy.destination(from: origin, bearing: 90, distance: meters)
    }

    /// Still for `wait` seconds, then east at `speed` for `seconds`, then still.
    static func eastbound(speed: Double, seconds: Double, after wait: Double = 0,
                          activity: MotionActivity.Kind? = nil) -> ScenarioRoute {
        ScenarioRoute(start: origin, legs: [.stop(wait), .travel([east(speed * seconds)], speed: speed, activity: activity)])
    }

    /// A scenario where the user opens the app at second 0.
    static func opened(route: ScenarioRoute? = nil, device: DeviceSetup? = nil, prompts: [PromptKind: PromptResponse]? = nil,
                       actions: [UserAction] = [], world: World? = nil, overrides: [String: JSONValue]? = nil,
                       profile: IOSProfile? = nil, motion: MotionSetup? = nil, duration: Double? = nil) -> Scenario {
        Scenario(durationSeconds: duration, route: route ?? ScenarioRoute(start: origin, legs: []), device: device,
                 user: UserBehaviour(prompts: prompts, actions: [UserAction(at: 0, .open)] + actions),
                 world: world, motion: motion, platform: PlatformSetup(profile: profile, overrides: overrides))
    }

    /// An existing install with these permissions.
    static func existing(_ location: LocationAuthorizationStatus, modes: [DeviceSetup.BackgroundMode] = [],
                         regions: [MonitoredRegion]? = nil, motion: DeviceSetup.PermissionSetting? = nil,
                         notifications: DeviceSetup.PermissionSetting? = nil) -> DeviceSetup {
        DeviceSetup(install: .existing, location: location, notifications: notifications, motion: motion,
                    monitoredRegions: regions, backgroundModes: modes)
    }

    /// No cached fix, so tests see only fresh fixes.
    static let noCache: [String: JSONValue] = ["cachedFixProbability": .number(0)]
}

extension Simulation {
    /// Location statuses delivered, in order.
    var authorizationStatuses: [LocationAuthorizationStatus] {
        events { if case .authorizationChanged(let a) = $0 { a.status } else { nil } }
    }

    /// All delivered fixes, in order.
    var fixes: [Fix] { events { if case .locations(let f) = $0 { f } else { nil } }.flatMap { $0 } }

    /// Delivered events with their virtual seconds.
    func times(_ match: (DeviceEvent) -> Bool) -> [Double] {
        received.filter { match($0.event) }.map { $0.time.timeIntervalSince(epoch) }
    }
}

extension Simulation {
    /// Location errors delivered, in order.
    var locationErrors: [LocationError] {
        events { (e: DeviceEvent) -> LocationError? in if case .locationError(let x) = e { x } else { nil } }
    }

    /// Motion activities delivered, with their virtual seconds.
    var motionActivities: [(Double, MotionActivity)] {
        received.compactMap { (timed: TimedDeviceEvent) -> (Double, MotionActivity)? in
            if case .motionActivity(let a) = timed.event { (timed.time.timeIntervalSince(epoch), a) } else { nil }
        }
    }
}
