import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
import WaymarkSimulatedPhone
import WaymarkSimulator
import WaymarkSync
@testable import WaymarkExampleModels

/// The example app's ``AppModel``, with its real engine, on a ``SimulatedDevice``: the same view
/// models the iPhone app shows, driven second by second on virtual time.
///
/// ```swift
/// let phone = try SimulatedPhone(scenario: Scenarios.fresh(duration: 120))
/// await phone.launch()
/// await phone.advance(seconds: 60)
/// #expect(phone.app.map.state.centeredOnLaunch)
/// ```
@MainActor
final class SimulatedPhone {
    let simulated: SimulatedDevice
    let store: MemoryAppStateStore
    let rides: RideStore
    let tokens: MemoryTokenStore
    let server: FakeServer
    let app: AppModel

    /// A phone running the app over `scenario`. A relaunch after a kill is a new phone made with
    /// the first one's stored state, ride store file, tokens and server.
    init(scenario: Scenario, seed: UInt64 = 1, stored: StoredAppState = StoredAppState(), declaresInfoPlistKeys: Bool = true,
         backend: LocationBackend = .locationManager, rides: RideStore? = nil, tokens: MemoryTokenStore? = nil,
         server: FakeServer = FakeServer()) throws {
        simulated = try SimulatedDevice(scenario: scenario, seed: seed)
        store = MemoryAppStateStore(stored)
        self.rides = try rides ?? RideStore.inMemory()
        self.tokens = tokens ?? MemoryTokenStore()
        self.server = server
        app = try AppModel(device: simulated, clock: simulated.clock, uploadClock: simulated.uploadClock, store: store,
                           rides: self.rides, tokens: self.tokens,
                           declaredUsageDescriptions: declaresInfoPlistKeys ? Set(UsageDescriptionKey.allCases) : nil,
                           backend: backend, makeTransport: { _ in FakeServerTransport(server: server) },
                           makeFenceTransport: { _ in FakeServerTransport(server: server) })
    }

    /// The process dies: nothing more runs and nothing is saved on the way out (the engine's
    /// device stream ends and the upload driver's work in flight is cancelled, as a kill would
    /// end them). What the stores hold is what the next process finds.
    func kill() async {
        await app.ride.driver?.stop()
        await simulated.finish()
    }

    var sim: Simulation { get async { await simulated.state } }

    /// The virtual second.
    var now: Double { get async { await simulated.state.now } }

    /// Starts the app model (subscriptions, then the engine) and the user opens the app.
    func launch() async {
        await app.start()
        await simulated.open()
        await settle()
    }

    /// Waits until the engine handled every event the device delivered and every deadline due by
    /// the current virtual second (``SimulatedDevice/settle(_:)``: it waits on the engine, not on
    /// time), then lets the tab models' subscriptions, tasks on the main actor, take what was
    /// published.
    func settle() async {
        await simulated.settle(app.engine)
        for _ in 0..<40 { await Task.yield() }
    }

    /// Advances virtual time one second at a time (the engine's clock is the device's).
    func advance(seconds: Int) async {
        for _ in 0..<seconds {
            await simulated.advance(by: 1)
            await settle()
        }
    }

    /// Advances until `condition` holds or `limit` seconds passed; returns whether it holds.
    @discardableResult
    func advance(until condition: () async -> Bool, limit: Int) async -> Bool {
        for _ in 0..<limit {
            if await condition() { return true }
            await advance(seconds: 1)
        }
        return await condition()
    }

    /// Runs `work` (a view-model call that waits for the user, e.g. a permission request) while
    /// virtual time advances, until it returns or `limit` seconds passed.
    func whileAdvancing<T: Sendable>(limit: Int, _ work: @escaping @MainActor () async -> T) async throws -> T {
        let task = Task { @MainActor in await work() }
        let done = Done()
        let watcher = Task { @MainActor in _ = await task.value; done.value = true }
        _ = watcher
        await advance(until: { done.value }, limit: limit)
        try #require(done.value, "still waiting after \(limit) virtual seconds")
        return await task.value
    }

    /// The prompts the simulated iOS showed, in order ("notifications", "location when in use", …).
    var promptsShown: [String] {
        get async {
            await sim.log.systemNotes.compactMap { note in
                note.hasPrefix("prompt shown: ") ? String(note.dropFirst("prompt shown: ".count)) : nil
            }
        }
    }

    @MainActor
    private final class Done {
        var value = false
    }
}

/// Scenarios the tests share: a start point, routes east of it, fresh and existing installs.
enum Scenarios {
    static let origin = Coordinate(uncheckedLatitude: 46.05, longitude: 14.50)

    /// A point `meters` east of the origin.
    static func east(_ meters: Double) -> Coordinate {
        Geodesy.destination(from: origin, bearing: 90, distance: meters)
    }

    /// No cached fix, so the launch fix is a fresh one.
    static let noCache: [String: JSONValue] = ["cachedFixProbability": .number(0)]

    /// A fresh install of an app whose Info.plist has the keys and the location background mode.
    static func fresh(route: ScenarioRoute? = nil, prompts: [PromptKind: PromptResponse]? = nil,
                      actions: [UserAction] = [], duration: Double) -> Scenario {
        Scenario(durationSeconds: duration, route: route ?? ScenarioRoute(start: origin, legs: []),
                 device: declared(DeviceSetup(install: .fresh, backgroundModes: [.location])),
                 user: UserBehaviour(prompts: prompts, actions: actions),
                 platform: PlatformSetup(overrides: noCache))
    }

    /// An existing install with these permissions and the location background mode.
    static func existing(_ location: LocationAuthorizationStatus, motion: DeviceSetup.PermissionSetting = .notDetermined,
                         route: ScenarioRoute, actions: [UserAction] = [], duration: Double) -> Scenario {
        Scenario(durationSeconds: duration, route: route,
                 device: declared(DeviceSetup(install: .existing, location: location, notifications: .granted, motion: motion,
                                              backgroundModes: [.location])),
                 user: UserBehaviour(actions: actions),
                 platform: PlatformSetup(overrides: noCache))
    }

    /// Still for `wait` seconds, east at `speed` for `seconds`, then still.
    /// What the app's Info.plist declares beyond usage descriptions and background modes:
    /// `NSLocationRequireExplicitServiceSession` (the iOS 17/18 backend needs it).
    static func declared(_ setup: DeviceSetup) -> DeviceSetup {
        var setup = setup
        setup.requiresExplicitServiceSession = true
        return setup
    }

    static func eastbound(speed: Double, seconds: Double, after wait: Double = 0) -> ScenarioRoute {
        ScenarioRoute(start: origin, legs: [.stop(wait), .travel([east(speed * seconds)], speed: speed)])
    }
}
