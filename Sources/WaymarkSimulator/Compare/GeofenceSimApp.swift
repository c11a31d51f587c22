import Foundation
import WaymarkEngine
import WaymarkGeo

/// A simulated app that runs a `GeofenceMonitor` the way a real one would: on every launch it
/// forgets its memory and rebuilds the monitor from what it stored "on disk", creates the location
/// manager, and (as a ride tracker would) keeps standard updates running in the background.
struct GeofencingTestApp: SimulatedApp, Sendable {
    var configuration: GeofenceMonitor.Configuration
    /// The fences the app installs on its first launch.
    var initialFences: [Fence]
    /// Whether the app runs standard updates (a ride tracker alongside the geofences).
    var tracksRide: Bool

    // "Disk": survives kills.
    var disk: GeofenceMonitor.PersistentState?
    var diskRevision = -1
    // What the user was told: notifications already shown survive kills too. Kept in chunks so the
    // simulation's copy of the app does not make every append copy the whole history.
    var deliveredChunks: [[FenceEvent]] = [[]]
    var delivered: [FenceEvent] { deliveredChunks.flatMap { $0 } }
    /// When each event of ``delivered`` reached the app (same order), in the same chunks.
    var deliveryChunks: [[Date]] = [[]]
    var deliveryTimes: [Date] { deliveryChunks.flatMap { $0 } }
    var launches: [LaunchReason] = []

    // Memory: reset on every launch.
    var monitor: GeofenceMonitor
    var resolver = DemandResolver()

    init(configuration: GeofenceMonitor.Configuration = .init(), fences: [Fence], tracksRide: Bool = true) {
        self.configuration = configuration
        self.initialFences = fences
        self.tracksRide = tracksRide
        self.monitor = GeofenceMonitor(configuration: configuration)
    }

    static let ride = LocationDemand.standard(StandardDemand(accuracy: .best, background: true,
                                                             activityType: .fitness, pausesAutomatically: false))

    mutating func handle(_ event: DeviceEvent, at time: Date) -> [DeviceCommand] {
        var commands: [DeviceCommand] = []
        var out = GeofenceMonitor.Output()
        if case .launched(let reason) = event {
            launches.append(reason)
            resolver = DemandResolver()
            monitor = GeofenceMonitor(configuration: configuration, restoring: disk)
            commands.append(.createLocationManager)
            if disk == nil {
                do { out = try monitor.add(initialFences, at: time) } catch { preconditionFailure("the experiment's fences are valid: \(error)") }
            }
        }
        absorb(monitor.handle(event, at: time), into: &out)
        if let due = monitor.nextDeadline, due <= time { absorb(monitor.deadlineReached(at: time), into: &out) }
        return commands + finish(out, at: time)
    }

    /// The monitor's next deadline (a dwell, the end of a wait for a fix or of a GNSS rest).
    var nextDeadline: Date? { monitor.nextDeadline }

    /// The monitor's deadline came while the process runs.
    mutating func handleDeadline(at time: Date) -> [DeviceCommand] {
        finish(monitor.deadlineReached(at: time), at: time)
    }

    /// Delivers the step's events, stores the monitor's state when it changed, and resolves the demands.
    private mutating func finish(_ out: GeofenceMonitor.Output, at time: Date) -> [DeviceCommand] {
        var commands = out.commands
        for case .event(let e) in out.updates {
            if deliveredChunks[deliveredChunks.count - 1].count >= 256 {
                deliveredChunks.append([])
                deliveryChunks.append([])
            }
            deliveredChunks[deliveredChunks.count - 1].append(e)
            deliveryChunks[deliveryChunks.count - 1].append(time)
        }
        if monitor.revision != diskRevision {
            disk = monitor.persistentState
            diskRevision = monitor.revision
        }
        commands += resolver.resolve((tracksRide ? [Self.ride] : []) + monitor.demands)
        return commands
    }

    private func absorb(_ step: GeofenceMonitor.Output, into out: inout GeofenceMonitor.Output) {
        out.commands += step.commands
        out.updates += step.updates
    }
}

extension GeofencingTestApp {
    /// The app inside a simulation.
    /// The app inside a simulation, on either backend (see ``BackendTranslatingApp``).
    static func app(of sim: Simulation) -> GeofencingTestApp {
        guard let app = sim.attachedApp(as: GeofencingTestApp.self) else { preconditionFailure("the simulation runs no GeofencingTestApp") }
        return app
    }
}

/// Scenarios for the geofencing tests: an existing install with always authorization, motion
/// granted (activity derived from the true path) and the location background mode; the user opens
/// the app at second 0.
enum GeofenceScenario {
    static func make(route: ScenarioRoute, host: [MonitoredRegion] = [], actions: [UserAction] = [],
                     duration: Double? = nil, overrides: [String: JSONValue] = [:]) -> Scenario {
        Scenario(durationSeconds: duration, route: route,
                 device: DeviceSetup(install: .existing, location: .authorizedAlways, motion: .granted, monitoredRegions: host,
                                     backgroundModes: [.location]),
                 user: UserBehaviour(actions: [UserAction(at: 0, .open)] + actions),
                 motion: MotionSetup(mode: .derived),
                 platform: PlatformSetup(overrides: ["cachedFixProbability": .number(0)].merging(overrides) { $1 }))
    }

    /// Runs `sim` to `end` one second at a time, calling `check` after every step.
    ///
    /// - precondition: `step` is positive.
    static func run(_ sim: inout Simulation, until end: Double, step: Double = 1, check: (Simulation) -> Void = { _ in }) {
        precondition(step > 0, "GeofenceScenario.run: step must be positive, not \(step)")
        var t = sim.now
        while t < end {
            t = min(end, t + step)
            sim.run(until: t)
            check(sim)
        }
    }
}
