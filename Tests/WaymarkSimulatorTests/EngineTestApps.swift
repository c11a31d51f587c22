import Foundation
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

extension EngineApp {
    /// The map app of issue 4: on each user launch it asks for its permissions through the
    /// sequencer; the engine does the rest.
    static func mapApp(requests: [PermissionRequest] = [.notifications([.alert, .sound]), .locationWhenInUse],
                       configuration: EngineCore.Configuration = .init()) -> EngineApp {
        EngineApp(configuration: configuration, script: .init(permissions: requests))
    }
}

/// The app of the field report: at launch it asks for notifications and location at once, and
/// starts location on every authorized callback.
struct NaiveMapApp: SimulatedApp {
    mutating func handle(_ event: DeviceEvent, at time: Date) -> [DeviceCommand] {
        switch event {
        case .launched(reason: .user):
            [.createLocationManager, .requestNotificationAuthorization([.alert, .sound]), .requestWhenInUseAuthorization]
        case .notificationAuthorization(granted: true):
            [.registerForRemoteNotifications]
        case .authorizationChanged(let auth) where auth.status == .authorizedWhenInUse || auth.status == .authorizedAlways:
            [.startUpdatingLocation(LocationConfiguration())]
        default:
            []
        }
    }
}

extension Simulation {
    /// Virtual seconds of each command the app performed that matches.
    func commandTimes(_ match: (DeviceCommand) -> Bool) -> [Double] {
        log.entries.compactMap { entry in entry.command.flatMap { match($0) ? entry.t : nil } }
    }

    /// Virtual seconds of each start of location updates (`startUpdatingLocation`, or
    /// `startLiveUpdates` on the iOS 17 backend).
    var startTimes: [Double] {
        commandTimes { switch $0 { case .startUpdatingLocation, .startLiveUpdates: true; default: false } }
    }

    /// Virtual seconds of each stop of location updates (`stopUpdatingLocation` or `stopLiveUpdates`).
    var stopTimes: [Double] { commandTimes { $0 == .stopUpdatingLocation || $0 == .stopLiveUpdates } }

    /// Virtual seconds of each process launch.
    var launchTimes: [Double] { times { if case .launched = $0 { true } else { false } } }
}
