import Foundation
import WaymarkGeo

/// Runs the ``EngineCore`` against a ``Device``: feeds it every event, performs its commands, wakes
/// it at its deadlines with an injected `Clock`, and publishes its states with replay.
///
/// ```swift
/// let engine = Engine(device: device, memory: storedMemory)
/// Task { await engine.run() }
/// let outcomes = try await engine.permissions.request([.notifications([.alert, .sound]), .locationWhenInUse])
/// for await state in engine.launchLocation.states {
///     if case .located(let fix) = state { mapView.setCenter(fix.coordinate) }
/// }
/// ```
///
/// An actor: every method is safe to call from any task. Timeouts are measured on `clock`
/// (a `ContinuousClock` by default; tests pass a manual clock); event times come from the device.
public actor Engine {
    let device: any Device
    let clock: any Clock<Duration>
    var core: EngineCore
    var nextBatch = 1
    var waiters: [Int: CheckedContinuation<[PermissionOutcome], any Error>] = [:]
    var completed: [Int: [PermissionOutcome]] = [:]
    /// Location requests waiting for their answer, answers not yet awaited, open streams.
    var locationWaiters: [Int: CheckedContinuation<Result<Fix, LocationRequestError>, Never>] = [:]
    var locationAnswers: [Int: Result<Fix, LocationRequestError>] = [:]
    var locationStreams: [Int: AsyncStream<Fix>.Continuation] = [:]
    var nextLocationID = 1
    var timer: Task<Void, Never>?
    var timerDeadline: Date?
    var stopped = false
    /// `run()` was called (it may be called once).
    var started = false
    /// The effects (updates, commands) of the latest core step, performed after those of the steps before it.
    var effects: Task<Void, Never>?
    /// Device events fully handled (commands performed); lets tests wait until the engine is idle.
    var eventsHandled = 0
    /// Tasks waiting in ``EngineDiagnostics/waitUntilHandled(_:)``.
    var handledWaiters = CountWaiters()
    /// The time of the latest device event handled; app calls are never stamped earlier.
    var latestEventTime: Date?

    nonisolated let launchStates = ReplayBroadcaster<LaunchLocationState>(initial: .idle)
    nonisolated let authorizationStates = ReplayBroadcaster<LocationAuthorization>()
    nonisolated let mapStates = ReplayBroadcaster<MapLaunchState>(initial: MapLaunchState())
    nonisolated let memoryStates: ReplayBroadcaster<PermissionMemory>
    nonisolated let outcomeStates = ReplayBroadcaster<PermissionOutcome>()
    nonisolated let fenceEvents = ReplayBroadcaster<FenceEvent>(replaysCurrent: false)
    nonisolated let fenceStates: ReplayBroadcaster<[String: FencePresence]>
    nonisolated let regionStates: ReplayBroadcaster<[MonitoredRegion]>
    nonisolated let fenceStore: ReplayBroadcaster<GeofenceMonitor.PersistentState>
    nonisolated let rideStates: ReplayBroadcaster<RideState>
    nonisolated let rideStatistics: ReplayBroadcaster<RideStatistics>
    nonisolated let automaticStates: ReplayBroadcaster<AutomaticTracking.State>
    /// The automatic-tracking state last handed to ``automaticStates``.
    var publishedAutomatic: AutomaticTracking.State
    nonisolated let rideRecords = ReplayBroadcaster<RideEntry>(replaysCurrent: false)
    nonisolated let problemStates = ReplayBroadcaster<[ConfigurationProblem]>(initial: [])
    nonisolated let launchAttributions = ReplayBroadcaster<LaunchAttribution>()
    nonisolated let systemEvents = ReplayBroadcaster<DeviceEvent>(replaysCurrent: false)
    nonisolated let heartbeatUpdates = ReplayBroadcaster<Heartbeat.Update>(replaysCurrent: false)
    var fenceRevision: Int
    /// The app's Info.plist declarations, once read from the device.
    var declarations: InfoPlistDeclarations?
    /// What the app uses: the configured capabilities and what it asked for since.
    var uses: AppCapabilities
    var publishedProblems: [ConfigurationProblem] = []
    /// Whether iOS may run the app in the background for location events, as last read.
    var backgroundAppRefresh: Bool?
    /// The field log (``log``) and what the engine last wrote to it.
    nonisolated let fieldLog: FieldLog
    var notes: FieldLogNotes

    /// Makes an engine over `device`.
    ///
    /// - parameter device: the device seam the engine sends commands to and takes events from
    ///   (`LiveDevice` on iOS, a simulated device in tests).
    /// - parameter clock: measures timeouts; pass a manual clock in tests.
    /// - parameter configuration: the components' configurations (permissions, launch fix,
    ///   geofencing, ride) and what the app uses of the OS.
    /// - parameter memory: the ``PermissionMemory`` the app stored on an earlier launch.
    /// - parameter geofences: the geofences' state the app stored (see ``EngineGeofences/stored``).
    /// - parameter ride: the ride's last snapshot the app stored (see ``EngineRide/recorded``).
    /// - parameter log: the field log the engine writes to (``log``); by default one without a folder,
    ///   which keeps the newest entries in memory (and copies them to the system log on Apple platforms).
    ///   Pass one with a folder beside the app's store to keep them across launches.
    public init(device: any Device, clock: any Clock<Duration> = ContinuousClock(),
                configuration: EngineCore.Configuration = .init(), memory: PermissionMemory = .init(),
                geofences: GeofenceMonitor.PersistentState? = nil, ride: RideSnapshot? = nil,
                log: FieldLog = FieldLog()) {
        self.device = device
        self.clock = clock
        let core = EngineCore(configuration: configuration, memory: memory, geofences: geofences, ride: ride)
        self.core = core
        fieldLog = log
        notes = FieldLogNotes(level: log.level, core: core)
        self.uses = configuration.capabilities
        self.memoryStates = ReplayBroadcaster(initial: memory)
        self.fenceStates = ReplayBroadcaster(initial: core.geofences.fences.keys.reduce(into: [:]) {
            $0[$1] = core.geofences.presence(of: $1) ?? .unknown })
        self.regionStates = ReplayBroadcaster(initial: core.geofences.monitoredRegions.values.sorted { $0.identifier < $1.identifier })
        self.fenceStore = ReplayBroadcaster(initial: core.geofences.persistentState)
        self.fenceRevision = core.geofences.revision
        self.rideStates = ReplayBroadcaster(initial: core.rideTracker.state)
        self.rideStatistics = ReplayBroadcaster(initial: core.rideTracker.statistics)
        self.automaticStates = ReplayBroadcaster(initial: core.rideTracker.automaticState)
        self.publishedAutomatic = core.rideTracker.automaticState
    }

    /// Permission requests and their published results.
    public nonisolated var permissions: EnginePermissions { EnginePermissions(engine: self) }

    /// The launch location's states, with replay.
    public nonisolated var launchLocation: EngineLaunchLocation { EngineLaunchLocation(engine: self) }

    /// The map helper's states, with replay.
    public nonisolated var map: EngineMap { EngineMap(engine: self) }

    /// Geofences: change the set, read events, presence and monitored regions.
    public nonisolated var geofences: EngineGeofences { EngineGeofences(engine: self) }

    /// The ride: start, pause, resume, stop; states, statistics and what to store.
    public nonisolated var ride: EngineRide { EngineRide(engine: self) }

    /// What the app's Info.plist lacks for what it uses, with messages a developer can act on.
    public nonisolated var diagnostics: EngineDiagnostics { EngineDiagnostics(engine: self) }

    /// The app's lifecycle and network events as the engine handled them (``EngineSystem``).
    public nonisolated var system: EngineSystem { EngineSystem(engine: self) }

    /// The heartbeat's wakes and beats (``Heartbeat``).
    public nonisolated var heartbeats: EngineHeartbeats { EngineHeartbeats(engine: self) }

    /// Consumes the device's events until the stream ends, then stops: pending requests throw
    /// ``EngineError/Code/stopped`` and every state sequence ends.
    ///
    /// - precondition: called once per engine (a second call, even after the first returned, stops
    ///   the program: the device's event stream has one consumer).
    public func run() async {
        precondition(!started, "Engine.run() was called twice; call it once per engine")
        started = true
        await readDeclarations()
        await readBackgroundAppRefresh(at: nil)
        for await timed in device.events {
            guard !stopped else { break }
            await fireDueDeadlines(through: timed.time)
            guard !stopped else { break }
            latestEventTime = max(latestEventTime ?? timed.time, timed.time)
            switch timed.event {
            case .launched:
                core.osMonitoredRegions = await device.monitoredRegionIdentifiers()
                if core.configuration.ride.automatic.enabled {
                    core.osWakeRegion = await device.monitoredRegion(identifier: RideTracker.wakeFenceIdentifier)
                }
                await readBackgroundAppRefresh(at: timed.time)
            case .willEnterForeground:
                await readBackgroundAppRefresh(at: timed.time)
            default:
                break
            }
            notes.level = fieldLog.level
            fieldLog.record(notes.event(timed.event, at: timed.time))
            let out = core.handle(timed.event, at: timed.time)
            await apply(out, at: timed.time)
            if let system = timed.event.systemPart { await systemEvents.publish(system) }
            eventsHandled += 1
            resumeHandledWaiters()
        }
        await stop()
    }

    /// Stops the engine now (as if the device stream had ended).
    public func stop() async {
        guard !stopped else { return }
        stopped = true
        timer?.cancel()
        timer = nil
        for waiter in waiters.values {
            waiter.resume(throwing: EngineError(.stopped, "the engine stopped before the permission requests finished"))
        }
        waiters = [:]
        for waiter in locationWaiters.values {
            waiter.resume(returning: .failure(LocationRequestError(.stopped, "the engine stopped before a fix came")))
        }
        locationWaiters = [:]
        for stream in locationStreams.values { stream.finish() }
        locationStreams = [:]
        resumeHandledWaiters()
        await launchStates.finish()
        await authorizationStates.finish()
        await mapStates.finish()
        await memoryStates.finish()
        await outcomeStates.finish()
        await fenceEvents.finish()
        await fenceStates.finish()
        await regionStates.finish()
        await fenceStore.finish()
        await rideStates.finish()
        await rideStatistics.finish()
        await automaticStates.finish()
        await rideRecords.finish()
        await problemStates.finish()
        await launchAttributions.finish()
        await systemEvents.finish()
        await heartbeatUpdates.finish()
    }

    /// The time to stamp an app call with: the device's clock, never before the latest event.
    func appCallTime() async -> Date {
        let deviceNow = await device.now()
        return max(deviceNow, latestEventTime ?? deviceNow)
    }

    func requestPermissions(_ requests: [PermissionRequest]) async throws -> [PermissionOutcome] {
        guard !stopped else { throw EngineError(.stopped, "the engine was stopped (stop() was called, or the device's events ended)") }
        await noteUse(Self.capabilities(for: requests))
        let batch = nextBatch
        nextBatch += 1
        let deviceNow = await device.now()
        let now = max(deviceNow, latestEventTime ?? deviceNow)
        fieldLog.record(notes.appAsked(for: requests, at: now))
        await apply(core.requestPermissions(requests, batch: batch, at: now), at: now)
        if let done = completed.removeValue(forKey: batch) { return done }
        guard !stopped else { throw EngineError(.stopped, "the engine stopped before the permission requests finished") }
        return try await withCheckedThrowingContinuation { waiters[batch] = $0 }
    }

    /// Re-arms the timer, then publishes the updates and performs the commands of one core step,
    /// after those of every earlier step.
    ///
    /// The order matters because the engine is an actor and `device.perform` suspends: while one
    /// step's commands are on their way (say, the launch locator's `stopUpdatingLocation` after
    /// the launch fix), an app call can run a newer step (the ride's `startUpdatingLocation`).
    /// Performed as they came, the older stop would land last and switch the ride's GNSS off.
    /// Chaining each step's effects behind the previous step's keeps the device in the order the
    /// core decided, and the caller returns only once its own step has been performed.
    func apply(_ out: EngineOutput, at time: Date) async {
        rescheduleTimer()
        notes.level = fieldLog.level
        fieldLog.record(notes.step(out, core: core, at: time))
        var stored: GeofenceMonitor.PersistentState?
        if core.geofences.revision != fenceRevision {
            fenceRevision = core.geofences.revision
            stored = core.geofences.persistentState
        }
        var automatic: AutomaticTracking.State?
        if core.rideTracker.automaticState != publishedAutomatic {
            publishedAutomatic = core.rideTracker.automaticState
            automatic = publishedAutomatic
        }
        let previous = effects
        let step = Task {
            await previous?.value
            for update in out.updates { await self.publish(update) }
            if let automatic { await self.automaticStates.publish(automatic) }
            if let stored { await self.fenceStore.publish(stored) }
            for command in out.commands { await self.device.perform(command) }
        }
        effects = step
        await step.value
    }

    private func publish(_ update: EngineUpdate) async {
        switch update {
        case .permission(.batchCompleted(let batch, let outcomes)):
            if let waiter = waiters.removeValue(forKey: batch) {
                waiter.resume(returning: outcomes)
            } else {
                completed[batch] = outcomes
            }
        case .permission(.outcome(_, let outcome)): await outcomeStates.publish(outcome)
        case .permission(.authorizationChanged(let auth)): await authorizationStates.publish(auth)
        case .permission(.memoryChanged(let memory)): await memoryStates.publish(memory)
        case .launchLocation(let state): await launchStates.publish(state)
        case .map(let state): await mapStates.publish(state)
        case .geofence(.event(let event)): await fenceEvents.publish(event)
        case .geofence(.presence(let id, let presence)):
            var all = await fenceStates.current ?? [:]
            all[id] = presence
            await fenceStates.publish(all)
        case .geofence(.monitoredRegions(let regions)): await regionStates.publish(regions)
        case .ride(.state(let state)): await rideStates.publish(state)
        case .ride(.statistics(let statistics)): await rideStatistics.publish(statistics)
        case .ride(.recorded(let fix)): await rideRecords.publish(.fix(fix))
        case .ride(.gap(let gap)): await rideRecords.publish(.gap(gap))
        case .ride(.checkpoint(let snapshot)): await rideRecords.publish(.checkpoint(snapshot))
        case .launch(let attribution): await launchAttributions.publish(attribution)
        case .location(.completed(let id, let result)):
            if let waiter = locationWaiters.removeValue(forKey: id) {
                waiter.resume(returning: result)
            } else {
                locationAnswers[id] = result
            }
        case .location(.fix(let id, let fix)): locationStreams[id]?.yield(fix)
        case .heartbeat(let update): await heartbeatUpdates.publish(update)
        }
    }
}
