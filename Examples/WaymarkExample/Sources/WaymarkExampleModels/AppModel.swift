import Foundation
import Observation
import WaymarkEngine
import WaymarkGeo

/// The example app's root: one ``Engine`` over the device, the tab models, the first-launch
/// permissions and what the app stores.
///
/// Create it once per process, as early as possible (the app delegate's
/// `didFinishLaunchingWithOptions`, also for background launches), call ``start()``, and call
/// ``requestFirstLaunchPermissions()`` when the UI is on screen: location prompts appear only in
/// the foreground. On a phone the device is `LiveDevice`; in the Linux tests a `SimulatedDevice`.
///
/// ```swift
/// let app = AppModel(device: LiveDevice(), store: FileAppStateStore(url: stateURL))
/// await app.start()
/// await app.requestFirstLaunchPermissions()   // notifications, then location, one at a time
/// ```
///
/// Main-actor isolated, observable by SwiftUI.
@MainActor
public final class AppModel: Observable {
    /// The tabs.
    public enum Tab: String, Hashable, Sendable, CaseIterable {
        /// The map, centred once on the launch location.
        case map
        /// The ride recorder and its uploads.
        case ride
        /// The fences and their events.
        case fences
    }

    /// Where the first-launch permission requests stand.
    public enum FirstLaunch: Hashable, Sendable {
        /// Not asked in this process yet.
        case notAsked
        /// The requests are under way (a prompt may be on screen).
        case asking
        /// Every request finished, with its outcome.
        case finished([PermissionOutcome])
    }

    /// What the root view shows.
    public struct State: Hashable, Sendable {
        /// The selected tab.
        public var tab: Tab = .map
        /// The first-launch requests.
        public var firstLaunch: FirstLaunch = .notAsked
        /// The latest location authorization, nil before the first callback.
        public var authorization: LocationAuthorization?
        /// Configuration problems a developer must fix (missing Info.plist keys), with messages.
        public var problems: [String] = []
        /// The latest known position (the launch fix, then the ride's fixes), for "add a fence here".
        public var lastKnownLocation: Coordinate?
        /// The server the Ride tab uploads to.
        public var server: ServerSettings?
    }

    /// The engine.
    public let engine: Engine
    /// The device the engine runs on (`LiveDevice` on a phone).
    public let device: any Device
    /// The Map tab.
    public let map: MapModel
    /// The Ride tab.
    public let ride: RideModel
    /// The Fences tab.
    public let fences: FencesModel
    private var observed = ObservedValue(State())
    private let store: any AppStateStore
    private var stored: StoredAppState
    private let makeUploader: @MainActor (ServerSettings) -> any RideUploader
    private var tasks: [Task<Void, Never>] = []
    private var unsavedChanges = 0

    /// What the root view shows; observed by SwiftUI.
    public private(set) var state: State {
        get { observed.read(self, \.state) }
        set { observed.write(self, \.state, newValue) }
    }

    /// Makes the app over `device` with what `store` holds.
    ///
    /// - parameter clock: wakes the engine at its deadlines (a manual clock in tests).
    /// - parameter declaredUsageDescriptions: the Info.plist's usage descriptions
    ///   (`InfoPlistCheck.declaredUsageDescriptions(in:)`), so a missing one is reported at once.
    /// - parameter configurationProblems: what `LiveDevice.configurationProblems(for:)` found; shown on screen.
    /// - parameter backend: the Core Location API the engine uses (see `LocationBackend`).
    /// - parameter makeUploader: makes the uploader for a server (``URLSessionRideUploader`` by default).
    public init(device: any Device, clock: any Clock<Duration> = ContinuousClock(), store: any AppStateStore,
                declaredUsageDescriptions: Set<UsageDescriptionKey>? = nil,
                configurationProblems: [ConfigurationProblem] = [], backend: LocationBackend = .locationManager,
                makeUploader: @escaping @MainActor (ServerSettings) -> any RideUploader = { URLSessionRideUploader(settings: $0) }) {
        let stored = store.load()
        self.device = device
        self.store = store
        self.stored = stored
        self.makeUploader = makeUploader
        engine = Engine(device: device, clock: clock,
                        configuration: ExampleApp.engineConfiguration(declaredUsageDescriptions: declaredUsageDescriptions,
                                                                      backend: backend),
                        memory: stored.permissionMemory, geofences: stored.geofences, ride: stored.ride)
        map = MapModel()
        ride = RideModel(engine: engine, device: device, uploads: stored.uploads, checkpoint: stored.ride,
                         uploader: stored.server.map(makeUploader))
        fences = FencesModel(engine: engine, stored: stored.geofences, log: stored.fenceLog)
        state.problems = configurationProblems.map(\.message)
        state.server = stored.server
        ride.changed = { [weak self] uploads, checkpoint in
            guard let self else { return }
            self.stored.uploads = uploads
            self.stored.ride = checkpoint
            self.saveSoon()
        }
        fences.logChanged = { [weak self] log in
            self?.stored.fenceLog = log
            self?.save()
        }
    }

    /// Subscribes every tab to the engine, then runs the engine. Call once, at launch.
    ///
    /// Fence events and ride records are not replayed, so every subscription is made here, at once
    /// (`subscribe()`), before the engine starts reading the device's events, which wait in the
    /// device's stream until then.
    public func start() async {
        guard tasks.isEmpty else { return }
        let engine = engine
        await observe(engine.permissions.authorization) { app, auth in
            app.state.authorization = auth
            app.ride.apply(auth)
        }
        await observe(engine.diagnostics.problems) { app, problems in
            for message in problems.map(\.message) where !app.state.problems.contains(message) {
                app.state.problems.append(message)
            }
        }
        await observe(engine.permissions.memory) { app, memory in
            app.stored.permissionMemory = memory
            app.save()
        }
        await observe(engine.launchLocation.states) { app, launch in
            app.map.apply(launch)
            if let fix = launch.fix { app.state.lastKnownLocation = fix.coordinate }
        }
        await observe(engine.map.states) { app, map in app.map.apply(map) }
        await observe(engine.geofences.events) { app, event in app.fences.record(event) }
        await observe(engine.geofences.states) { app, presence in app.fences.apply(presence: presence) }
        await observe(engine.geofences.stored) { app, stored in
            app.stored.geofences = stored
            app.fences.apply(stored: stored)
            app.save()
        }
        await observe(engine.ride.states) { app, ride in
            app.ride.apply(ride)
            app.save()
        }
        await observe(engine.ride.statistics) { app, statistics in app.ride.apply(statistics) }
        await observe(engine.ride.recorded) { app, record in
            if case .fix(let fix) = record { app.state.lastKnownLocation = fix.coordinate }
            app.ride.record(record)
        }
        tasks.append(Task.detached { await engine.run() })
    }

    /// Asks for notifications, then location while in use, one at a time, and records the outcomes.
    ///
    /// Call when the UI is on screen, on every launch: already-determined permissions are skipped
    /// without a prompt, and a granted notification permission registers for remote
    /// notifications again, as Apple recommends. Runs once per process.
    public func requestFirstLaunchPermissions() async {
        guard state.firstLaunch == .notAsked else { return }
        state.firstLaunch = .asking
        do {
            let outcomes = try await engine.permissions.request(ExampleApp.firstLaunchRequests)
            state.firstLaunch = .finished(outcomes)
            for outcome in outcomes {
                if case .misconfigured(let key) = outcome.result {
                    state.problems.append("Info.plist lacks \(key.rawValue): iOS shows no prompt for it.")
                }
            }
        } catch {
            state.firstLaunch = .finished([])
        }
    }

    /// Selects a tab.
    public func select(_ tab: Tab) { state.tab = tab }

    /// Sets (or clears) the server the Ride tab uploads to, and stores it.
    public func setServer(_ settings: ServerSettings?) {
        state.server = settings
        stored.server = settings
        ride.uploader = settings.map(makeUploader)
        save()
    }

    /// Writes what the app stores now (call when the app leaves the foreground).
    public func save() {
        unsavedChanges = 0
        store.save(stored)
    }

    /// Stores after every tenth ride change: a termination loses at most the last few seconds of
    /// unsent fixes, and a batch acknowledged but not yet stored is sent again with the same
    /// idempotency key, which the server answers without storing twice.
    private func saveSoon() {
        unsavedChanges += 1
        if unsavedChanges >= 10 { save() }
    }

    private func observe<Value: Sendable>(_ values: ReplaySequence<Value>,
                                          _ body: @escaping @MainActor (AppModel, Value) -> Void) async {
        let stream = await values.subscribe()
        tasks.append(Task { [weak self] in
            for await value in stream {
                guard let self else { return }
                body(self, value)
            }
        })
    }
}
