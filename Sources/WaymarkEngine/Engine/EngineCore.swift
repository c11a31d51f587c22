import Foundation
import WaymarkGeo

/// The engine's pure heart: the components in their fixed order plus the ``DemandResolver``.
///
/// Each device event goes to the ``PermissionSequencer``, then the ``LaunchLocator``, the
/// ``MapLaunchHelper``, the ``GeofenceMonitor`` and the ``RideTracker``; the resolver then merges
/// the components' location demands into the fewest commands. On the first `launched` event the
/// core creates the location manager (iOS answers with the authorization callback the components
/// need). A second `launched` means a new process: the core starts over, keeping only what an app
/// keeps on disk (the ``PermissionMemory``, the geofences' ``GeofenceMonitor/PersistentState`` and
/// the last ``RideSnapshot``).
///
/// Motion-activity updates for the ride start only once motion permission is granted: the core
/// asks through the ``PermissionSequencer`` (after any prompt already queued or on screen), so the
/// motion prompt never collides with another (see ``motionPermissionBatch``).
///
/// The geofence monitor leaves one of the app's region slots to the ride's wake fence, so that
/// Waymark never monitors more than `regionSlots` minus the host's regions.
///
/// ```swift
/// var core = EngineCore()
/// var out = core.handle(.launched(reason: .user), at: t0)          // [.createLocationManager]
/// out = core.requestPermissions([.locationWhenInUse], batch: 1, at: t0)
/// out = core.rideCommand(.start(rideID: "ride-1"), at: t0)
/// ```
///
/// No clock, no OS: wake it with ``deadlineReached(at:)`` at ``nextDeadline``. A `Sendable`
/// value type owned by one task (the ``Engine`` actor, or a simulated app).
public struct EngineCore: Sendable {
    /// The components' configurations.
    public struct Configuration: Hashable, Sendable {
        /// Permission timeouts and declared usage descriptions.
        public var permissions: PermissionSequencer.Configuration
        /// Launch-fix freshness, accuracy and timeout.
        public var launchLocation: LaunchLocator.Configuration
        /// Geofence slots, margins and timings (the core reserves one more slot for the ride).
        public var geofencing: GeofenceMonitor.Configuration
        /// The ride tracker's policy, filters and timings.
        public var ride: RideTracker.Configuration
        /// The Core Location API the device runs location work on (default: `CLLocationManager`).
        public var backend: LocationBackend
        /// What the app uses of the OS from its first launch, checked against its Info.plist
        /// (see ``EngineDiagnostics``). The engine adds what the app turns out to use: Always and
        /// motion when requested, background location (and motion, with
        /// ``RideTracker/Configuration/usesMotion``) when a ride starts.
        public var capabilities: AppCapabilities
        /// On the iOS 17/18 backend, how long a `CLBackgroundActivitySession` is kept after its
        /// updates stop, s (``ModernBackendAdapter/sessionGrace``): a when-in-use app cannot begin a
        /// new one from the background, so a ride that goes on within this time keeps recording.
        public var backgroundSessionGrace: TimeInterval
        /// The heartbeat through iOS's app-refresh task (``Heartbeat``; off without a task identifier).
        public var heartbeat: Heartbeat.Configuration {
            didSet { noteHeartbeatUse() }
        }

        /// Makes a configuration.
        public init(permissions: PermissionSequencer.Configuration = .init(),
                    launchLocation: LaunchLocator.Configuration = .init(),
                    geofencing: GeofenceMonitor.Configuration = .init(),
                    ride: RideTracker.Configuration = .init(),
                    capabilities: AppCapabilities = .init(), backend: LocationBackend = .locationManager,
                    backgroundSessionGrace: TimeInterval = ModernBackendAdapter.defaultSessionGrace,
                    heartbeat: Heartbeat.Configuration = .init()) {
            self.heartbeat = heartbeat
            self.backend = backend
            self.backgroundSessionGrace = backgroundSessionGrace
            self.permissions = permissions
            self.launchLocation = launchLocation
            self.geofencing = geofencing
            self.ride = ride
            var uses = capabilities
            // The iOS 17/18 backend needs NSLocationRequireExplicitServiceSession (InfoPlistCheck).
            if backend == .modern { uses.iOS17LocationBackend = true }
            // Automatic tracking records in the background, is relaunched by region exits and
            // significant changes (Always only, PLATFORM.md §4), and watches motion.
            if ride.automatic.enabled {
                uses.backgroundLocation = true
                uses.locationAlways = true
                if ride.usesMotion { uses.motion = true }
            }
            self.capabilities = uses
            noteHeartbeatUse()
        }

        /// A heartbeat uses an app-refresh task: its identifier must be permitted in the Info.plist,
        /// with the `fetch` background mode (``InfoPlistCheck``).
        private mutating func noteHeartbeatUse() {
            if let id = heartbeat.taskIdentifier, !capabilities.appRefreshTaskIdentifiers.contains(id) {
                capabilities.appRefreshTaskIdentifiers.append(id)
            }
        }

        /// The geofence configuration the core runs: ``geofencing`` with one slot reserved for
        /// the ride's wake fence.
        public var effectiveGeofencing: GeofenceMonitor.Configuration {
            var result = geofencing
            result.reservedRegionSlots += RideTracker.regionSlots
            return result
        }
    }

    /// The configuration in force.
    public internal(set) var configuration: Configuration
    /// The permission sequencer.
    public internal(set) var permissions: PermissionSequencer
    /// The launch locator.
    public private(set) var launchLocator: LaunchLocator
    /// The geofence monitor (store its ``GeofenceMonitor/persistentState`` when its revision moves).
    public private(set) var geofences: GeofenceMonitor
    /// The ride tracker (store its ``RideTracker/snapshot`` on every ``RideUpdate/checkpoint(_:)``).
    public private(set) var rideTracker: RideTracker
    /// The map helper.
    public private(set) var map = MapLaunchHelper()
    /// On-demand location: requests for one fix and streams outside a ride.
    public private(set) var location = LocationRequests()
    /// The heartbeat through iOS's app-refresh task.
    public private(set) var heartbeat: Heartbeat
    /// The demand resolver.
    public private(set) var resolver = DemandResolver()
    /// The iOS 17 translation (used with ``Configuration/backend`` `.modern`).
    public private(set) var modern = ModernBackendAdapter()
    /// Why this process was launched (the reason, refined by the first location event); nil before
    /// the ``DeviceEvent/launched(reason:)`` event.
    public private(set) var launch: LaunchAttribution?
    private var launched = false
    var motionGate = MotionGate.unknown
    var motionStartHeld = false
    /// Whether the step under way handles a `launched` event.
    var launchStep = false

    /// Makes a core for a new process from what the app stored: the permission memory, the
    /// geofences' persistent state and the ride's last snapshot.
    public init(configuration: Configuration = Configuration(), memory: PermissionMemory = PermissionMemory(),
                geofences stored: GeofenceMonitor.PersistentState? = nil, ride snapshot: RideSnapshot? = nil) {
        self.configuration = configuration
        permissions = PermissionSequencer(configuration: configuration.permissions, memory: memory)
        launchLocator = LaunchLocator(configuration: configuration.launchLocation)
        geofences = GeofenceMonitor(configuration: configuration.effectiveGeofencing, restoring: stored)
        rideTracker = RideTracker(configuration: configuration.ride, restoring: snapshot)
        heartbeat = Heartbeat(configuration: configuration.heartbeat, windows: configuration.ride.automatic.enabled ? configuration.ride.automatic.windows : nil)
        modern = ModernBackendAdapter(sessionGrace: configuration.backgroundSessionGrace,
                                      heard: stored?.conditionStates ?? [:])
    }

    /// The regions the OS monitors for the app as this process starts, set before the
    /// ``DeviceEvent/launched(reason:)`` event is handled (``Engine`` reads them from
    /// ``Device/monitoredRegionIdentifiers()``); the launch reconciles the geofences' stored
    /// regions with them (see ``GeofenceMonitor/reconcile(osMonitoredRegions:)``). Nil: unknown.
    public var osMonitoredRegions: Set<String>?

    /// The ride tracker's wake fence as the OS monitors it when this process starts (centre and
    /// radius; ``Device/monitoredRegion(identifier:)``), set before the ``DeviceEvent/launched(reason:)``
    /// event like ``osMonitoredRegions``. Automatic tracking takes its centre as the resting place when
    /// the stored snapshot has none (a process relaunched before any ride was stored). Nil: none or unknown.
    public var osWakeRegion: MonitoredRegion?

    /// Takes the usage descriptions the app declares when its configuration did not give them
    /// (``PermissionSequencer/Configuration/declaredUsageDescriptions`` nil), so a request whose
    /// key is missing ends as misconfigured at once instead of waiting for a prompt.
    public mutating func adoptDeclaredUsageDescriptions(_ keys: Set<UsageDescriptionKey>) {
        guard permissions.configuration.declaredUsageDescriptions == nil else { return }
        permissions.configuration.declaredUsageDescriptions = keys
        configuration.permissions.declaredUsageDescriptions = keys
    }

    /// The earliest time a component must be woken with ``deadlineReached(at:)``.
    public var nextDeadline: Date? {
        let session = configuration.backend == .modern ? modern.sessionReleaseDeadline : nil
        return [permissions.nextDeadline, launchLocator.nextDeadline, geofences.nextDeadline, rideTracker.nextDeadline,
                location.nextDeadline, heartbeat.nextDeadline, session]
            .compactMap { $0 }.min()
    }

    /// Queues permission requests as one batch (see ``PermissionSequencer/enqueue(_:batch:at:)``).
    public mutating func requestPermissions(_ requests: [PermissionRequest], batch: Int, at now: Date) -> EngineOutput {
        var out = EngineOutput()
        out.absorb(permissions.enqueue(requests, batch: batch, at: now), as: EngineUpdate.permission)
        finishStep(into: &out, at: now)
        return out
    }

    /// Handles one device event (on the iOS 17 backend, translated first: ``ModernBackendAdapter``).
    public mutating func handle(_ event: DeviceEvent, at now: Date) -> EngineOutput {
        var out = EngineOutput()
        if configuration.backend == .modern {
            for translated in modern.events(event, at: now) {
                let step = handleEvent(translated, at: now)
                out.updates += step.updates
                out.commands += step.commands
            }
            if case .monitorEvent = event { geofences.rememberConditionStates(modern.conditions) }
        } else {
            out = handleEvent(event, at: now)
        }
        // After the step: a launch starts the core over, attribution included.
        if case .launched(let reason) = event {
            let attribution = LaunchAttribution(reason: reason, at: now)
            launch = attribution
            out.updates.append(.launch(attribution))
        } else if launch?.handle(event, at: now) == true, let launch {
            out.updates.append(.launch(launch))
        }
        return out
    }

    private mutating func handleEvent(_ event: DeviceEvent, at now: Date) -> EngineOutput {
        var out = EngineOutput()
        switch event {
        case .launched:
            let osRegions = osMonitoredRegions, wake = osWakeRegion
            if launched {
                let requests = location   // the app's open requests and streams belong to the caller, not the process
                self = EngineCore(configuration: configuration, memory: permissions.memory,
                                  geofences: geofences.persistentState, ride: rideTracker.snapshot)
                location = requests
            }
            rideTracker.osWakeRegion = wake
            osWakeRegion = nil
            launched = true
            launchStep = true
            out.commands.append(.createLocationManager)
            if let osRegions { out.absorb(geofences.reconcile(osMonitoredRegions: osRegions), as: EngineUpdate.geofence) }
            osMonitoredRegions = nil
        case .locationError(.denied):
            resolver.deviceStoppedStandardUpdates()
        case .willEnterForeground, .authorizationChanged, .regionEntered, .regionExited, .significantChange, .visit:
            // In use again, or woken by a location event: a when-in-use app may start updates now.
            resolver.deviceMayStartAgain()
        default:
            break
        }
        out.absorb(permissions.handle(event, at: now), as: EngineUpdate.permission)
        out.absorb(launchLocator.handle(event, at: now), as: EngineUpdate.launchLocation)
        out.absorb(geofences.handle(event, at: now), as: EngineUpdate.geofence)
        if case .locations(let fixes) = event, let last = fixes.last {
            // GNSS may rest on a steady stretch only as far as the nearest fence boundary.
            rideTracker.restLimitMeters = geofences.nearestBoundaryDistance(to: last.coordinate,
                                                                           within: rideTracker.restHorizonMeters(after: last))
        }
        rideTracker.motionUnavailable = motionGate == .refused
        out.absorb(rideTracker.handle(event, at: now), as: EngineUpdate.ride)
        out.absorb(location.handle(event, at: now), as: EngineUpdate.location)
        out.absorb(heartbeat.handle(event, at: now), as: EngineUpdate.heartbeat)
        finishStep(into: &out, at: now)
        return out
    }

    /// Asks for one fix outside the ride's own (``LocationRequests/request(id:accuracy:maximumAge:timeout:at:)``).
    public mutating func requestLocation(id: Int, accuracy: DesiredAccuracy, maximumAge: TimeInterval, timeout: TimeInterval,
                                         at now: Date) -> EngineOutput {
        var out = EngineOutput()
        out.absorb(location.request(id: id, accuracy: accuracy, maximumAge: maximumAge, timeout: timeout, at: now),
                   as: EngineUpdate.location)
        finishStep(into: &out, at: now)
        return out
    }

    /// Gives up a location request (its caller's task was cancelled).
    public mutating func cancelLocationRequest(id: Int, at now: Date) -> EngineOutput {
        var out = EngineOutput()
        out.absorb(location.cancel(id: id), as: EngineUpdate.location)
        finishStep(into: &out, at: now)
        return out
    }

    /// Opens (`open` true) or closes a stream of fixes outside the ride's own.
    public mutating func locationStream(id: Int, open: Bool, accuracy: DesiredAccuracy = .best,
                                        distanceFilterMeters: Double? = nil, at now: Date) -> EngineOutput {
        var out = EngineOutput()
        if open {
            out.absorb(location.openStream(id: id, accuracy: accuracy, distanceFilterMeters: distanceFilterMeters), as: EngineUpdate.location)
        } else {
            location.closeStream(id: id)
        }
        finishStep(into: &out, at: now)
        return out
    }

    /// Changes the fence set (add, remove, replace), e.g. `core.changeFences { try $0.add(fences, at: now) }`.
    /// - throws: the `GeoError` of an invalid fence; nothing changes then.
    public mutating func changeFences(_ change: (inout GeofenceMonitor) throws(GeoError) -> GeofenceMonitor.Output)
        throws(GeoError) -> EngineOutput {
        var out = EngineOutput()
        out.absorb(try change(&geofences), as: EngineUpdate.geofence)
        finishStep(into: &out, at: nil)
        return out
    }

    /// Handles the rider's tap on the ride controls (start, pause, resume, stop).
    public mutating func rideCommand(_ command: RideCommand, at now: Date) -> EngineOutput {
        var out = EngineOutput()
        let step: RideTracker.Output
        switch command {
        case .start(let rideID): step = rideTracker.start(rideID: rideID, at: now)
        case .pause: step = rideTracker.pause(at: now)
        case .resume: step = rideTracker.resume(at: now)
        case .stop: step = rideTracker.stop(at: now)
        }
        out.absorb(step, as: EngineUpdate.ride)
        finishStep(into: &out, at: now)
        return out
    }

    /// Handles a wake-up: every component whose deadline has come acts on it.
    public mutating func deadlineReached(at now: Date) -> EngineOutput {
        var out = EngineOutput()
        out.absorb(permissions.deadlineReached(at: now), as: EngineUpdate.permission)
        out.absorb(launchLocator.deadlineReached(at: now), as: EngineUpdate.launchLocation)
        out.absorb(geofences.deadlineReached(at: now), as: EngineUpdate.geofence)
        out.absorb(rideTracker.deadlineReached(at: now), as: EngineUpdate.ride)
        out.absorb(location.deadlineReached(at: now), as: EngineUpdate.location)
        out.absorb(heartbeat.deadlineReached(at: now), as: EngineUpdate.heartbeat)
        finishStep(into: &out, at: now)
        return out
    }

    /// Ends a step: motion gating (when the step has a time), the map helper, the merged demands.
    private mutating func finishStep(into out: inout EngineOutput, at now: Date?) {
        if let now { gateMotion(&out, at: now) }
        launchStep = false
        // Without motion (permission refused or unavailable) automatic tracking uses its fallback.
        rideTracker.motionUnavailable = motionGate == .refused
        if let change = map.update(launch: launchLocator.state, authorization: permissions.authorization) {
            out.updates.append(.map(change))
        }
        out.commands += resolver.resolve([launchLocator.demand] + geofences.demands + rideTracker.demands + [location.demand, heartbeat.demand])
        if configuration.backend == .modern { out.commands = modern.commands(out.commands, at: now) }
    }
}
