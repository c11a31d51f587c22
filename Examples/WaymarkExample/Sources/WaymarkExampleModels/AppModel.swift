import Foundation
import Observation
import WaymarkEngine
import WaymarkGeo
import WaymarkSync
import WaymarkTransport

/// The example app's root: one ``Engine`` over the device, the tab models, the first-launch
/// permissions, and the library's shipping path: WaymarkSync's `RideStore`, `RideRecorder` and
/// `UploadDriver`, and `FenceSync`, which keeps the server's fences on the phone (the Fences tab
/// shows them beside the ones added in the app).
///
/// Create it once per process, as early as possible (the app delegate's
/// `didFinishLaunchingWithOptions`, also for background launches), call ``start()``, and call
/// ``requestFirstLaunchPermissions()`` when the UI is on screen: location prompts appear only in
/// the foreground. On a phone the device is `LiveDevice`; in the Linux tests a `SimulatedDevice`.
///
/// ```swift
/// let app = try AppModel(device: LiveDevice(), store: FileAppStateStore(url: stateURL),
///                        rides: RideStore(path: storePath), tokens: KeychainTokenStore())
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
        /// Location authorization as the engine last published it.
        public var authorization: LocationAuthorization?
        /// Configuration problems for the developer: the engine's latest publication (each one
        /// replaces the last) and prompts iOS could not show. The UI shows them in debug builds only.
        public var problems: [String] = []
        /// The latest fix seen (launch fix or ride fix).
        public var lastKnownLocation: Coordinate?
        /// The server in use, nil until the user sets one.
        public var server: ServerSettings?
    }

    /// The engine.
    public let engine: Engine
    /// The device under the engine.
    public let device: any Device
    /// The Map tab.
    public let map: MapModel
    /// The Ride tab.
    public let ride: RideModel
    /// The Fences tab.
    public let fences: FencesModel
    /// Stores what the engine records, entry by entry.
    public let recorder: RideRecorder
    private var observed = ObservedValue(State())
    private let store: any AppStateStore
    private let tokens: any TokenStore
    private var stored: StoredAppState
    private let makeTransport: @MainActor (ServerSettings) throws -> any UploadTransport
    private let makeFenceTransport: @MainActor (ServerSettings) throws -> (any FenceListTransport)?
    private var fenceSync: FenceSync?
    private let uploadClock: any UploadClock
    private var engineProblems: [String] = []
    private var promptProblems: [String] = []
    private var tasks: [Task<Void, Never>] = []

    /// What the root view shows.
    public private(set) var state: State {
        get { observed.read(self, \.state) }
        set { observed.write(self, \.state, newValue) }
    }

    /// Makes the app's model; nothing runs until ``start()``.
    ///
    /// - parameter device: `LiveDevice` on a phone, a `SimulatedDevice` in tests.
    /// - parameter clock: the engine's clock (`device.clock` for a simulated device).
    /// - parameter uploadClock: the upload driver's time (`device.uploadClock` for a simulated device).
    /// - parameter store: the app's small stored state (permission memory, fences, server address).
    /// - parameter rides: the phone's ride and upload store.
    /// - parameter tokens: where device tokens are kept (the Keychain on a phone).
    /// - parameter makeTransport: the transport to a server (a `URLSessionUploadTransport` by default).
    /// - parameter makeFenceTransport: where the server's fences are read (`GET /api/fences` on a
    ///   `URLSessionUploadTransport` by default); nil keeps only the fences added in the app.
    /// - throws: `SyncError` when the ride store cannot be read.
    public init(device: any Device, clock: any Clock<Duration> = ContinuousClock(),
                uploadClock: any UploadClock = SystemUploadClock(), store: any AppStateStore, rides: RideStore,
                tokens: any TokenStore, declaredUsageDescriptions: Set<UsageDescriptionKey>? = nil,
                configurationProblems: [ConfigurationProblem] = [], backend: LocationBackend = .locationManager,
                makeTransport: @escaping @MainActor (ServerSettings) throws -> any UploadTransport = {
                    try URLSessionUploadTransport(server: $0.baseURL)
                },
                makeFenceTransport: @escaping @MainActor (ServerSettings) throws -> (any FenceListTransport)? = {
                    try URLSessionUploadTransport(server: $0.baseURL)
                }) throws {
        let stored = store.load()
        self.device = device
        self.store = store
        self.tokens = tokens
        self.stored = stored
        self.makeTransport = makeTransport
        self.makeFenceTransport = makeFenceTransport
        self.uploadClock = uploadClock
        engine = Engine(device: device, clock: clock,
                        configuration: ExampleApp.engineConfiguration(declaredUsageDescriptions: declaredUsageDescriptions,
                                                                      backend: backend),
                        memory: stored.permissionMemory, geofences: stored.geofences, ride: try rides.lastCheckpoint())
        recorder = try RideRecorder(store: rides)
        map = MapModel()
        ride = RideModel(engine: engine, device: device, store: rides)
        fences = FencesModel(engine: engine, stored: stored.geofences, log: stored.fenceLog)
        engineProblems = configurationProblems.map(\.message)
        state.problems = engineProblems
        if let url = stored.serverURL, let token = tokens.token(for: url) {
            state.server = ServerSettings(baseURL: url, deviceToken: token)
        }
        fences.logChanged = { [weak self] log in
            self?.stored.fenceLog = log
            self?.save()
        }
    }

    /// Subscribes every tab to the engine, starts the recorder and the upload driver, then runs
    /// the engine (once per process).
    public func start() async {
        guard tasks.isEmpty else { return }
        let engine = engine
        await observe(engine.permissions.authorization) { app, auth in
            app.state.authorization = auth
            app.ride.apply(auth)
        }
        await observe(engine.diagnostics.problems) { app, problems in
            app.engineProblems = problems.map(\.message)
            app.state.problems = app.engineProblems + app.promptProblems
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
        await observe(engine.ride.states) { app, ride in app.ride.apply(ride) }
        await observe(engine.ride.statistics) { app, statistics in app.ride.apply(statistics) }
        await observe(engine.ride.automatic) { app, automatic in app.ride.apply(automatic) }
        await observe(engine.ride.recorded) { app, record in
            if case .fix(let fix) = record { app.state.lastKnownLocation = fix.coordinate }
            app.ride.record(record)
        }
        // The shipping path: every entry and geofence event into the store, then the driver; the
        // app's lifecycle and network events to the driver. All subscribe before the engine runs
        // (no replay).
        let entries = await engine.ride.recorded.subscribe()
        let fenceEvents = await engine.geofences.events.subscribe()
        let system = await engine.system.events.subscribe()
        let recorder = recorder, ride = ride
        tasks.append(Task { await recorder.record(entries) { await ride.stored() } })
        tasks.append(Task { await recorder.record(fenceEvents: fenceEvents) { await ride.stored() } })
        tasks.append(Task { @MainActor [weak self] in
            for await event in system {
                await self?.ride.driver?.handle(event)
                await self?.syncFences(after: event)
            }
        })
        await connect(state.server)
        tasks.append(Task.detached { await engine.run() })
    }

    /// Asks for notifications, then location (when in use), one prompt at a time.
    public func requestFirstLaunchPermissions() async {
        guard state.firstLaunch == .notAsked else { return }
        state.firstLaunch = .asking
        do {
            let outcomes = try await engine.permissions.request(ExampleApp.firstLaunchRequests)
            state.firstLaunch = .finished(outcomes)
            for outcome in outcomes {
                if case .misconfigured(let key) = outcome.result {
                    promptProblems.append("Info.plist lacks \(key.rawValue): iOS shows no prompt for it.")
                }
            }
            state.problems = engineProblems + promptProblems
        } catch {
            state.firstLaunch = .finished([])
        }
    }

    /// Shows a problem for the developer (debug builds) beside the engine's.
    public func report(_ problem: String) {
        promptProblems.append(problem)
        state.problems = engineProblems + promptProblems
    }

    /// Selects a tab.
    public func select(_ tab: Tab) { state.tab = tab }

    /// Uploads to `settings` from now on (nil: stop uploading). The token goes to the token store;
    /// the previous server's token is removed and its driver stopped. What waits in the store goes
    /// to the new server.
    public func setServer(_ settings: ServerSettings?) async {
        if let old = stored.serverURL, old != settings?.baseURL { tokens.setToken(nil, for: old) }
        if let settings { tokens.setToken(settings.deviceToken, for: settings.baseURL) }
        stored.serverURL = settings?.baseURL
        state.server = settings
        save()
        guard !tasks.isEmpty else { return }   // start() connects
        await connect(settings)
    }

    /// Writes the small stored state (the ride store writes itself, entry by entry).
    public func save() {
        store.save(stored)
    }

    /// Lets `FenceSync` decide whether the device's event makes a fence refresh due (a launch, a
    /// position far from the last fetch, an old copy), and hands changed fences to the Fences tab.
    private func syncFences(after event: DeviceEvent) async {
        guard let sync = fenceSync, let outcome = await sync.handle(event, at: uploadClock.now) else { return }
        await fences.apply(server: outcome)
    }

    private func connect(_ settings: ServerSettings?) async {
        await connectFences(settings)
        guard let settings else { return await ride.use(nil) }
        do {
            let executor = UploadExecutor(store: ride.store, transport: try makeTransport(settings),
                                          credentials: DeviceCredentials(token: settings.deviceToken))
            let device = device
            let driver = try UploadDriver(executor: executor, clock: uploadClock,
                                          commands: { await device.perform($0) })
            await ride.use(driver)
        } catch {
            promptProblems.append("Uploads to \(settings.baseURL.absoluteString) cannot start: \(error)")
            state.problems = engineProblems + promptProblems
            await ride.use(nil)
        }
    }

    /// A new server: a new `FenceSync` over the ride store's copy, and a fetch at once (the server's
    /// fences are due at every start). Without a server the server's fences stay as last fetched.
    private func connectFences(_ settings: ServerSettings?) async {
        fenceSync = nil
        guard let settings else { return }
        do {
            guard let transport = try makeFenceTransport(settings) else { return }
            let sync = FenceSync(store: ride.store, transport: transport, credentials: DeviceCredentials(token: settings.deviceToken))
            fenceSync = sync
            await fences.apply(server: await sync.refresh(at: uploadClock.now, position: state.lastKnownLocation))
        } catch {
            promptProblems.append("Fences from \(settings.baseURL.absoluteString) cannot be read: \(error)")
            state.problems = engineProblems + promptProblems
        }
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
