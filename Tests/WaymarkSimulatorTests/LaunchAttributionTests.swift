import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

/// Audit finding 3.1 (launch reasons, H): under UIScene a location relaunch carries no key, so the
/// engine infers a background launch from `applicationState` and learns its cause from the first
/// Core Location event (Apple, `UIApplication.LaunchOptionsKey.location`).
@Suite("Launch attribution: the launch reason refined by the first location event")
struct LaunchAttributionTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// The attributions the app's engine published, per launch: the last value of each process.
    static func attributions(_ app: EngineApp) -> [LaunchAttribution] {
        var perLaunch: [Date: LaunchAttribution] = [:]
        for case .launch(let attribution) in app.timeline.map(\.value) { perLaunch[attribution.launchedAt] = attribution }
        return perLaunch.values.sorted { $0.launchedAt < $1.launchedAt }
    }

    @Test("a background launch is settled by the first location event, and only by it")
    func settledByFirstLocationEvent() {
        var launch = LaunchAttribution(reason: .background, at: Self.t0)
        #expect(launch.cause == nil)
        let changed1 = launch.handle(.authorizationChanged(LocationAuthorization(status: .authorizedAlways)), at: Self.t0)
        #expect(!changed1)
        let changed2 = launch.handle(.regionState(identifier: "a", state: .inside), at: Self.t0)
        #expect(!changed2, "the engine asks for states itself")
        #expect(launch.cause == nil)
        let changed3 = launch.handle(.regionExited(identifier: "home"), at: Self.t0.addingTimeInterval(1))
        #expect(changed3)
        #expect(launch.cause == .region(identifier: "home"))
        #expect(launch.settledAt == Self.t0.addingTimeInterval(1))
        let changed4 = launch.handle(.visit(Visit(coordinate: Fixture.origin, horizontalAccuracy: 50, arrival: nil, departure: nil)), at: Self.t0)
        #expect(!changed4,
                "the first location event decides")
        #expect(launch.cause == .region(identifier: "home"))
    }

    @Test("each location event names its cause", arguments: [
        (DeviceEvent.significantChange(Fix(coordinate: Fixture.origin, horizontalAccuracy: 500, timestamp: t0)), LaunchCause.significantChange),
        (.visit(Visit(coordinate: Fixture.origin, horizontalAccuracy: 50, arrival: t0, departure: nil)), .visit),
        (.monitorEvent(identifier: "c", state: .satisfied), .region(identifier: "c")),
        (.regionEntered(identifier: "r"), .region(identifier: "r")),
        (.locations([Fix(coordinate: Fixture.origin, horizontalAccuracy: 5, timestamp: t0)]), .locationUpdates),
    ])
    func causes(event: DeviceEvent, cause: LaunchCause) {
        var launch = LaunchAttribution(reason: .location, at: Self.t0)
        let changed5 = launch.handle(event, at: Self.t0)
        #expect(changed5)
        #expect(launch.cause == cause)
    }

    @Test("user and push launches are settled at once; a location event does not change them",
          arguments: [(LaunchReason.user, LaunchCause.userOpened), (.remoteNotification, .remoteNotification)])
    func settledAtOnce(reason: LaunchReason, cause: LaunchCause) {
        var launch = LaunchAttribution(reason: reason, at: Self.t0)
        #expect(launch.cause == cause)
        #expect(launch.settledAt == Self.t0)
        let changed6 = launch.handle(.regionEntered(identifier: "r"), at: Self.t0)
        #expect(!changed6)
        #expect(launch.cause == cause)
    }

    @Test("a significant-change relaunch: a background launch under UIScene, a location launch without; the cause from the first event",
          arguments: [(true, LaunchReason.background), (false, .location)] as [(Bool, LaunchReason)])
    func significantChangeRelaunch(sceneLifecycle: Bool, seen: LaunchReason) throws {
        let device = DeviceSetup(install: .existing, location: .authorizedAlways, significantChangesActive: true,
                                 backgroundModes: [.location], sceneLifecycle: sceneLifecycle)
        let scenario = Scenario(durationSeconds: 1800, route: Fixture.eastbound(speed: 10, seconds: 1800), device: device,
                                platform: PlatformSetup(overrides: Fixture.noCache))
        var sim = try Simulation(scenario: scenario, app: EngineApp())
        sim.runToEnd()
        let launches = Self.attributions(try #require(sim.engineApp))
        #expect(!launches.isEmpty)
        for launch in launches {
            #expect(launch.reason == seen)
            #expect(launch.cause == .significantChange, "\(launch)")
            let settled = try #require(launch.settledAt)
            #expect(settled.timeIntervalSince(launch.launchedAt) < 10, "settled inside the launch's background window")
        }
    }

    /// What the test expects a relaunch's cause to be: the first location event the simulator
    /// delivered after it (iOS launches the app, answers the new manager's authorization callback,
    /// then hands it the event that caused the launch).
    static func expectedCause(after launchIndex: Int, in sim: Simulation) -> LaunchCause? {
        for timed in sim.received[(launchIndex + 1)...] {
            switch timed.event {
            case .launched: return nil
            case .regionEntered(let id), .regionExited(let id), .monitorEvent(let id, _): return .region(identifier: id)
            case .significantChange: return .significantChange
            case .visit: return .visit
            default: continue
            }
        }
        return nil
    }

    /// No missed region events, and significant changes too far apart to relaunch the app first.
    static let onlyRegionsRelaunch: [String: JSONValue] = [
        "regionMissProbability": .number(0), "significantChangeIdleWakeSeconds": .number(100_000),
        "significantChangeUrbanMinMeters": .number(50_000), "significantChangeUrbanMaxMeters": .number(50_000),
        "significantChangeRuralMinMeters": .number(50_000), "significantChangeRuralMaxMeters": .number(50_000),
    ]

    @Test("a terminated app relaunched by a fence's entry, on both backends: each relaunch is a background launch settled by the event that caused it",
          arguments: LocationBackend.allCases)
    func regionRelaunch(backend: LocationBackend) throws {
        let fence = Fence(id: "park", shape: .circle(center: Fixture.east(2_000), radiusMeters: 500), triggers: [.enter, .exit])
        let device = DeviceSetup(install: .existing, location: .authorizedAlways, motion: .granted, backgroundModes: [.location],
                                 sceneLifecycle: true)
        let scenario = Scenario(durationSeconds: 2_400, route: Fixture.eastbound(speed: 4, seconds: 1_200), device: device,
                                user: UserBehaviour(actions: [UserAction(at: 0, .open), UserAction(at: 60, .background),
                                                              UserAction(at: 120, .systemTerminate)]),
                                platform: PlatformSetup(overrides: Fixture.noCache.merging(Self.onlyRegionsRelaunch) { $1 }))
        var sim = try Simulation(scenario: scenario, seed: 6,
                                 app: EngineApp(configuration: EngineCore.Configuration(backend: backend), script: .init(fences: [fence])))
        sim.runToEnd()
        let launches = Self.attributions(try #require(sim.engineApp))
        let launchIndices = sim.received.indices.filter { if case .launched = sim.received[$0].event { true } else { false } }
        try #require(launches.count == launchIndices.count)
        #expect(launches.first?.reason == .user)
        #expect(launches.first?.cause == .userOpened)
        #expect(launches.count >= 2, "the terminated app is relaunched")
        for (launch, index) in zip(launches, launchIndices).dropFirst() {
            #expect(launch.reason == .background)
            let expected = try #require(Self.expectedCause(after: index, in: sim), "\(sim.received[index...].prefix(2))")
            #expect(launch.cause == expected)
        }
        #expect(launches[1].cause == .region(identifier: "waymark.fence.park"), "the park's entry relaunched the app")
    }
}
