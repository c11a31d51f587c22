import Foundation
import WaymarkEngine
import WaymarkGeo

/// An app built on the full `EngineCore` (permissions, launch location, map, geofences, ride),
/// run inside a ``Simulation``; it records everything a user or a test could observe.
///
/// Each `launched` event is a new process: the core is rebuilt from ``disk`` (the permission
/// memory, the geofences' persistent state and the ride's last snapshot), never from the memory
/// of the previous process. The ``Script`` says what the app does by itself; timed actions run
/// through the app's timer, so they happen only while the process runs, as a tap would.
///
/// ```swift
/// let app = EngineApp(script: .init(permissions: [.locationWhenInUse], startsRide: true, fences: fences))
/// var sim = try Simulation(scenario: scenario, app: app)
/// sim.runToEnd()
/// let run = try #require(sim.engineApp)
/// print(run.recordedFixes.count, run.gaps, run.fenceEvents.map(\.fenceID))
/// ```
///
/// A `Sendable` value type; the simulation owns it and hands it out by value.
public struct EngineApp: SimulatedApp {
    /// The engine's configuration.
    public let configuration: EngineCore.Configuration
    /// What the app does by itself.
    public let script: Script
    /// The core of the current process.
    public private(set) var core: EngineCore
    /// What survives kills.
    public private(set) var disk = Disk()
    /// Every public update of the engine, in order, with its time.
    public private(set) var timeline: [Timed<EngineUpdate>] = []
    /// Every command the app issued, in order, with its time.
    public private(set) var commands: [Timed<DeviceCommand>] = []
    /// Every process launch, with its reason.
    public private(set) var launches: [Timed<LaunchReason>] = []
    /// Every action performed (scripted or through ``Simulation/perform(_:)-(EngineApp.Action)``), with its time.
    public private(set) var actions: [Timed<Action>] = []
    /// Actions the engine refused (an invalid fence), with the error's message.
    public private(set) var failures: [Timed<String>] = []
    /// What the `Engine` actor would write to its field log (WaymarkEngine's `FieldLogNotes`), at
    /// ``fieldLogLevel`` and above, in order: a simulated phone writes them to its `FieldLog`.
    public private(set) var fieldLog: [FieldLogEntry] = []
    /// The least level kept in ``fieldLog`` (info by default: what support needs).
    public var fieldLogLevel: FieldLogLevel {
        get { notes.level }
        set { notes.level = newValue }
    }
    private var notes: FieldLogNotes

    private var nextScripted = 0
    private var nextBatch = 1
    private var geofenceRevision = 0
    /// The regions iOS monitors as the next process starts (``willLaunch(monitoredRegions:)``).
    private var osRegionsAtLaunch: [MonitoredRegion] = []

    /// Makes the app for a fresh install.
    public init(configuration: EngineCore.Configuration = .init(), script: Script = Script()) {
        self.configuration = configuration
        self.script = script
        self.core = EngineCore(configuration: configuration)
        notes = FieldLogNotes(core: core)
    }

    /// Handles one event; a launch rebuilds the core from ``disk`` and runs the launch script.
    public mutating func handle(_ event: DeviceEvent, at time: Date) -> [DeviceCommand] {
        fieldLog += notes.event(event, at: time)
        guard case .launched(let reason) = event else { return record(core.handle(event, at: time), at: time) }
        launches.append(Timed(time: time, value: reason))
        core = EngineCore(configuration: configuration, memory: disk.memory, geofences: disk.geofences, ride: disk.ride)
        // As the Engine actor does (Device.monitoredRegion(identifier:)): the wake fence iOS kept.
        if configuration.ride.automatic.enabled {
            core.osWakeRegion = osRegionsAtLaunch.first { $0.identifier == RideTracker.wakeFenceIdentifier }
        }
        osRegionsAtLaunch = []
        geofenceRevision = core.geofences.revision
        var issued = record(core.handle(event, at: time), at: time)
        if disk.geofences == nil, !script.fences.isEmpty {
            issued += perform(.replaceFences(script.fences), at: time, scripted: true)
        }
        if reason == .user {
            if !script.permissions.isEmpty { issued += perform(.requestPermissions(script.permissions), at: time, scripted: true) }
            if script.startsRide, disk.ride == nil { issued += perform(.ride(.start(rideID: script.rideID)), at: time, scripted: true) }
        }
        return issued
    }

    /// Keeps the regions iOS monitors for the launch that follows.
    public mutating func willLaunch(monitoredRegions: [MonitoredRegion]) {
        osRegionsAtLaunch = monitoredRegions
    }

    /// The earliest of the core's deadline and the next scripted action.
    public var nextDeadline: Date? {
        let scripted = nextScripted < script.actions.count ? script.actions[nextScripted].at : nil
        return [core.nextDeadline, scripted].compactMap { $0 }.min()
    }

    /// Wakes the core if its deadline came and performs the scripted actions that are due.
    public mutating func handleDeadline(at time: Date) -> [DeviceCommand] {
        var issued: [DeviceCommand] = []
        if let due = core.nextDeadline, due <= time { issued += record(core.deadlineReached(at: time), at: time) }
        while nextScripted < script.actions.count, script.actions[nextScripted].at <= time {
            let action = script.actions[nextScripted].action
            nextScripted += 1
            issued += perform(action, at: time, scripted: true)
        }
        return issued
    }

    /// Performs an action now and returns the commands it leads to (the simulation performs them).
    public mutating func perform(_ action: Action, at time: Date) -> [DeviceCommand] {
        perform(action, at: time, scripted: false)
    }

    private mutating func perform(_ action: Action, at time: Date, scripted: Bool) -> [DeviceCommand] {
        actions.append(Timed(time: time, value: action))
        switch action {
        case .ride(let command): fieldLog += notes.appRide(command, at: time)
        case .requestPermissions(let requests): fieldLog += notes.appAsked(for: requests, at: time)
        default: fieldLog += notes.appCall(Self.describe(action), category: .geofence, at: time)
        }
        let out: EngineOutput
        do throws(GeoError) {
            switch action {
            case .ride(let command): out = core.rideCommand(command, at: time)
            case .requestPermissions(let requests):
                out = core.requestPermissions(requests, batch: nextBatch, at: time)
                nextBatch += 1
            case .replaceFences(let fences):
                out = try core.changeFences { (m: inout GeofenceMonitor) throws(GeoError) in try m.replaceAll(with: fences, at: time) }
            case .addFences(let fences):
                out = try core.changeFences { (m: inout GeofenceMonitor) throws(GeoError) in try m.add(fences, at: time) }
            case .removeFences(let ids):
                out = try core.changeFences { (m: inout GeofenceMonitor) throws(GeoError) in m.remove(ids, at: time) }
            }
        } catch {
            failures.append(Timed(time: time, value: error.description))
            return []
        }
        return record(out, at: time)
    }

    /// Records a step's updates, keeps the disk up to date, and returns its commands.
    private mutating func record(_ out: EngineOutput, at time: Date) -> [DeviceCommand] {
        fieldLog += notes.step(out, core: core, at: time)
        for update in out.updates {
            timeline.append(Timed(time: time, value: update))
            switch update {
            case .permission(.memoryChanged(let memory)): disk.memory = memory
            case .geofence(.event(let event)): disk.fenceEvents.append(event)
            case .ride(.recorded(let fix)): disk.recorded.append(fix)
            case .ride(.gap(let gap)): disk.gaps.append(gap)
            case .ride(.checkpoint(let snapshot)): disk.ride = snapshot
            default: break
            }
        }
        if core.geofences.revision != geofenceRevision {
            geofenceRevision = core.geofences.revision
            disk.geofences = core.geofences.persistentState
        }
        for command in out.commands { commands.append(Timed(time: time, value: command)) }
        return out.commands
    }
}

extension EngineApp {
    /// A fence change in the words of the field log.
    static func describe(_ action: Action) -> String {
        switch action {
        case .replaceFences(let fences): "fences replaced: \(fences.count) fences"
        case .addFences(let fences): "fences added: \(fences.count)"
        case .removeFences(let ids): "fences removed: \(ids.count)"
        case .ride, .requestPermissions: "\(action)"
        }
    }
}
