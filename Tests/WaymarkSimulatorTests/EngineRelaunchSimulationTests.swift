import Foundation
import Testing
import WaymarkEngine
import WaymarkGeo
@testable import WaymarkSimulator

@Suite("Engine in the simulator: relaunches, allow once, always-upgrade, energy, replay")
struct EngineRelaunchSimulationTests {
    /// Opened at 0, force-quit at 60, opened again at 120.
    static func twoLaunches(prompts: [PromptKind: PromptResponse] = [:], requests: [PermissionRequest]? = nil,
                            backend: LocationBackend = .locationManager) throws -> Simulation {
        let scenario = Fixture.opened(prompts: prompts, actions: [UserAction(at: 60, .forceQuit), UserAction(at: 120, .open)],
                                      duration: 240)
        let configuration = EngineCore.Configuration(backend: backend)
        var sim = try Simulation(scenario: scenario,
                                 app: requests.map { EngineApp.mapApp(requests: $0, configuration: configuration) }
                                     ?? EngineApp.mapApp(configuration: configuration))
        sim.runToEnd()
        return sim
    }

    @Test("relaunch of an install that allowed: one authorizedWhenInUse callback, no prompt, one start")
    func relaunchAfterAllowing() throws {
        let scenario = Fixture.opened(device: Fixture.existing(.authorizedWhenInUse, notifications: .granted), duration: 120)
        var sim = try Simulation(scenario: scenario, app: EngineApp.mapApp())
        sim.runToEnd()
        let app = try #require(sim.engineApp)
        #expect(sim.authorizationStatuses == [.authorizedWhenInUse])
        #expect(sim.stats.promptsShown == 0)
        #expect(sim.startTimes == [0])
        #expect(app.permissionBatches.first?.map(\.prompted) == [true, false])   // notifications answer at once; location skipped
        #expect(app.launchStates.last?.value.fix != nil)
    }

    @Test("allow, quit, relaunch: updates start exactly once in each process", arguments: LocationBackend.allCases)
    func allowThenRelaunch(backend: LocationBackend) throws {
        let sim = try Self.twoLaunches(backend: backend)
        #expect(sim.launchTimes == [0, 120])
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedWhenInUse, .authorizedWhenInUse])
        #expect(sim.stats.promptsShown == 2)
        #expect(sim.startTimes.filter { $0 < 60 }.count == 1)
        #expect(sim.startTimes.filter { $0 >= 120 }.count == 1)
        #expect(sim.stats.promptCollisions == 0)
    }

    @Test("allow once, then relaunch: asked again without collision, one start per process, a fix each time", arguments: LocationBackend.allCases)
    func allowOnceThenRelaunch(backend: LocationBackend) throws {
        let sim = try Self.twoLaunches(prompts: [.locationWhenInUse: PromptResponse(.allowOnce)], backend: backend)
        let app = try #require(sim.engineApp)
        #expect(sim.authorizationStatuses == [.notDetermined, .authorizedWhenInUse, .notDetermined, .authorizedWhenInUse])
        #expect(sim.stats.promptsShown == 3)   // notifications once, location in each process
        #expect(sim.stats.promptCollisions == 0)
        #expect(sim.startTimes.count == 2)
        #expect(app.launchStates.filter { $0.value.fix != nil }.count == 2)
        #expect(app.mapStates.filter { $0.center != nil && $0.currentLocationButtonEnabled }.count == 2)
    }

    @Test("the always-upgrade is shown once per install; the next launch does not ask or wait")
    func alwaysUpgradeOncePerInstall() throws {
        let sim = try Self.twoLaunches(prompts: [.locationAlways: PromptResponse(.deny)],
                                       requests: [.locationWhenInUse, .locationAlwaysUpgrade])
        let app = try #require(sim.engineApp)
        #expect(sim.commandTimes { $0 == .requestAlwaysAuthorization }.count == 1)
        #expect(app.permissionBatches.map { $0.map(\.result) } == [[.granted, .denied], [.granted, .notAsked(.alreadyAskedOnThisInstall)]])
        #expect(sim.stats.promptCollisions == 0)
    }

    @Test("under Allow Once the upgrade shows nothing: the sequencer times out instead of blaming Info.plist")
    func upgradeUnderAllowOnce() throws {
        let scenario = Fixture.opened(prompts: [.locationWhenInUse: PromptResponse(.allowOnce)], duration: 120)
        var sim = try Simulation(scenario: scenario, app: EngineApp.mapApp(requests: [.locationWhenInUse, .locationAlwaysUpgrade]))
        sim.runToEnd()
        let app = try #require(sim.engineApp)
        #expect(app.permissionBatches.first?.map(\.result) == [.granted, .timedOut])
    }

    /// With the default 100 m the first Wi-Fi fix (30–100 m) is taken within a second; with 20 m
    /// the locator waits for GNSS (5–30 s to the first fix), which makes the bound non-trivial.
    @Test("energy: from launch to 60 s after the accepted fix, GNSS is on only until the fix",
          arguments: [1, 2, 3] as [UInt64], [100, 20] as [Double])
    func energy(seed: UInt64, maxAccuracy: Double) throws {
        let scenario = Fixture.opened(device: Fixture.existing(.authorizedWhenInUse, notifications: .granted), duration: 120)
        let configuration = EngineCore.Configuration(launchLocation: .init(maxAccuracyMeters: maxAccuracy, timeout: 40))
        var sim = try Simulation(scenario: scenario, seed: seed, app: EngineApp.mapApp(configuration: configuration))
        sim.runToEnd()
        let app = try #require(sim.engineApp)
        let last = try #require(app.launchStates.last)
        let (acceptedAt, state) = (last.time, last.value)
        #expect(try #require(state.fix?.horizontalAccuracy) <= maxAccuracy)
        let accepted = acceptedAt.timeIntervalSince(sim.epoch)
        #expect(accepted + 60 <= sim.endTime)
        let start = try #require(sim.startTimes.first)
        #expect(abs(sim.energy[.gnss] - (accepted - start) * sim.constants.energy.gnssPerSecond) < 0.01)

        var naive = try Simulation(scenario: scenario, seed: seed, app: NaiveMapApp())
        naive.runToEnd()
        #expect(naive.energy[.gnss] > sim.energy[.gnss] + 60)   // the naive app keeps the receiver on
    }

    @Test("replay of the simulated launch states: early and late subscribers get located(fix) exactly once")
    func replayFromSimulation() async throws {
        let scenario = Fixture.opened(duration: 120)
        var sim = try Simulation(scenario: scenario, app: EngineApp.mapApp())
        sim.runToEnd()
        let states = try #require(sim.engineApp).launchStates.map(\.value)
        let fix = try #require(states.last?.fix)

        let broadcaster = ReplayBroadcaster<LaunchLocationState>(initial: .idle)
        let early = await broadcaster.subscribe()          // the map screen subscribed in viewDidLoad, before the fix
        for state in states { await broadcaster.publish(state) }
        let late = await broadcaster.subscribe()           // a screen opened after the fix
        await broadcaster.finish()
        var earlySeen: [LaunchLocationState] = []
        for await state in early { earlySeen.append(state) }
        var lateSeen: [LaunchLocationState] = []
        for await state in late { lateSeen.append(state) }
        #expect(earlySeen == [.idle, .waitingForPermission, .locating, .located(fix)])
        #expect(lateSeen == [.located(fix)])
    }
}
