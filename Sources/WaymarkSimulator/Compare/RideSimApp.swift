import Foundation
import WaymarkEngine
import WaymarkGeo

/// A ride-recording app for the simulator: a `RideTracker` and a `DemandResolver` in memory,
/// and a ``Storage`` that stands for the app's database and survives kills.
///
/// On every `launched` event the in-memory parts start over from what was stored (as a real
/// process would); the first time the user opens the app it starts a ride. Recorded fixes, gap
/// markers and checkpoints go to ``storage`` as the tracker reports them.
///
/// ```swift
/// var sim = try Simulation(scenario: scenario, app: RideSimApp(configuration: RideTracker.Configuration()))
/// sim.runToEnd()
/// let fixes = sim.rideApp?.storage.recorded ?? []
/// ```
///
/// A `Sendable` value type.
public struct RideSimApp: SimulatedApp {
    /// What the app keeps on disk.
    public struct Storage: Hashable, Sendable {
        /// The last checkpoint of the ride.
        public var snapshot: RideSnapshot?
        /// Every recorded fix, in order.
        public var recorded: [Fix] = []
        /// Every gap marker, in order.
        public var gaps: [GapMarker] = []
    }

    /// The tracker's configuration.
    public let configuration: RideTracker.Configuration
    /// Whether opening the app for the first time starts a ride (default true).
    public let startsRideOnFirstOpen: Bool
    /// The app's durable storage.
    public private(set) var storage = Storage()
    /// The tracker of the current process.
    public private(set) var tracker: RideTracker
    /// Ride states in the order they were published, with their times.
    public private(set) var stateLog: [(time: Date, state: RideState)] = []
    /// The latest published statistics.
    public private(set) var liveStatistics: RideStatistics?
    private var resolver = DemandResolver()

    /// Makes the app.
    public init(configuration: RideTracker.Configuration = RideTracker.Configuration(), startsRideOnFirstOpen: Bool = true) {
        self.configuration = configuration
        self.startsRideOnFirstOpen = startsRideOnFirstOpen
        self.tracker = RideTracker(configuration: configuration)
    }

    /// Handles one event: a launch rebuilds the tracker from storage; every event ends with the resolver's commands.
    public mutating func handle(_ event: DeviceEvent, at time: Date) -> [DeviceCommand] {
        var commands: [DeviceCommand] = []
        if case .launched(let reason) = event {
            tracker = RideTracker(configuration: configuration, restoring: storage.snapshot)
            resolver = DemandResolver()
            commands.append(.createLocationManager)
            commands += absorb(tracker.handle(event, at: time), at: time)
            if reason == .user, startsRideOnFirstOpen, storage.snapshot == nil {
                commands += absorb(tracker.start(rideID: "ride-\(Int(time.timeIntervalSince1970))", at: time), at: time)
            }
        } else {
            commands += absorb(tracker.handle(event, at: time), at: time)
        }
        return commands + resolver.resolve(tracker.demands)
    }

    /// The tracker's next deadline (a duty-cycle spell, the hold at a stop, the watch).
    public var nextDeadline: Date? { tracker.nextDeadline }

    /// Fires the tracker's deadline and returns the commands it leads to.
    public mutating func handleDeadline(at time: Date) -> [DeviceCommand] {
        absorb(tracker.deadlineReached(at: time), at: time) + resolver.resolve(tracker.demands)
    }

    /// Taps the tracker as the rider would (pause, resume, stop) and returns the commands.
    public mutating func rider(at time: Date, _ tap: (inout RideTracker) -> RideTracker.Output) -> [DeviceCommand] {
        absorb(tap(&tracker), at: time) + resolver.resolve(tracker.demands)
    }

    private mutating func absorb(_ output: RideTracker.Output, at time: Date) -> [DeviceCommand] {
        for update in output.updates {
            switch update {
            case .recorded(let fix): storage.recorded.append(fix)
            case .gap(let gap): storage.gaps.append(gap)
            case .checkpoint(let snapshot): storage.snapshot = snapshot
            case .statistics(let stats): liveStatistics = stats
            case .state(let state): stateLog.append((time, state))
            }
        }
        return output.commands
    }
}

extension Simulation {
    /// The attached app, if it is a ``RideSimApp`` (on either backend: see ``BackendTranslatingApp``).
    public var rideApp: RideSimApp? { attachedApp(as: RideSimApp.self) }
}
