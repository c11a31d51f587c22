import Foundation
import WaymarkEngine
import WaymarkGeo

/// A deterministic discrete-event simulation of an iPhone's location, permission and lifecycle
/// behaviour (PLATFORM.md), on a virtual clock.
///
/// Drive it with an attached ``SimulatedApp``, or by hand with ``perform(_:)->()`` between
/// ``run(until:)`` calls; read what the app received in ``received``, the truth from
/// ``truePosition(at:)``, and energy from ``energy``.
///
/// ```swift
/// var sim = try Simulation(scenario: Scenario(user: UserBehaviour(actions: [UserAction(at: 0, .open)])), seed: 1)
/// sim.run(until: 1)
/// sim.perform(.createLocationManager)          // → authorizationChanged(notDetermined)
/// sim.perform(.requestWhenInUseAuthorization)  // prompt; the user answers after 2 s
/// sim.run(until: 5)
/// ```
///
/// A `Sendable` value type: copy it to fork a run. Not thread-safe to mutate from several tasks
/// (wrap it in ``SimulatedDevice`` for that).
///
/// Internally the simulation coordinates owned parts, each a struct with its own state and
/// transitions (`Sources/WaymarkSimulator/Machines`, `Network`): the permission centre, the app
/// process, the region monitor, the location service's sessions, the motion classifier and the
/// network link. The `Simulation+…` extensions decide when things happen (the clock, the random
/// draws, the order of events) and what the app hears.
public struct Simulation: Sendable {
    /// The scenario being run.
    public let scenario: Scenario
    /// The constants in force (profile plus overrides).
    public let constants: PlatformConstants
    /// The seed.
    public let seed: UInt64
    /// The wall-clock time of virtual second 0.
    public let epoch: Date
    /// The end of the scenario, virtual seconds.
    public let endTime: Double
    /// The device's true path.
    public let trajectory: Trajectory
    /// Current virtual time, seconds since the start.
    public internal(set) var now = 0.0
    /// Everything delivered to the app, in order.
    public internal(set) var received: [TimedDeviceEvent] = []
    /// The log (events, commands, system notes).
    public internal(set) var log = EventLog()
    /// Energy spent so far by consumer.
    public internal(set) var energy = EnergyReport()
    /// Counters.
    public internal(set) var stats = SimulationStats()

    var app: (any SimulatedApp)?
    var firedAppDeadline: Date?
    var queue = EventQueue<SimulationAction>()
    var outbox: [DeviceEvent] = []
    var rng: SeededRandom
    /// iOS's app-refresh scheduler (`BGTaskScheduler`): pending requests and the running task.
    var appRefresh = AppRefreshScheduler()
    /// What positioning delivers where (sources, accuracies, outages); read-only.
    let positioning: Positioning
    /// The permission centre: settings, the prompt on screen, temporary and provisional grants.
    var permissions = PermissionCentre(device: DeviceSetup())
    /// The app's process (lifecycle, background windows and tasks, the force-quit record).
    var process = AppProcess()
    /// The system's region monitor (registrations persist across launches).
    var regions = RegionMonitoring()
    /// The location service's sessions (standard, one-shot, significant-change, visits, held fixes).
    var locationService: LocationService
    /// The motion coprocessor's classifier.
    var motion = MotionClassifier()
    /// The network and the server (`world.network`); uploads meet it through ``SimulatedNetworkTransport``.
    public let network: SimulatedNetwork
    /// The phone's side of the network: observed reachability and the radio.
    var link: NetworkLink

    /// Makes a simulation of `scenario` with `seed` (the scenario's seed, else 1, when nil).
    ///
    /// - parameter scenario: the run to simulate: route, device, user, world, motion and platform
    ///   settings; it is validated first.
    /// - parameter seed: the run's random seed; nil uses the scenario's `seed`, else 1.
    /// - parameter app: the app under test: it receives every event and the simulation performs the
    ///   commands it returns; nil to drive the device by hand with ``perform(_:)->()``.
    /// - parameter trajectory: the truth to use instead of the scenario's route (e.g. from a GPX file).
    /// - throws: ``SimulatorError`` with code ``SimulatorError/Code/invalidScenario`` naming the field.
    public init(scenario: Scenario, seed: UInt64? = nil, app: (any SimulatedApp)? = nil,
                trajectory: Trajectory? = nil) throws(SimulatorError) {
        try scenario.validate()
        self.scenario = scenario
        self.seed = seed ?? scenario.seed ?? 1
        self.constants = try scenario.resolvedConstants()
        self.epoch = scenario.startTime ?? Scenario.defaultStartTime
        self.network = SimulatedNetwork(scenario.world?.network)
        self.link = NetworkLink(network)
        if let trajectory {
            self.trajectory = trajectory
        } else {
            self.trajectory = try scenario.trajectoryOfValidScenario()
        }
        self.endTime = scenario.durationSeconds ?? self.trajectory.endTime + 60
        self.app = app
        self.rng = SeededRandom(seed: self.seed, stream: "device")
        self.locationService = LocationService(errorTimeConstant: constants.positionErrorTimeConstantSeconds)
        self.positioning = Positioning(constants: constants, world: scenario.world, trajectory: self.trajectory, epoch: epoch)
        setUpDevice()
        for (i, action) in (scenario.user?.actions ?? []).enumerated() {
            queue.schedule(.user(i), at: action.at)
        }
        if scenario.motion?.mode == .scripted {
            for (i, item) in (scenario.motion?.script ?? []).enumerated() { queue.schedule(.motionScript(i), at: item.at) }
        }
        queue.schedule(.tick, at: constants.updateIntervalSeconds)
    }

    /// The app's current lifecycle state (including suspension, which the app cannot observe).
    public var appState: AppState { process.state }

    var standard: StandardUpdates? { locationService.standard }
    var oneShots: [OneShot] { locationService.oneShots }
    var significant: SignificantChanges? { locationService.significant }
    var visits: VisitMonitoring? { locationService.visits }
    var lastKnownFix: Fix? { locationService.lastKnownFix }
    var heldFixes: [Fix] { locationService.heldFixes }

    /// The current location authorization as the app would read it.
    public var locationAuthorization: LocationAuthorization { permissions.authorization }

    /// Identifiers of the regions the app monitors, in registration order.
    public var monitoredRegionIdentifiers: [String] { regions.identifiers }

    /// The virtual wall-clock time now.
    public var currentDate: Date { date(now) }

    /// The true position at a wall-clock time (for scoring fixes).
    public func truePosition(at time: Date) -> Coordinate {
        trajectory.position(at: time.timeIntervalSince(epoch))
    }

    /// Converts virtual seconds to a date.
    public func date(_ t: Double) -> Date { epoch.addingTimeInterval(t) }

    /// Runs every scheduled action up to and including virtual time `t`, then sets the clock to `t`.
    /// The app's timer (``SimulatedApp/nextDeadline``) fires in between, only while the process runs;
    /// a scheduled action at the same instant goes first.
    ///
    /// - precondition: `t` is not before ``now`` (virtual time only moves forward; a time in the
    ///   past, or NaN, stops the program, naming both).
    public mutating func run(until t: Double) {
        precondition(t >= now, "Simulation.run(until: \(t)) is before the current virtual second \(now); time only moves forward")
        while true {
            let queued = queue.nextTime.flatMap { $0 <= t ? $0 : nil }
            if let due = dueAppDeadline, due <= t, due < (queued ?? .infinity) {
                advanceClock(to: due)
                fireAppDeadline()
                pump()
                continue
            }
            guard queued != nil, let entry = queue.pop() else { break }
            advanceClock(to: entry.time)
            handle(entry.action)
            pump()
        }
        advanceClock(to: max(now, t))
    }

    /// Advances the clock by `seconds`.
    ///
    /// - precondition: `seconds` is zero or more.
    public mutating func advance(by seconds: Double) {
        precondition(seconds >= 0, "Simulation.advance(by: \(seconds)): time only moves forward")
        run(until: now + seconds)
    }

    /// Runs to the scenario's end.
    public mutating func runToEnd() { run(until: endTime) }

    /// Performs a command now, as the app would, and delivers any immediate events.
    public mutating func perform(_ command: DeviceCommand) {
        apply(command)
        pump()
    }

    /// Events of the given kind the app received, e.g. `sim.events { if case .locations(let f) = $0 { f } else { nil } }`.
    public func events<T>(_ match: (DeviceEvent) -> T?) -> [T] { received.compactMap { match($0.event) } }

    mutating func advanceClock(to t: Double) {
        let dt = t - now
        if dt > 0 { chargeContinuousEnergy(for: dt) }
        now = max(now, t)
    }

    mutating func note(_ text: String) {
        log.append(EventLog.Entry(t: now, kind: .system, note: text))
    }

    mutating func schedule(_ action: SimulationAction, in delay: Double) {
        queue.schedule(action, at: now + max(0, delay))
    }

    mutating func handle(_ action: SimulationAction) {
        switch action {
        case .tick:
            tick()
            stepTemporaryAuthorization()   // Allow Once / temporary full accuracy lapse out of use (issue #14)
            queue.schedule(.tick, at: now + constants.updateIntervalSeconds)
        case .user(let i): performUserAction(scenario.user!.actions![i])
        case .promptAnswered(let serial): answerPrompt(serial: serial)
        case .suspendCheck(let generation): suspendIfIdle(generation: generation)
        case .taskExpiry(let generation): expireTasks(generation: generation)
        case .taskEnforce(let generation): enforceTaskExpiry(generation: generation)
        case .oneShotDue(let id): completeOneShot(id: id)
        case .regionEvent(let identifier, let enter, let serial): fireRegionEvent(identifier, enter: enter, serial: serial)
        case .remoteRegistration(let generation): completeRemoteRegistration(generation: generation)
        case .motionScript(let i): applyScriptedMotion(scenario.motion!.script![i])
        case .appRefreshDue(let serial): runAppRefresh(serial: serial)
        case .appRefreshExpiry(let serial): expireAppRefresh(serial: serial)
        case .appRefreshEnforce(let serial): enforceAppRefreshExpiry(serial: serial)
        }
    }

    mutating func tick() {
        let truth = trajectory.state(at: now)
        updateReachability()
        stepStandardUpdates(truth)
        stepRegions(truth)
        stepSignificantChanges(truth)
        stepVisits(truth)
        if scenario.motion?.mode != .scripted { stepDerivedMotion(truth) }
    }

    /// Queues an event for the app; it is delivered only if the process runs (and, for location
    /// events, once the app has created its location manager).
    mutating func emit(_ event: DeviceEvent) {
        guard process.isRunning else {
            if case .locations(let fixes) = event {
                hold(fixes)
            } else {
                note("undelivered (app \(process.state.rawValue)): \(event.logName)")
            }
            return
        }
        if holdForAlwaysConfirmation(event) { return }   // provisional Always: first use while not in use (issue #14)
        if withheldForServiceSession(event) { return }   // iOS 18, explicit sessions required, none held
        if event.needsLocationManager && !process.managerCreated {
            process.holdUntilManagerCreated(event)
            return
        }
        outbox.append(event)
    }

    /// Delivers queued events to the app in order and performs the commands it answers with.
    mutating func pump() {
        while !outbox.isEmpty {
            let event = outbox.removeFirst()
            let timed = TimedDeviceEvent(time: date(now), event: event)
            received.append(timed)
            log.append(EventLog.Entry(t: now, kind: .event, event: event))
            if case .locations(let fixes) = event {
                stats.locationDeliveries += 1
                stats.fixesDelivered += fixes.count
                energy.add(constants.energy.cpuWakePerDelivery, to: .cpuWake)
            }
            guard var current = app else { continue }
            app = nil   // the app's storage stays uniquely referenced: appends do not copy its history
            let commands = current.handle(event, at: timed.time)
            app = current
            for command in commands { apply(command) }
        }
    }

    mutating func apply(_ command: DeviceCommand) {
        log.append(EventLog.Entry(t: now, kind: .command, command: command))
        guard process.isRunning else {
            note("command ignored: app not running")
            return
        }
        switch command {
        case .createLocationManager: createLocationManager()
        case .requestNotificationAuthorization(let options): requestNotifications(options)
        case .registerForRemoteNotifications: schedule(.remoteRegistration(process.generation), in: constants.remoteRegistrationSeconds)
        case .requestWhenInUseAuthorization: requestWhenInUse()
        case .requestAlwaysAuthorization: requestAlways()
        case .requestMotionPermission: requestMotion()
        case .requestTemporaryFullAccuracy(let key): requestTemporaryFullAccuracy(purposeKey: key)
        case .startMonitoringVisits: startVisits()
        case .stopMonitoringVisits: stopVisits()
        case .startUpdatingLocation(let config): startStandardUpdates(config)
        case .stopUpdatingLocation: stopStandardUpdates()
        case .requestLocation(let accuracy): requestOneShot(accuracy)
        case .startSignificantChanges: startSignificantChanges()
        case .stopSignificantChanges: locationService.stopSignificantChanges()
        case .startMonitoring(let region): startMonitoring(region)
        case .stopMonitoring(let identifier): regions.stop(identifier)
        case .requestRegionState(let identifier): reportRegionState(identifier)
        case .startMotionActivityUpdates: startMotionUpdates()
        case .stopMotionActivityUpdates: process.setMotionUpdates(false)
        case .beginBackgroundTask(let id): beginBackgroundTask(id)
        case .endBackgroundTask(let id): endBackgroundTask(id)
        case .startLiveUpdates(let configuration): startLiveUpdates(configuration)
        case .stopLiveUpdates: if standard?.live == true { stopStandardUpdates() }
        case .beginBackgroundActivitySession: beginBackgroundActivitySession()
        case .endBackgroundActivitySession: process.setBackgroundActivitySession(false)
        case .openMonitor: openMonitor()
        case .addMonitorCondition(let region): addMonitorCondition(region)
        case .removeMonitorCondition(let identifier): regions.removeCondition(identifier)
        case .requestMonitorState(let identifier): reportRegionState(identifier)
        case .beginServiceSession(let goal): beginServiceSession(goal)
        case .endServiceSession:
            _ = process.setServiceSession(false)
            note("service session ended")
        case .scheduleAppRefresh(let identifier, let earliest): submitAppRefresh(identifier, earliestBegin: earliest)
        case .completeAppRefresh(let identifier, let success): completeAppRefresh(identifier, success: success)
        }
    }
}

extension DeviceEvent {
    /// Whether the event comes through the location manager's delegate.
    var needsLocationManager: Bool {
        switch self {
        case .authorizationChanged, .locations, .locationError, .locationUpdatesPaused, .locationUpdatesResumed,
             .regionState, .regionEntered, .regionExited, .regionMonitoringFailed, .significantChange, .visit,
             .liveUpdate, .monitorEvent:
            true
        default:
            false
        }
    }

    /// A short name for notes.
    var logName: String {
        let text = String(describing: self)
        return String(text.prefix { $0 != "(" })
    }
}
