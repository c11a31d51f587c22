import Foundation
import WaymarkEngine

extension Scenario {
    /// A recorded ride replayed as a background ride: the route is the GPX file's track,
    /// permissions are already granted (Always, motion, notifications, the `location` background
    /// mode), the user opens the app at second 0 and leaves it a minute later, and the minimal app
    /// records with best accuracy, the fitness activity type and background updates. Motion is derived from the route. `waymark simulate ride.gpx` runs this.
    ///
    /// ```swift
    /// var sim = try Simulation(scenario: .replayedRide(gpxPath: "/path/ride.gpx"),
    ///                          app: BasicApp(Scenario.replayedRide(gpxPath: path).app ?? .init()))
    /// ```
    public static func replayedRide(gpxPath: String) -> Scenario {
        Scenario(name: "Ride replayed from \(URL(fileURLWithPath: gpxPath).lastPathComponent)",
                 route: ScenarioRoute(gpx: gpxPath),
                 device: DeviceSetup(install: .existing, location: .authorizedAlways, notifications: .granted,
                                     motion: .granted, backgroundModes: [.location]),
                 user: UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: 60, .background)]),
                 motion: MotionSetup(mode: .derived),
                 app: BasicApp.Configuration(requests: [], accuracy: .best, activityType: .fitness,
                                             pausesAutomatically: false, backgroundUpdates: true,
                                             motionUpdates: true))
    }
}
