import Foundation
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// The map app of issue 4 built on ``EngineCore``, as a ``SimulatedApp``: on each user launch it
/// asks for its permissions through the sequencer; the engine does the rest.
///
/// Each `launched` event is a new process: the core is rebuilt from the memory the app "stored on
/// disk" (kept here across processes, as `UserDefaults` would), never from in-process state.
struct EngineSimApp: SimulatedApp {
    struct Published: Hashable, Sendable {
        var t: Date
        var update: EngineUpdate
    }

    let configuration: EngineCore.Configuration
    let launchRequests: [PermissionRequest]
    var core: EngineCore
    var disk = PermissionMemory()
    var published: [Published] = []
    var nextBatch = 1

    init(requests: [PermissionRequest] = [.notifications([.alert, .sound]), .locationWhenInUse],
         configuration: EngineCore.Configuration = .init()) {
        self.configuration = configuration
        self.launchRequests = requests
        core = EngineCore(configuration: configuration)
    }

    mutating func handle(_ event: DeviceEvent, at time: Date) -> [DeviceCommand] {
        if case .launched = event { core = EngineCore(configuration: configuration, memory: disk) }
        var commands = record(core.handle(event, at: time), at: time)
        if case .launched(reason: .user) = event {
            commands += record(core.requestPermissions(launchRequests, batch: nextBatch, at: time), at: time)
            nextBatch += 1
        }
        return commands
    }

    var nextDeadline: Date? { core.nextDeadline }

    mutating func handleDeadline(at time: Date) -> [DeviceCommand] {
        record(core.deadlineReached(at: time), at: time)
    }

    private mutating func record(_ out: EngineOutput, at time: Date) -> [DeviceCommand] {
        for update in out.updates {
            published.append(Published(t: time, update: update))
            if case .permission(.memoryChanged(let memory)) = update { disk = memory }
        }
        return out.commands
    }

    /// Outcomes of each completed batch (one per user launch), in order.
    var batches: [[PermissionOutcome]] {
        published.compactMap { if case .permission(.batchCompleted(_, let o)) = $0.update { o } else { nil } }
    }

    /// Launch-location states published, in order, with their times.
    var launchStates: [(Date, LaunchLocationState)] {
        published.compactMap { if case .launchLocation(let s) = $0.update { ($0.t, s) } else { nil } }
    }

    /// Map states published, in order.
    var mapStates: [MapLaunchState] {
        published.compactMap { if case .map(let s) = $0.update { s } else { nil } }
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
    /// The app attached to the simulation, as the engine app.
    var engineApp: EngineSimApp? { app as? EngineSimApp }

    /// Virtual seconds of each command the app performed that matches.
    func commandTimes(_ match: (DeviceCommand) -> Bool) -> [Double] {
        log.entries.compactMap { entry in entry.command.flatMap { match($0) ? entry.t : nil } }
    }

    /// Virtual seconds of each `startUpdatingLocation` command.
    var startTimes: [Double] { commandTimes { if case .startUpdatingLocation = $0 { true } else { false } } }

    /// Virtual seconds of each `stopUpdatingLocation` command.
    var stopTimes: [Double] { commandTimes { $0 == .stopUpdatingLocation } }

    /// Virtual seconds of each process launch.
    var launchTimes: [Double] { times { if case .launched = $0 { true } else { false } } }
}
